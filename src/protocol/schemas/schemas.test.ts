import { describe, expect, it } from 'vitest';
import { BUNDLE_KEYS } from '../keys.ts';
import { V2_METHOD_NAMES, V2_METHODS } from '../methods.ts';
import { isRuleId } from '../rules.ts';
import { expectIssue, issuesOf } from '../testing/expect-issue.ts';
import { patched } from '../testing/json-patch.ts';
import { enumSites, type Node, objectSites, schemaNodes } from '../testing/schema-walk.ts';
import { DRAFT_2020_12 } from './core.ts';
import { validateWire, WIRE_SCHEMAS, WIRE_SHAPE_NAMES, type WireShapeName } from './registry.ts';
import { SPEC_EXAMPLES } from './spec-examples.ts';

/** The shapes that keys.ts and methods.ts name. */
function namedShapes(): Set<WireShapeName> {
  const named = new Set<WireShapeName>();
  for (const spec of Object.values(BUNDLE_KEYS)) if ('shape' in spec) named.add(spec.shape);
  for (const m of V2_METHOD_NAMES) {
    named.add(V2_METHODS[m].successShape);
    const accepted = V2_METHODS[m].acceptedShape;
    if (accepted !== undefined) named.add(accepted);
  }
  return named;
}

const EXAMPLES = Object.entries(SPEC_EXAMPLES).map(([name, e]) => ({
  name,
  ...e,
  value: JSON.parse(e.json) as unknown,
}));

describe('wire schema registry: completeness', () => {
  it('every shape named in keys.ts and methods.ts has a schema', () => {
    for (const shape of namedShapes()) expect(WIRE_SCHEMAS[shape], shape).toBeDefined();
  });

  it('every schema is named by keys.ts/methods.ts or embedded in a schema that is', () => {
    const named = namedShapes();
    const reachable = new Set<unknown>();
    for (const shape of named) schemaNodes(WIRE_SCHEMAS[shape], reachable);
    for (const shape of WIRE_SHAPE_NAMES) {
      const { $schema: _, $id: __, ...body } = WIRE_SCHEMAS[shape];
      const embedded = [...reachable].some((n) => n !== WIRE_SCHEMAS[shape] && isSameBody(n, body));
      expect(named.has(shape) || embedded, `${shape} is an orphan`).toBe(true);
    }
  });

  it.each(WIRE_SHAPE_NAMES)('%s is a Draft 2020-12 schema with an id and rule ids', (shape) => {
    const schema = WIRE_SCHEMAS[shape];
    expect(schema.$schema).toBe(DRAFT_2020_12);
    expect(schema.$id).toBe(`urn:cetp:v2:${shape}`);
    expect(schema['x-rules']?.length ?? 0).toBeGreaterThan(0);
    expect(Object.isFrozen(schema)).toBe(true);
  });

  it('every x-rules entry is a catalogue rule id', () => {
    for (const shape of WIRE_SHAPE_NAMES) {
      for (const node of schemaNodes(WIRE_SCHEMAS[shape])) {
        for (const id of ((node as Node)['x-rules'] as string[] | undefined) ?? [])
          expect(isRuleId(id), id).toBe(true);
      }
    }
  });

  it('marks exactly the security-relevant enums of CETP-3.2-12 (effect, risk, confirmation, execution, access, sensitivity)', () => {
    const marked = new Set<string>();
    for (const shape of WIRE_SHAPE_NAMES) {
      for (const node of schemaNodes(WIRE_SCHEMAS[shape])) {
        for (const [field, sub] of Object.entries(
          ((node as Node).properties as Record<string, Node> | undefined) ?? {},
        )) {
          if (sub['x-security-enum'] === true) marked.add(field);
        }
      }
    }
    expect([...marked].sort()).toEqual([
      'access',
      'confirmation',
      'effect',
      'execution',
      'risk',
      'sensitivity',
    ]);
  });

  it('every shape named by the methods has a spec example', () => {
    const exampled = new Set<WireShapeName>(EXAMPLES.map((e) => e.shape));
    for (const m of V2_METHOD_NAMES) expect(exampled.has(V2_METHODS[m].successShape), m).toBe(true);
  });
});

function isSameBody(node: unknown, body: object): boolean {
  return (
    typeof node === 'object' &&
    node !== null &&
    Object.keys(body).every((k) => (node as Node)[k] === (body as Node)[k])
  );
}

describe.each(EXAMPLES)('spec example $name (§$section) as $shape', ({ shape, value }) => {
  const schema = WIRE_SCHEMAS[shape] as unknown as Node;

  it('is accepted', () => {
    expect(validateWire(shape, value)).toEqual({ ok: true, value });
  });

  it('is rejected without each required field (CETP-3.2-11 for descriptors)', () => {
    const sites = [...objectSites(schema, value)];
    expect(sites.length).toBeGreaterThan(0);
    for (const site of sites) {
      for (const field of site.required) {
        const path = `${site.pointer}/${field}`;
        const issues = issuesOf(validateWire(shape, patched(value, path, undefined)));
        expectIssue(issues, { code: 'missing_required', path });
        for (const i of issues) expect(i.ruleIds.length, JSON.stringify(i)).toBeGreaterThan(0);
      }
    }
  });

  it('accepts an unknown field on every object (CETP-3.2-10)', () => {
    for (const site of objectSites(schema, value)) {
      expect(
        validateWire(shape, patched(value, `${site.pointer}/x_future_field`, { any: 1 })).ok,
        site.pointer,
      ).toBe(true);
    }
  });

  it('rejects an unknown value of every enum (CETP-3.2-12 for security enums)', () => {
    for (const site of enumSites(schema, value)) {
      const issues = issuesOf(validateWire(shape, patched(value, site.pointer, 'zz_unknown')));
      const code =
        site.schema.const !== undefined && site.pointer.endsWith('/kind') ? undefined : 'unknown_enum_value';
      if (code !== undefined) expectIssue(issues, { code, path: site.pointer });
      if (site.schema['x-security-enum'] === true) {
        expectIssue(issues, { code: 'unknown_enum_value', ruleId: 'CETP-3.2-12', path: site.pointer });
      }
    }
  });
});
