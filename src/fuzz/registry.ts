/**
 * One registry of what the engine runs, by id (issue 33): every property — the fuzzed suites
 * (suites.ts), the crash-point properties (crashpoint-oracles.ts), the matrix's pairing and situation
 * properties (matrix.ts) — every crash-point flow and every matrix situation. A replay file, a
 * selection or a command that names one finds it here; ids are unique across the lot.
 */
import { CRASHPOINT_PROPERTIES } from './crashpoint-oracles.ts';
import { FLOW_KINDS, type FlowKind } from './crashpoints.ts';
import { MATRIX_PROPERTIES, SITUATION_PROPERTIES } from './matrix.ts';
import { SITUATIONS, type Situation } from './matrix-situations.ts';
import { PROPERTIES, type PropertyDef } from './suites.ts';

/** Where a property comes from: what runs it (`cetp-sim fuzz`, `crashpoints`, `matrix`). */
export type PropertyFamily = 'suite' | 'crashpoint' | 'matrix' | 'situation';

export interface RegisteredProperty {
  readonly family: PropertyFamily;
  readonly def: PropertyDef;
}

/**
 * Every property, in this order: the fuzzed suites, crash points, matrix pairings, situations. A
 * property one family borrows from another (the matrix runs the suites' `consumer`) is there once,
 * under the family that defines it.
 */
export const REGISTRY: readonly RegisteredProperty[] = (
  [
    ['suite', PROPERTIES],
    ['crashpoint', CRASHPOINT_PROPERTIES],
    ['matrix', MATRIX_PROPERTIES],
    ['situation', SITUATION_PROPERTIES],
  ] as const
).reduce<RegisteredProperty[]>((out, [family, defs]) => {
  for (const def of defs) if (!out.some((e) => e.def === def)) out.push({ family, def });
  return out;
}, []);

/** A property of any family by id (what a replay file may name). */
export function registeredProperty(id: string): RegisteredProperty | undefined {
  return REGISTRY.find((e) => e.def.id === id);
}

/** The property a replay file names, of any family. */
export function replayablePropertyById(id: string): PropertyDef | undefined {
  return registeredProperty(id)?.def;
}

/** Every property id a replay file may name, in registry order. */
export function replayablePropertyIds(): string[] {
  return REGISTRY.map((e) => e.def.id);
}

/** A matrix situation by id. */
export function situationById(id: string): Situation | undefined {
  return SITUATIONS.find((s) => s.id === id);
}

/** A crash-point flow by name. */
export function flowKindOf(name: string): FlowKind | undefined {
  return FLOW_KINDS.find((f) => f === name);
}

/** Ids given to more than one thing of the registry (properties, situations, flows): [] when sound. */
export function duplicateIds(
  ids: readonly string[] = [
    ...REGISTRY.map((e) => e.def.id),
    ...SITUATIONS.map((s) => `situation:${s.id}`),
    ...FLOW_KINDS.map((f) => `flow:${f}`),
  ],
): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}
