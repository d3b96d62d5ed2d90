/**
 * Every field of the CETP v2 wire, in both directions, derived from the key tables (keys.ts) and the
 * wire schemas (schemas/registry.ts) — never listed by hand, so a key or a schema property added to
 * the protocol is a new field here at once. Oracles declare which fields they judge
 * (src/check/checker.ts `fields`), and `cetp-sim rules --fields` joins the two: a field no oracle
 * judges is a gap (src/check/fields.ts).
 *
 * Field ids:
 * - `req:<method>:<key>` — a Bundle key of a request (consumer → provider);
 * - `res:<kind>:<key>` — a Bundle key of a kind of response (provider → consumer): negotiateSuccess,
 *   success, fileResult, accepted, error, negotiateError, resolution;
 * - `json:<shape>/<path>` — a field of a JSON value carried in a Bundle string: the `data` of each
 *   method's success (and accepted) response and the request's consumer_capabilities (error_details
 *   is a free JSON object: its Bundle key is the field); `[]` marks array items, and the variants of
 *   a `oneOf` share one path.
 */
import { BUNDLE_KEYS, type KeyRequirement, REQUEST_KEYS, RESPONSE_KEYS } from './keys.ts';
import { V2_METHOD_NAMES, V2_METHODS } from './methods.ts';
import type { RuleId } from './rule-ids.ts';
import type { SchemaNode } from './schemas/core.ts';
import { WIRE_SCHEMAS, type WireShapeName } from './schemas/registry.ts';

export type FieldDirection = 'request' | 'response';

export interface WireField {
  readonly id: string;
  readonly direction: FieldDirection;
  /** Where it travels: a Bundle key, or a field inside a JSON string. */
  readonly carrier: 'bundle' | 'json';
  /** Its type: a Bundle type (Int, String, …) or a JSON type. */
  readonly type: string;
  /** Its domain as the schema states it: enum, const, pattern, range, length. */
  readonly domain: string;
  readonly required: boolean;
  readonly ruleIds: readonly RuleId[];
}

/** The JSON shapes carried in Bundle strings, with the direction they travel. */
const JSON_ROOTS: readonly (readonly [WireShapeName, FieldDirection])[] = [
  ['consumer_capabilities', 'request'],
  ...V2_METHOD_NAMES.flatMap((m) => {
    const spec = V2_METHODS[m];
    const shapes: (readonly [WireShapeName, FieldDirection])[] = [[spec.successShape, 'response']];
    if (spec.acceptedShape) shapes.push([spec.acceptedShape, 'response']);
    return shapes;
  }),
];

/** The field of a Bundle key `req` of a request (`req:<method>`) or a response (`res:<kind>`). */
function bundleField(direction: FieldDirection, carrierId: string, req: KeyRequirement): WireField {
  const spec = BUNDLE_KEYS[req.key];
  return {
    id: `${carrierId}:${req.key}`,
    direction,
    carrier: 'bundle',
    type: spec.type,
    domain: spec.content,
    required: req.required,
    ruleIds: req.ruleIds,
  };
}

function bundleFields(): WireField[] {
  return [
    ...V2_METHOD_NAMES.flatMap((method) =>
      REQUEST_KEYS[method].map((req) => bundleField('request', `req:${method}`, req)),
    ),
    ...Object.entries(RESPONSE_KEYS).flatMap(([kind, reqs]) =>
      reqs.map((req) => bundleField('response', `res:${kind}`, req)),
    ),
  ];
}

function domainOf(node: SchemaNode): string {
  const parts: string[] = [];
  if (node.const !== undefined) parts.push(`= ${JSON.stringify(node.const)}`);
  if (node.enum) parts.push(`one of ${node.enum.join('|')}`);
  if (node.pattern)
    parts.push(`pattern ${node.pattern.length > 30 ? `${node.pattern.slice(0, 29)}…` : node.pattern}`);
  if (node.minimum !== undefined || node.maximum !== undefined) {
    const max =
      node.maximum === undefined || node.maximum === Number.MAX_SAFE_INTEGER ? '' : String(node.maximum);
    parts.push(`${node.minimum ?? ''}..${max}`);
  }
  if (node.minLength !== undefined || node.maxLength !== undefined)
    parts.push(`length ${node.minLength ?? 0}..${node.maxLength ?? ''}`);
  return parts.join(', ');
}

function jsonFields(): WireField[] {
  const out = new Map<string, WireField>();
  const walk = (
    node: SchemaNode,
    path: string,
    direction: FieldDirection,
    required: boolean,
    inherited: readonly RuleId[],
  ) => {
    const rules = node['x-rules'] ?? inherited;
    if (path.includes('/') || path.endsWith('[]') || node.type !== 'object') {
      const known = out.get(path);
      const domain = domainOf(node);
      if (known && domain !== '' && !known.domain.split(' | ').includes(domain)) {
        // Another variant of a oneOf: the field's domain is either's.
        out.set(path, { ...known, domain: known.domain === '' ? domain : `${known.domain} | ${domain}` });
      }
      if (!known) {
        out.set(path, {
          id: `json:${path}`,
          direction,
          carrier: 'json',
          type: node.type ?? 'any',
          domain,
          required,
          ruleIds: rules,
        });
      }
    }
    for (const variant of node.oneOf ?? []) walk(variant, path, direction, required, rules);
    const props = node.properties ?? {};
    for (const [name, child] of Object.entries(props))
      walk(child, `${path}/${name}`, direction, (node.required ?? []).includes(name), rules);
    if (node.items) walk(node.items, `${path}[]`, direction, true, rules);
  };
  for (const [shape, direction] of JSON_ROOTS) walk(WIRE_SCHEMAS[shape], shape, direction, true, []);
  return [...out.values()];
}

/** Every wire field, requests first, then responses, then the JSON fields (stable order). */
export const WIRE_FIELDS: readonly WireField[] = Object.freeze([...bundleFields(), ...jsonFields()]);

/** Whether `pattern` (a field id where `*` matches any run of characters) matches `id`. */
export function fieldMatches(pattern: string, id: string): boolean {
  if (!pattern.includes('*')) return pattern === id;
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(id);
}
