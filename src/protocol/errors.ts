/**
 * The 19 wire error codes of spec §5 with their `retryable` policy, the rule that defines each, and
 * a safe default user-facing message. Wire errors are data carried in response Bundles; they are
 * never thrown (see error-bundle.ts for reading and writing them).
 */
import type { RuleId } from './rule-ids.ts';

export const ERROR_CODES = [
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_CAPABILITY',
  'NEGOTIATION_REQUIRED',
  'AUTH_REQUIRED',
  'USER_ACTION_REQUIRED',
  'USER_CANCELLED',
  'PERMISSION_DENIED',
  'TOOL_NOT_FOUND',
  'METHOD_NOT_FOUND',
  'INVALID_ARGS',
  'INVALID_REQUEST',
  'CONFLICT',
  'RATE_LIMITED',
  'DEADLINE_EXCEEDED',
  'CANCELLED',
  'RESULT_TOO_LARGE',
  'RESULT_EXPIRED',
  'UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The §5 table's retryable column: 是 (yes), 否 (no), 条件性 (conditional). */
export type RetryPolicy = 'yes' | 'no' | 'conditional';

export interface ErrorCodeSpec {
  readonly code: ErrorCode;
  readonly retryPolicy: RetryPolicy;
  readonly ruleId: RuleId;
  /** The §5 table's meaning column, in English. */
  readonly meaning: string;
  /** A message that is safe to show a user (CETP-5-02) when the provider has nothing better. */
  readonly defaultMessage: string;
}

function spec(
  code: ErrorCode,
  retryPolicy: RetryPolicy,
  ruleId: RuleId,
  meaning: string,
  defaultMessage: string,
): ErrorCodeSpec {
  return Object.freeze({ code, retryPolicy, ruleId, meaning, defaultMessage });
}

export const ERROR_CODE_TABLE: Readonly<Record<ErrorCode, ErrorCodeSpec>> = Object.freeze({
  UNSUPPORTED_VERSION: spec(
    'UNSUPPORTED_VERSION',
    'no',
    'CETP-5-05',
    'no common protocol version',
    'This app does not support a compatible version of the tool protocol.',
  ),
  UNSUPPORTED_CAPABILITY: spec(
    'UNSUPPORTED_CAPABILITY',
    'no',
    'CETP-5-06',
    'the request used a capability that was not negotiated',
    'This feature is not available for this app.',
  ),
  NEGOTIATION_REQUIRED: spec(
    'NEGOTIATION_REQUIRED',
    'yes',
    'CETP-5-07',
    'the session is missing, expired or invalidated by a restart',
    'The connection to this app needs to be set up again.',
  ),
  AUTH_REQUIRED: spec(
    'AUTH_REQUIRED',
    'conditional',
    'CETP-5-08',
    'the user must sign in or grant a scope',
    'Sign-in or permission is needed in the app to continue.',
  ),
  USER_ACTION_REQUIRED: spec(
    'USER_ACTION_REQUIRED',
    'conditional',
    'CETP-5-09',
    'this call needs confirmation in the provider',
    'Please confirm this action in the app.',
  ),
  USER_CANCELLED: spec(
    'USER_CANCELLED',
    'no',
    'CETP-5-10',
    'the user declined or cancelled the confirmation',
    'The action was cancelled.',
  ),
  PERMISSION_DENIED: spec(
    'PERMISSION_DENIED',
    'no',
    'CETP-5-11',
    'the caller is not allowed access',
    'This app does not allow that request.',
  ),
  TOOL_NOT_FOUND: spec(
    'TOOL_NOT_FOUND',
    'no',
    'CETP-5-12',
    'the tool does not exist or is not visible to the caller',
    'That tool is not available.',
  ),
  METHOD_NOT_FOUND: spec(
    'METHOD_NOT_FOUND',
    'no',
    'CETP-5-13',
    'the method does not exist',
    'That request is not supported by this app.',
  ),
  INVALID_ARGS: spec(
    'INVALID_ARGS',
    'no',
    'CETP-5-14',
    'the args do not conform to the input schema',
    'The request details are not valid.',
  ),
  INVALID_REQUEST: spec(
    'INVALID_REQUEST',
    'no',
    'CETP-5-15',
    'misuse of the envelope, a token or a request id',
    'The request could not be processed.',
  ),
  CONFLICT: spec(
    'CONFLICT',
    'conditional',
    'CETP-5-16',
    'the current state does not allow the operation, or it cannot be cancelled',
    'The action cannot be done right now.',
  ),
  RATE_LIMITED: spec(
    'RATE_LIMITED',
    'yes',
    'CETP-5-17',
    'the provider rate limit was exceeded',
    'Too many requests. Please try again shortly.',
  ),
  DEADLINE_EXCEEDED: spec(
    'DEADLINE_EXCEEDED',
    'conditional',
    'CETP-5-18',
    'the deadline has passed; query the same request id first',
    'The request took too long.',
  ),
  CANCELLED: spec(
    'CANCELLED',
    'no',
    'CETP-5-20',
    'the operation was confirmed cancelled',
    'The operation was cancelled.',
  ),
  RESULT_TOO_LARGE: spec(
    'RESULT_TOO_LARGE',
    'no',
    'CETP-5-21',
    'the result cannot be inlined and large results were not negotiated',
    'The result is too large to return.',
  ),
  RESULT_EXPIRED: spec(
    'RESULT_EXPIRED',
    'no',
    'CETP-5-22',
    'the operation result is past its retention period',
    'The result is no longer available.',
  ),
  UNAVAILABLE: spec(
    'UNAVAILABLE',
    'yes',
    'CETP-5-23',
    'the provider is temporarily unavailable',
    'The app is temporarily unavailable. Please try again later.',
  ),
  INTERNAL_ERROR: spec(
    'INTERNAL_ERROR',
    'conditional',
    'CETP-5-24',
    'internal provider error (no stack traces or sensitive data)',
    'Something went wrong in the app.',
  ),
});

/** Codes whose error Bundle must also carry `resolution` and `resume_token` (CETP-4.3-02, 4.3-03). */
export const RESOLUTION_ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  'AUTH_REQUIRED',
  'USER_ACTION_REQUIRED',
]);

/**
 * The reference reading of the five "conditional" rows (NOTES 7, 5, 3), used when the provider gives
 * no hint:
 * - AUTH_REQUIRED, USER_ACTION_REQUIRED: false. Resuming with the resume_token after the resolution
 *   is not an automatic retry; `true` would invite a re-send without the user (CETP-5-26, 5-28).
 * - CONFLICT: false. The state that forbids the operation does not change by waiting.
 * - DEADLINE_EXCEEDED: true. The reference provider checks the deadline before reserving the
 *   request, so a same-id re-send with a fresh deadline is the "query" of CETP-5-19 and cannot
 *   duplicate an effect.
 * - INTERNAL_ERROR: false unless the provider knows the failure is transient.
 */
export const CONDITIONAL_RETRYABLE_DEFAULT: Readonly<Partial<Record<ErrorCode, boolean>>> = Object.freeze({
  AUTH_REQUIRED: false,
  USER_ACTION_REQUIRED: false,
  CONFLICT: false,
  DEADLINE_EXCEEDED: true,
  INTERNAL_ERROR: false,
});

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

export function isKnownErrorCode(code: string): code is ErrorCode {
  return KNOWN.has(code);
}

export function retryPolicyOf(code: ErrorCode): RetryPolicy {
  return ERROR_CODE_TABLE[code].retryPolicy;
}

/**
 * The `retryable` value to send for `code`. Fixed-policy codes ignore the hint; for conditional
 * codes the hint (does the retry condition hold?) wins, else the reference default above.
 */
export function retryableFor(code: ErrorCode, conditionHint?: boolean): boolean {
  const policy = retryPolicyOf(code);
  if (policy === 'yes') return true;
  if (policy === 'no') return false;
  return conditionHint ?? CONDITIONAL_RETRYABLE_DEFAULT[code] ?? false;
}
