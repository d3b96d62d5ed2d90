/**
 * What a description says about arguments: the JSON Schemas of each tool's input and output, the
 * values a fuzz fixture calls them with (argument pools), the args the app's business rule refuses,
 * and what a confirmation screen shows of them (every value the call acts on, 7.2-06).
 */
import type { JsonObject, JsonValue } from '../base/json.ts';
import type { AppSpec, FieldSpec, Names, ToolKind } from './spec.ts';

/** Ids look like `NOTE-3` (a counter) or `NOTE-1f0c…` (the app's seeded uuid). */
export function idSchema(names: Names): JsonObject {
  return { type: 'string', pattern: `^${names.idPrefix}-[0-9a-f-]+$` };
}

function fieldSchema(field: FieldSpec): JsonObject {
  if (field.type === 'string') return { type: 'string', minLength: 1, maxLength: 200 };
  if (field.type === 'integer') return { type: 'integer', minimum: 0, maximum: 1_000_000 };
  if (field.type === 'boolean') return { type: 'boolean' };
  return objectSchema(field.fields ?? []);
}

function objectSchema(fields: readonly FieldSpec[], allOptional = false): JsonObject {
  const required = allOptional ? [] : fields.filter((f) => !f.optional).map((f) => f.name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** The stored row's schema (what get returns and list's items are). */
function rowSchema(spec: AppSpec, names: Names): JsonObject {
  const fields = objectSchema(spec.entity.fields) as { properties: JsonObject; required?: string[] };
  return {
    type: 'object',
    properties: { ...fields.properties, [names.idField]: idSchema(names), owner_uid: { type: 'integer' } },
    required: [names.idField, 'owner_uid', ...(fields.required ?? [])],
  };
}

export function inputSchema(spec: AppSpec, names: Names, kind: ToolKind): JsonObject {
  const id = { [names.idField]: idSchema(names) };
  switch (kind) {
    case 'list':
      return {
        type: 'object',
        properties: { limit: { type: 'integer', minimum: 1, maximum: 100 } },
        additionalProperties: false,
      };
    case 'export':
      return { type: 'object', properties: {}, additionalProperties: false };
    case 'create':
      return objectSchema(spec.entity.fields);
    case 'update': {
      const fields = objectSchema(spec.entity.fields, true) as { properties: JsonObject };
      return {
        type: 'object',
        properties: { ...id, ...fields.properties },
        required: [names.idField],
        additionalProperties: false,
      };
    }
    case 'get':
    case 'delete':
      return { type: 'object', properties: id, required: [names.idField], additionalProperties: false };
  }
}

export function outputSchema(spec: AppSpec, names: Names, kind: ToolKind): JsonObject {
  const id = idSchema(names);
  switch (kind) {
    case 'list':
      return {
        type: 'object',
        properties: { items: { type: 'array', items: rowSchema(spec, names) } },
        required: ['items'],
      };
    case 'get':
      return {
        type: 'object',
        properties: { item: { anyOf: [rowSchema(spec, names), { type: 'null' }] } },
        required: ['item'],
      };
    case 'export':
      return {
        type: 'object',
        properties: { count: { type: 'integer' }, rows: { type: 'array' }, report: { type: 'string' } },
        required: ['count', 'rows', 'report'],
      };
    case 'create':
      return { type: 'object', properties: { [names.idField]: id }, required: [names.idField] };
    case 'update':
      return {
        type: 'object',
        properties: { updated: { const: true }, [names.idField]: id },
        required: ['updated', names.idField],
      };
    case 'delete':
      return {
        type: 'object',
        properties: { deleted: { const: true }, [names.idField]: id },
        required: ['deleted', names.idField],
      };
  }
}

const STRINGS = ['groceries', 'Berlin', 'weekly sync', 'dentist', 'Oslo'];

function sample(field: FieldSpec, variant: number, full: boolean): JsonValue {
  if (field.type === 'string') return STRINGS[(variant + field.name.length) % STRINGS.length] as string;
  if (field.type === 'integer') return 3 + variant * 7 + field.name.length;
  if (field.type === 'boolean') return variant % 2 === 0;
  return fieldsSample(field.fields ?? [], variant, full);
}

function fieldsSample(fields: readonly FieldSpec[], variant: number, full: boolean): JsonObject {
  const out: JsonObject = {};
  for (const f of fields) if (full || !f.optional) out[f.name] = sample(f, variant, full);
  return out;
}

/** The word that makes a provider_policy tool ask the user (runtime risk above its declaration). */
export const URGENT = 'urgent';

/** Whether these args need the user's approval under the provider's runtime policy (3.4-12). */
export function isUrgent(spec: AppSpec, args: JsonValue): boolean {
  const first = spec.entity.fields[0]?.name ?? '';
  const value = (args as JsonObject | null)?.[first];
  return typeof value === 'string' && value.includes(URGENT);
}

/** Create args whose first string field is the value the app's business rule refuses. */
export function refusedCreateArgs(spec: AppSpec): JsonObject {
  const first = spec.entity.fields[0]?.name ?? '';
  return { ...fieldsSample(spec.entity.fields, 0, false), [first]: spec.refusedValue };
}

/** The fixture's argument pools, by tool kind. */
export function argPool(spec: AppSpec, names: Names, kind: ToolKind): JsonValue[] {
  const own = { [names.idField]: `$OWN:${names.idField}` };
  const literal = { [names.idField]: `${names.idPrefix}-1` };
  // Another caller's real id (misuse: a correct app answers as if the row were not there).
  const other = { [names.idField]: `$OTHER:${names.idField}` };
  const first = spec.entity.fields[0]?.name ?? '';
  switch (kind) {
    case 'list':
      return [{}, { limit: 2 }];
    case 'export':
      return [{}];
    case 'get':
    case 'delete':
      return [own, literal, other];
    case 'create':
      return [
        fieldsSample(spec.entity.fields, 0, true),
        fieldsSample(spec.entity.fields, 1, false),
        { ...fieldsSample(spec.entity.fields, 2, true), [first]: `${URGENT} call` },
        refusedCreateArgs(spec),
      ];
    case 'update':
      return [
        { ...own, [first]: 'renamed' },
        { ...literal, ...fieldsSample(spec.entity.fields.slice(1), 3, true) },
        { ...own, [first]: `${URGENT} change` },
      ];
  }
}

/** Every string and number in `value`, as [path, text] pairs: what a confirmation screen lists. */
export function shownParameters(value: JsonValue, path = ''): [string, string][] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return [[path || 'value', String(value)]];
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => shownParameters(v, `${path}[${i}]`));
  return Object.entries(value).flatMap(([k, v]) => shownParameters(v, path ? `${path}.${k}` : k));
}
