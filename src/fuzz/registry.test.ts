import { describe, expect, it } from 'vitest';
import { CRASHPOINT_PROPERTIES } from './crashpoint-oracles.ts';
import { MATRIX_PROPERTIES, SITUATION_PROPERTIES } from './matrix.ts';
import {
  duplicateIds,
  flowKindOf,
  REGISTRY,
  registeredProperty,
  replayablePropertyById,
  replayablePropertyIds,
  situationById,
} from './registry.ts';
import { PROPERTIES } from './suites.ts';

describe('the registry', () => {
  it('holds every property of every family once, in order', () => {
    const listed = [...PROPERTIES, ...CRASHPOINT_PROPERTIES, ...MATRIX_PROPERTIES, ...SITUATION_PROPERTIES];
    const all = listed.filter((p, i) => listed.indexOf(p) === i);
    expect(all.length).toBeLessThan(listed.length); // the matrix borrows the suites' `consumer`
    expect(REGISTRY.map((e) => e.def)).toEqual(all);
    expect(replayablePropertyIds()).toEqual(all.map((p) => p.id));
    expect(duplicateIds()).toEqual([]);
  });

  it('finds a property of each family, a situation and a flow by id', () => {
    expect(registeredProperty('idempotency')?.family).toBe('suite');
    expect(registeredProperty('crashpoints-consumer')?.family).toBe('crashpoint');
    expect(registeredProperty('matrix-interop')?.family).toBe('matrix');
    const situation = SITUATION_PROPERTIES[0];
    expect(situation && registeredProperty(situation.id)?.family).toBe('situation');
    expect(replayablePropertyById('nope')).toBeUndefined();
    expect(situationById('deadline-passes')?.note).toBeTypeOf('number');
    expect(situationById('nope')).toBeUndefined();
    expect(flowKindOf('sync-write')).toBe('sync-write');
    expect(flowKindOf('nope')).toBeUndefined();
  });

  it('sees an id given twice', () => {
    expect(duplicateIds(['a', 'b', 'a', 'c', 'b'])).toEqual(['a', 'b']);
  });
});
