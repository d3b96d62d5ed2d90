/**
 * Every JSON shape that travels in a CETP v2 Bundle string (spec §2.2 – §5), by name, each with its
 * Draft 2020-12 JSON Schema — the single source of truth of its TypeScript type (`WireShape<N>`) —
 * and `validateWire`, which checks an untrusted value and returns typed issues, never throwing.
 *
 * Each shape's validator is compiled on its first use, once per process (a Lazy of src/base/caches.ts):
 * a worker thread of the CLI starts without compiling the shapes its jobs never read (compiling all
 * of them at import was about half of a worker's start-up).
 */
import { caches } from '../../base/caches.ts';
import { fail, issue, ok, type ProtocolIssue, type WireResult } from '../issues.ts';
import { SharedMetaAjv, type ValidateFunction } from './ajv.ts';
import { issuesFromAjvErrors } from './ajv-issues.ts';
import { ANNOTATION_KEYWORDS, DRAFT_2020_12, type FromSchema, type SchemaNode } from './core.ts';
import { CONSUMER_CAPABILITIES_SCHEMA, LIMITS_SCHEMA, NEGOTIATE_RESPONSE_SCHEMA } from './negotiate.ts';
import {
  CANCEL_RESPONSE_SCHEMA,
  ERROR_DETAILS_SCHEMA,
  OPERATION_ERROR_SCHEMA,
  OPERATION_PROGRESS_SCHEMA,
  OPERATION_STATUS_SCHEMA,
} from './operation.ts';
import { PROVIDER_INFO_SCHEMA, SCOPE_SCHEMA } from './provider-info.ts';
import {
  ACCEPTED_SCHEMA,
  EXECUTION_RESULT_SCHEMA,
  FILE_RESULT_SCHEMA,
  INLINE_RESULT_SCHEMA,
} from './results.ts';
import { LIST_TOOLS_RESPONSE_SCHEMA, TOOL_ANNOTATIONS_SCHEMA, TOOL_DESCRIPTOR_SCHEMA } from './tool.ts';

const SHAPES = {
  consumer_capabilities: CONSUMER_CAPABILITIES_SCHEMA,
  limits: LIMITS_SCHEMA,
  negotiate_response: NEGOTIATE_RESPONSE_SCHEMA,
  scope: SCOPE_SCHEMA,
  provider_info: PROVIDER_INFO_SCHEMA,
  tool_annotations: TOOL_ANNOTATIONS_SCHEMA,
  tool_descriptor: TOOL_DESCRIPTOR_SCHEMA,
  list_tools_response: LIST_TOOLS_RESPONSE_SCHEMA,
  inline_result: INLINE_RESULT_SCHEMA,
  file_result: FILE_RESULT_SCHEMA,
  execution_result: EXECUTION_RESULT_SCHEMA,
  accepted: ACCEPTED_SCHEMA,
  operation_progress: OPERATION_PROGRESS_SCHEMA,
  error_details: ERROR_DETAILS_SCHEMA,
  operation_error: OPERATION_ERROR_SCHEMA,
  operation_status: OPERATION_STATUS_SCHEMA,
  cancel_response: CANCEL_RESPONSE_SCHEMA,
} as const satisfies Record<string, SchemaNode>;

export type WireShapeName = keyof typeof SHAPES;
/** The TypeScript type of a valid value of shape N, derived from its schema. */
export type WireShape<N extends WireShapeName> = FromSchema<(typeof SHAPES)[N]>;

export const WIRE_SHAPE_NAMES: readonly WireShapeName[] = Object.freeze(
  Object.keys(SHAPES) as WireShapeName[],
);

/** A shape's published schema: the body plus `$schema` and a `$id` naming the shape. */
export type PublishedSchema = Readonly<SchemaNode & { $schema: string; $id: string }>;

export const WIRE_SCHEMAS: Readonly<Record<WireShapeName, PublishedSchema>> = Object.freeze(
  Object.fromEntries(WIRE_SHAPE_NAMES.map((name) => [name, publish(name)])) as Record<
    WireShapeName,
    PublishedSchema
  >,
);

function publish(name: WireShapeName): PublishedSchema {
  const body: SchemaNode = SHAPES[name];
  return deepFreeze({ $schema: DRAFT_2020_12, $id: `urn:cetp:v2:${name}`, ...body });
}

/** The compiler and the validators compiled so far, by shape (the shapes share no `$ref`). */
const VALIDATORS = caches.lazy('protocol/schemas: wire validators, compiled per shape on first use', () => {
  // strictRequired is off because `then: { required: [...] }` names properties declared beside `if`.
  const ajv = new SharedMetaAjv({
    allErrors: true,
    strict: true,
    strictRequired: false,
    discriminator: true,
  });
  ajv.addVocabulary([...ANNOTATION_KEYWORDS]);
  return { ajv, compiled: new Map<WireShapeName, ValidateFunction>() };
});

function validatorOf(shape: WireShapeName): ValidateFunction {
  const { ajv, compiled } = VALIDATORS.get();
  let validate = compiled.get(shape);
  if (validate === undefined) {
    validate = ajv.compile(WIRE_SCHEMAS[shape]);
    compiled.set(shape, validate);
  }
  return validate;
}

export function isWireShapeName(name: string): name is WireShapeName {
  return Object.hasOwn(SHAPES, name);
}

/**
 * Validates `value` against shape `shape`. Unknown fields are allowed; missing required fields,
 * wrong types and unknown enum values are issues citing the schema's rule ids.
 */
export function validateWire<N extends WireShapeName>(shape: N, value: unknown): WireResult<WireShape<N>> {
  if (!isWireShapeName(shape)) {
    return fail([issue('unknown_shape', `no wire shape named ${JSON.stringify(shape)}`, [])]);
  }
  const validate = validatorOf(shape);
  try {
    if (validate(value)) return ok(value as WireShape<N>);
    return fail(issuesFromAjvErrors(validate.errors ?? [], WIRE_SCHEMAS[shape]));
  } catch (e) {
    // Only reachable for values JSON cannot produce (cycles, exotic getters).
    return fail([issue('schema_violation', `value could not be validated: ${String(e)}`, [])]);
  }
}

/**
 * Parses a Bundle's JSON string and validates it as `shape`; invalid JSON is an issue, not a throw.
 * `parsed`, when given, is `JSON.parse(json)` done already by the caller (an oracle re-reading a run).
 */
export function parseWire<N extends WireShapeName>(
  shape: N,
  json: string,
  path = '',
  parsed?: { readonly value: unknown },
): WireResult<WireShape<N>> {
  let value: unknown;
  try {
    value = parsed ? parsed.value : JSON.parse(json);
  } catch {
    return fail([
      issue('invalid_json', `${shape} is not valid JSON`, WIRE_SCHEMAS[shape]['x-rules'] ?? [], path),
    ]);
  }
  const result = validateWire(shape, value);
  if (result.ok || path === '') return result;
  return fail(result.issues.map((i) => prefixPath(i, path)));
}

function prefixPath(i: ProtocolIssue, prefix: string): ProtocolIssue {
  return { ...i, path: `${prefix}${i.path ?? ''}` };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
