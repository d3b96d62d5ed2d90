/**
 * Wire shapes of `execute_tool` results (spec §4.2, §4.4, §4.5): the inline result, the file result
 * descriptor that travels beside a read-only `result_fd`, the result envelope that is one of the two
 * (also used by a succeeded operation, CETP-4.4-05), and the `accepted` data of an async start.
 */
import {
  constant,
  type FromSchema,
  nonEmptyString,
  object,
  patterned,
  type SchemaNode,
  wholeNumber,
} from './core.ts';

export const INLINE_RESULT_SCHEMA = object(
  {
    kind: constant('inline', ['CETP-4.2-02']),
    // Any JSON; conformance to the tool's output_schema is checked with tool-schema.ts.
    value: { 'x-rules': ['CETP-4.2-02'] },
  },
  ['kind', 'value'],
  ['CETP-4.2-02'],
);
export type InlineResult = FromSchema<typeof INLINE_RESULT_SCHEMA>;

/** An RFC 6838 media type (`type/subtype`, optional parameters). */
export const MEDIA_TYPE_PATTERN =
  '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\\s*;.*)?$';
/** CETP-4.5-03: lowercase hex SHA-256. */
export const SHA256_HEX_PATTERN = '^[0-9a-f]{64}$';

export const FILE_RESULT_SCHEMA = object(
  {
    kind: constant('file', ['CETP-4.5-02']),
    media_type: patterned(MEDIA_TYPE_PATTERN, ['CETP-4.5-02']),
    size_bytes: wholeNumber(0, ['CETP-4.5-02', 'CETP-4.5-05']),
    sha256: patterned(SHA256_HEX_PATTERN, ['CETP-4.5-03']),
  },
  ['kind', 'media_type', 'size_bytes', 'sha256'],
  ['CETP-4.5-02'],
);
export type FileResult = FromSchema<typeof FILE_RESULT_SCHEMA>;

export const EXECUTION_RESULT_SCHEMA = {
  type: 'object',
  discriminator: { propertyName: 'kind' },
  oneOf: [INLINE_RESULT_SCHEMA, FILE_RESULT_SCHEMA],
  'x-rules': ['CETP-4.2-02', 'CETP-4.5-02'],
} as const satisfies SchemaNode;
export type ExecutionResult = FromSchema<typeof EXECUTION_RESULT_SCHEMA>;

export const ACCEPTED_SCHEMA = object(
  { operation_id: nonEmptyString(['CETP-4.4-02']), poll_after_ms: wholeNumber(0, ['CETP-4.4-02']) },
  ['operation_id', 'poll_after_ms'],
  ['CETP-4.4-02'],
);
export type Accepted = FromSchema<typeof ACCEPTED_SCHEMA>;
