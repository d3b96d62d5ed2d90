/**
 * Wire shapes of `negotiate` (spec §2.2): the consumer_capabilities request string and the success
 * response data with its limits.
 *
 * Required fields: selected_version, provider_id, session_token, capabilities and limits carry the
 * negotiation itself (CETP-2.2-04 … 2.2-20); provider_name is display data and expires_at is a MAY
 * (CETP-2.2-11), so both are optional.
 */
import { LIMIT_MINIMUMS, LIMIT_RULES } from '../limits.ts';
import { CAPABILITIES } from '../methods.ts';
import { type FromSchema, object, patterned, type SchemaNode, wholeNumber } from './core.ts';
import { PROVIDER_ID_SCHEMA } from './identifiers.ts';

/** RFC 3339 date-time, as in the spec's example `2026-09-02T12:00:00Z`. */
export const RFC3339_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$';

export const CONSUMER_CAPABILITIES_SCHEMA = {
  type: 'array',
  items: { type: 'string' },
  'x-rules': ['CETP-2.2-03'],
} as const satisfies SchemaNode;
export type ConsumerCapabilities = FromSchema<typeof CONSUMER_CAPABILITIES_SCHEMA>;

const limit = <R extends (typeof LIMIT_RULES)[keyof typeof LIMIT_RULES]>(minimum: number, rule: R) =>
  wholeNumber(minimum, [rule]);

export const LIMITS_SCHEMA = object(
  {
    max_request_bytes: limit(LIMIT_MINIMUMS.max_request_bytes, LIMIT_RULES.max_request_bytes),
    max_inline_result_bytes: limit(
      LIMIT_MINIMUMS.max_inline_result_bytes,
      LIMIT_RULES.max_inline_result_bytes,
    ),
    max_concurrent_requests: limit(
      LIMIT_MINIMUMS.max_concurrent_requests,
      LIMIT_RULES.max_concurrent_requests,
    ),
    idempotency_window_seconds: limit(
      LIMIT_MINIMUMS.idempotency_window_seconds,
      LIMIT_RULES.idempotency_window_seconds,
    ),
  },
  ['max_request_bytes', 'max_inline_result_bytes', 'max_concurrent_requests', 'idempotency_window_seconds'],
  ['CETP-2.2-04'],
);
export type Limits = FromSchema<typeof LIMITS_SCHEMA>;

export const NEGOTIATE_RESPONSE_SCHEMA = object(
  {
    selected_version: { type: 'integer', minimum: 1, 'x-rules': ['CETP-2.2-05'] },
    provider_id: PROVIDER_ID_SCHEMA,
    provider_name: { type: 'string' },
    // maxLength counts characters; the 256-byte bound is checked on UTF-8 bytes in negotiation.ts.
    session_token: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      'x-rules': ['CETP-2.2-07', 'CETP-2.2-08'],
    },
    expires_at: patterned(RFC3339_PATTERN, ['CETP-2.2-11']),
    capabilities: {
      type: 'array',
      items: { type: 'string', enum: CAPABILITIES },
      'x-rules': ['CETP-2.2-06'],
    },
    limits: LIMITS_SCHEMA,
  },
  ['selected_version', 'provider_id', 'session_token', 'capabilities', 'limits'],
  ['CETP-2.2-04'],
);
export type NegotiateResponse = FromSchema<typeof NEGOTIATE_RESPONSE_SCHEMA>;
