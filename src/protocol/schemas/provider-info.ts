/**
 * Wire shape of `get_provider_info` (spec §3.2): stable identity, description and the scope
 * catalogue. Descriptor objects: unknown fields are allowed (CETP-3.2-10), missing required fields
 * (CETP-3.2-11) and unknown access/sensitivity values (CETP-3.2-12) are not.
 *
 * Required fields: those in the spec's JSON example, except scope `title` (the spec's SDK example
 * builds a ProviderScope without one) and `schema_dialect`, which defaults to Draft 2020-12
 * (CETP-3.2-07).
 */
import { SCOPE_ACCESS, SENSITIVITIES } from '../annotations.ts';
import { PACKAGE_NAME_PATTERN, SCOPE_NAME_PATTERN } from '../names.ts';
import type { FromSchema, SchemaNode } from './core.ts';

export const SCOPE_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: SCOPE_NAME_PATTERN, 'x-rules': ['CETP-3.2-03'] },
    title: { type: 'string' },
    description: { type: 'string' },
    access: { type: 'string', enum: SCOPE_ACCESS, 'x-rules': ['CETP-3.2-04'], 'x-security-enum': true },
    sensitivity: { type: 'string', enum: SENSITIVITIES, 'x-rules': ['CETP-3.2-04'], 'x-security-enum': true },
  },
  required: ['name', 'description', 'access', 'sensitivity'],
  'x-rules': ['CETP-3.2-01'],
  'x-descriptor': true,
} as const satisfies SchemaNode;
export type ScopeDescriptor = FromSchema<typeof SCOPE_SCHEMA>;

export const PROVIDER_INFO_SCHEMA = {
  type: 'object',
  properties: {
    provider_id: { type: 'string', pattern: PACKAGE_NAME_PATTERN, 'x-rules': ['CETP-3.1-01', 'CETP-3.1-02'] },
    provider_name: { type: 'string', 'x-rules': ['CETP-3.2-01'] },
    description: { type: 'string', 'x-rules': ['CETP-3.2-01'] },
    schema_dialect: { type: 'string', 'x-rules': ['CETP-3.2-06', 'CETP-3.2-07'] },
    scopes: { type: 'array', items: SCOPE_SCHEMA, 'x-rules': ['CETP-3.2-01'] },
  },
  required: ['provider_id', 'provider_name', 'description', 'scopes'],
  'x-rules': ['CETP-3.2-01', 'CETP-4-02'],
  'x-descriptor': true,
} as const satisfies SchemaNode;
export type ProviderInfo = FromSchema<typeof PROVIDER_INFO_SCHEMA>;
