/**
 * Error responses (spec §5, §4.3): building, writing and reading an error Bundle with the right
 * Bundle types — status="error", error_code, error_message, retryable, the echoed protocol_version
 * and request_id, optional error_details and retry_after_ms (CETP-5-01 … 5-04), plus resume_token
 * for AUTH_REQUIRED / USER_ACTION_REQUIRED (CETP-4.3-03; the `resolution` PendingIntent is a system
 * object the caller puts itself).
 */
import { readKey } from './bundle-read.ts';
import type { BundleReader, BundleWriter } from './bundle-types.ts';
import { checkErrorMessage } from './error-message.ts';
import {
  ERROR_CODE_TABLE,
  type ErrorCode,
  isKnownErrorCode,
  RESOLUTION_ERROR_CODES,
  retryableFor,
  retryPolicyOf,
} from './errors.ts';
import { issue, type ProtocolIssue, resultOf, type WireResult } from './issues.ts';
import { RESPONSE_KEYS, requirementOf } from './keys.ts';
import type { V2MethodName } from './methods.ts';
import type { ErrorDetails } from './schemas/operation.ts';
import { parseWire, validateWire } from './schemas/registry.ts';

export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  /** Echo of the request's protocol_version; null only for negotiate, which has none (NOTES 20). */
  protocolVersion: number | null;
  /** Echo of the request's request_id; null only for negotiate, which has none (NOTES 20). */
  requestId: string | null;
  details?: ErrorDetails;
  retryAfterMs?: number;
  /** Required for AUTH_REQUIRED and USER_ACTION_REQUIRED (CETP-4.3-03). */
  resumeToken?: string;
}

/** An error read from a Bundle: a WireError plus whether a resolution PendingIntent came with it. */
export interface ReceivedError extends WireError {
  hasResolution: boolean;
}

export interface ErrorContext {
  /** The method the error answers; negotiate errors have nothing to echo (NOTES 20). */
  readonly method?: V2MethodName;
}

export type WireErrorInit = Omit<WireError, 'code' | 'message' | 'retryable'> & {
  message?: string;
  /** For conditional codes: does the retry condition hold? (see errors.ts for the defaults). */
  conditionHint?: boolean;
};

/** A WireError for `code` with its policy's retryable value and, unless given, the default message. */
export function makeWireError(code: ErrorCode, init: WireErrorInit): WireError {
  const { conditionHint, message, ...rest } = init;
  // Object.assign onto the fresh rest object, not `{ ...rest, code, … }`: on Node 20 a spread
  // followed by more properties takes V8's slow path (~1 µs), and every error answer is built here.
  return Object.assign(rest, {
    code,
    message: message ?? ERROR_CODE_TABLE[code].defaultMessage,
    retryable: retryableFor(code, conditionHint),
  });
}

/**
 * The checks an error's fields must pass wherever it travels (a Bundle, or the error object of a
 * failed operation): a known code, the fixed retryable value where the §5 table fixes one, a safe
 * message, a non-negative retry_after_ms.
 */
export function checkErrorFields(
  e: { code: string; message: string; retryable: boolean; retryAfterMs?: number },
  pathPrefix = '',
): ProtocolIssue[] {
  const issues: ProtocolIssue[] = [];
  if (!isKnownErrorCode(e.code)) {
    issues.push(
      issue(
        'unknown_error_code',
        `unknown error_code ${JSON.stringify(e.code)}`,
        ['CETP-5-01', 'CETP-9-09'],
        `${pathPrefix}error_code`,
      ),
    );
  } else if (retryPolicyOf(e.code) !== 'conditional' && e.retryable !== retryableFor(e.code)) {
    issues.push(
      issue(
        'retryable_mismatch',
        `${e.code} must have retryable=${retryableFor(e.code)}`,
        [ERROR_CODE_TABLE[e.code].ruleId],
        `${pathPrefix}retryable`,
      ),
    );
  }
  issues.push(...checkErrorMessage(e.message, e.code, `${pathPrefix}error_message`));
  if (e.retryAfterMs !== undefined && !(Number.isSafeInteger(e.retryAfterMs) && e.retryAfterMs >= 0)) {
    issues.push(
      issue(
        'out_of_range',
        'retry_after_ms must be a non-negative integer',
        ['CETP-5-04'],
        `${pathPrefix}retry_after_ms`,
      ),
    );
  }
  return issues;
}

function checkEcho(
  e: Pick<WireError, 'protocolVersion' | 'requestId'>,
  context: ErrorContext,
): ProtocolIssue[] {
  if (context.method === 'negotiate') return [];
  const issues: ProtocolIssue[] = [];
  if (e.protocolVersion === null) {
    issues.push(
      issue('missing_key', 'an error must echo protocol_version', ['CETP-5-03'], 'protocol_version'),
    );
  }
  if (e.requestId === null) {
    issues.push(issue('missing_key', 'an error must echo request_id', ['CETP-5-03'], 'request_id'));
  }
  return issues;
}

/**
 * Writes `e` as an error Bundle. Refuses — writes nothing and returns the issues — when the error
 * breaks a §5 rule (wrong retryable for a fixed-policy code, unsafe message, missing echo, …).
 */
export function writeErrorBundle(
  bundle: BundleWriter,
  e: WireError,
  context: ErrorContext = {},
): ProtocolIssue[] {
  const issues = [...checkErrorFields(e), ...checkEcho(e, context)];
  let details: string | undefined;
  if (e.details !== undefined) {
    const checked = validateWire('error_details', e.details);
    if (!checked.ok)
      issues.push(...checked.issues.map((i) => ({ ...i, path: `error_details${i.path ?? ''}` })));
    try {
      details = JSON.stringify(e.details);
    } catch (err) {
      issues.push(
        issue(
          'not_serializable',
          `error_details is not JSON: ${String(err)}`,
          ['CETP-5-04'],
          'error_details',
        ),
      );
    }
  }
  if (RESOLUTION_ERROR_CODES.includes(e.code) && (e.resumeToken === undefined || e.resumeToken === '')) {
    issues.push(issue('missing_key', `${e.code} must carry a resume_token`, ['CETP-4.3-03'], 'resume_token'));
  }
  if (issues.length > 0) return issues;
  bundle.putString('status', 'error');
  bundle.putString('error_code', e.code);
  bundle.putString('error_message', e.message);
  bundle.putBoolean('retryable', e.retryable);
  if (e.protocolVersion !== null) bundle.putInt('protocol_version', e.protocolVersion);
  if (e.requestId !== null) bundle.putString('request_id', e.requestId);
  if (details !== undefined) bundle.putString('error_details', details);
  if (e.retryAfterMs !== undefined) bundle.putLong('retry_after_ms', e.retryAfterMs);
  if (e.resumeToken !== undefined) bundle.putString('resume_token', e.resumeToken);
  return [];
}

export interface ReadErrorOptions extends ErrorContext {
  /** When given, the echoed request_id must equal it (CETP-5-03). */
  readonly expectedRequestId?: string;
}

/** Reads an error Bundle and checks that it is well-formed; never throws. */
export function readErrorBundle(
  bundle: BundleReader,
  options: ReadErrorOptions = {},
): WireResult<ReceivedError> {
  const issues: ProtocolIssue[] = [];
  const reqs = options.method === 'negotiate' ? RESPONSE_KEYS.negotiateError : RESPONSE_KEYS.error;
  const status = readKey(bundle, requirementOf(reqs, 'status'), issues);
  if (status !== undefined && status !== 'error') {
    issues.push(
      issue(
        'unknown_status',
        `status is ${JSON.stringify(status)}, expected "error"`,
        ['CETP-5-01'],
        'status',
      ),
    );
  }
  const code = readKey(bundle, requirementOf(reqs, 'error_code'), issues);
  const message = readKey(bundle, requirementOf(reqs, 'error_message'), issues);
  const retryable = readKey(bundle, requirementOf(reqs, 'retryable'), issues);
  const protocolVersion = readKey(bundle, requirementOf(reqs, 'protocol_version'), issues) ?? null;
  const requestId = readKey(bundle, requirementOf(reqs, 'request_id'), issues) ?? null;
  const retryAfterMs = readKey(bundle, requirementOf(reqs, 'retry_after_ms'), issues);
  const detailsJson = readKey(bundle, requirementOf(reqs, 'error_details'), issues);
  const received: ReceivedError = {
    code: (code ?? '') as ErrorCode,
    message: message ?? '',
    retryable: retryable ?? false,
    protocolVersion,
    requestId,
    hasResolution: bundle.typeOf('resolution') === 'PendingIntent',
  };
  if (retryAfterMs !== undefined) received.retryAfterMs = retryAfterMs;
  if (code !== undefined && message !== undefined && retryable !== undefined) {
    issues.push(...checkErrorFields(received));
  }
  if (detailsJson !== undefined) {
    const details = parseWire('error_details', detailsJson, 'error_details');
    if (details.ok) received.details = details.value;
    else issues.push(...details.issues);
  }
  if (options.method !== 'negotiate' && protocolVersion !== null && protocolVersion !== 2) {
    issues.push(
      issue(
        'echo_mismatch',
        `protocol_version echo is ${protocolVersion}, expected 2`,
        ['CETP-5-03'],
        'protocol_version',
      ),
    );
  }
  if (
    options.expectedRequestId !== undefined &&
    requestId !== null &&
    requestId !== options.expectedRequestId
  ) {
    issues.push(
      issue('echo_mismatch', 'request_id echo differs from the request', ['CETP-5-03'], 'request_id'),
    );
  }
  if (code !== undefined && RESOLUTION_ERROR_CODES.includes(code as ErrorCode)) {
    readKey(bundle, requirementOf(RESPONSE_KEYS.resolution, 'resolution'), issues);
    const token = readKey(bundle, requirementOf(RESPONSE_KEYS.resolution, 'resume_token'), issues);
    if (token !== undefined) received.resumeToken = token;
  }
  return resultOf(received, issues);
}
