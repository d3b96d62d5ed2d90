/**
 * Wire shapes of `get_operation` and `cancel_operation` (spec §4.4) and of the §5 error object a
 * failed operation carries.
 *
 * Readings: the five states of CETP-4.4-04 are the only get_operation states; `cancellation_requested`
 * appears only in a cancel_operation response (NOTES 10b). The error object holds the §5 error fields
 * without the Bundle-only status/protocol_version/request_id (NOTES 19). error_details is a JSON
 * object (the §5 "JSON error_details", read as an object so that it can grow fields).
 */
import { ERROR_CODES } from '../errors.ts';
import {
  constant,
  type FromSchema,
  flag,
  nonEmptyString,
  object,
  oneOfStrings,
  type SchemaNode,
  wholeNumber,
} from './core.ts';
import { EXECUTION_RESULT_SCHEMA } from './results.ts';

export const OPERATION_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type OperationState = (typeof OPERATION_STATES)[number];
export const TERMINAL_OPERATION_STATES: readonly OperationState[] = ['succeeded', 'failed', 'cancelled'];

export const ERROR_DETAILS_SCHEMA = {
  type: 'object',
  'x-rules': ['CETP-5-04'],
} as const satisfies SchemaNode;
export type ErrorDetails = FromSchema<typeof ERROR_DETAILS_SCHEMA>;

export const OPERATION_ERROR_SCHEMA = object(
  {
    error_code: oneOfStrings(ERROR_CODES, ['CETP-5-01', 'CETP-4.4-06']),
    error_message: nonEmptyString(['CETP-5-02']),
    retryable: flag(['CETP-5-01']),
    error_details: ERROR_DETAILS_SCHEMA,
    retry_after_ms: wholeNumber(0, ['CETP-5-04']),
  },
  ['error_code', 'error_message', 'retryable'],
  ['CETP-4.4-06'],
);
export type OperationError = FromSchema<typeof OPERATION_ERROR_SCHEMA>;

export const OPERATION_PROGRESS_SCHEMA = object(
  {
    current: { type: 'number', minimum: 0 },
    total: { type: 'number', minimum: 0 },
    message: { type: 'string' },
  },
  ['current', 'total'],
  ['CETP-4.4-08'],
);
export type OperationProgress = FromSchema<typeof OPERATION_PROGRESS_SCHEMA>;

export const OPERATION_STATUS_SCHEMA = {
  type: 'object',
  properties: {
    operation_id: nonEmptyString(['CETP-4.4-07']),
    state: oneOfStrings(OPERATION_STATES, ['CETP-4.4-04']),
    progress: OPERATION_PROGRESS_SCHEMA,
    poll_after_ms: wholeNumber(0, ['CETP-4.4-07']),
    result: EXECUTION_RESULT_SCHEMA,
    error: OPERATION_ERROR_SCHEMA,
  },
  required: ['operation_id', 'state'],
  allOf: [
    {
      if: { properties: { state: { const: 'succeeded' } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
      then: { required: ['result'], 'x-rules': ['CETP-4.4-05'] },
    },
    {
      if: { properties: { state: { const: 'failed' } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
      then: { required: ['error'], 'x-rules': ['CETP-4.4-06'] },
    },
  ],
  'x-rules': ['CETP-4.4-07'],
} as const satisfies SchemaNode;
export type OperationStatus = FromSchema<typeof OPERATION_STATUS_SCHEMA>;

export const CANCEL_RESPONSE_SCHEMA = object(
  {
    operation_id: nonEmptyString(['CETP-4.4-10']),
    state: constant('cancellation_requested', ['CETP-4.4-10']),
  },
  ['operation_id', 'state'],
  ['CETP-4.4-10'],
);
export type CancelResponse = FromSchema<typeof CANCEL_RESPONSE_SCHEMA>;
