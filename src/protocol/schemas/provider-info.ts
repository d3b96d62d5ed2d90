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
import { descriptor, type FromSchema, securityEnum } from './core.ts';
import { PROVIDER_ID_SCHEMA, SCOPE_NAME_SCHEMA } from './identifiers.ts';

export const SCOPE_SCHEMA = descriptor(
  {
    name: SCOPE_NAME_SCHEMA,
    title: { type: 'string' },
    description: { type: 'string' },
    access: securityEnum(SCOPE_ACCESS, ['CETP-3.2-04']),
    sensitivity: securityEnum(SENSITIVITIES, ['CETP-3.2-04']),
  },
  ['name', 'description', 'access', 'sensitivity'],
  ['CETP-3.2-01'],
);
export type ScopeDescriptor = FromSchema<typeof SCOPE_SCHEMA>;

export const PROVIDER_INFO_SCHEMA = descriptor(
  {
    provider_id: PROVIDER_ID_SCHEMA,
    provider_name: { type: 'string', 'x-rules': ['CETP-3.2-01'] },
    description: { type: 'string', 'x-rules': ['CETP-3.2-01'] },
    schema_dialect: { type: 'string', 'x-rules': ['CETP-3.2-06', 'CETP-3.2-07'] },
    scopes: { type: 'array', items: SCOPE_SCHEMA, 'x-rules': ['CETP-3.2-01'] },
  },
  ['provider_id', 'provider_name', 'description', 'scopes'],
  ['CETP-3.2-01', 'CETP-4-02'],
);
export type ProviderInfo = FromSchema<typeof PROVIDER_INFO_SCHEMA>;
