import { describe, expect, it } from 'vitest';
import { checkErrorMessage } from './error-message.ts';
import {
  CONDITIONAL_RETRYABLE_DEFAULT,
  ERROR_CODE_TABLE,
  ERROR_CODES,
  type ErrorCode,
  isKnownErrorCode,
  type RetryPolicy,
  retryableFor,
  retryPolicyOf,
} from './errors.ts';
import { getRule } from './rules.ts';
import { itClassifies } from './testing/classifies.ts';

/** The §5 table, transcribed independently of errors.ts. */
const SPEC_TABLE: [ErrorCode, RetryPolicy, string][] = [
  ['UNSUPPORTED_VERSION', 'no', 'CETP-5-05'],
  ['UNSUPPORTED_CAPABILITY', 'no', 'CETP-5-06'],
  ['NEGOTIATION_REQUIRED', 'yes', 'CETP-5-07'],
  ['AUTH_REQUIRED', 'conditional', 'CETP-5-08'],
  ['USER_ACTION_REQUIRED', 'conditional', 'CETP-5-09'],
  ['USER_CANCELLED', 'no', 'CETP-5-10'],
  ['PERMISSION_DENIED', 'no', 'CETP-5-11'],
  ['TOOL_NOT_FOUND', 'no', 'CETP-5-12'],
  ['METHOD_NOT_FOUND', 'no', 'CETP-5-13'],
  ['INVALID_ARGS', 'no', 'CETP-5-14'],
  ['INVALID_REQUEST', 'no', 'CETP-5-15'],
  ['CONFLICT', 'conditional', 'CETP-5-16'],
  ['RATE_LIMITED', 'yes', 'CETP-5-17'],
  ['DEADLINE_EXCEEDED', 'conditional', 'CETP-5-18'],
  ['CANCELLED', 'no', 'CETP-5-20'],
  ['RESULT_TOO_LARGE', 'no', 'CETP-5-21'],
  ['RESULT_EXPIRED', 'no', 'CETP-5-22'],
  ['UNAVAILABLE', 'yes', 'CETP-5-23'],
  ['INTERNAL_ERROR', 'conditional', 'CETP-5-24'],
];

describe('§5 error codes', () => {
  it('are exactly the 19 codes of the spec table, in order', () => {
    expect([...ERROR_CODES]).toEqual(SPEC_TABLE.map(([code]) => code));
  });

  it.each(SPEC_TABLE)('%s: retryable=%s, defined by %s', (code, policy, ruleId) => {
    const spec = ERROR_CODE_TABLE[code];
    expect(spec.retryPolicy).toBe(policy);
    expect(retryPolicyOf(code)).toBe(policy);
    expect(spec.ruleId).toBe(ruleId);
    // The rule text names the code it defines.
    expect(getRule(spec.ruleId).textEn).toContain(code);
  });

  it.each(ERROR_CODES)('the default message of %s is safe to show (CETP-5-02)', (code) => {
    expect(checkErrorMessage(ERROR_CODE_TABLE[code].defaultMessage, code)).toEqual([]);
  });

  itClassifies('isKnownErrorCode', isKnownErrorCode, {
    accepts: ['UNAVAILABLE'],
    rejects: ['unavailable', 'NOT_A_CODE', ''],
  });
});

describe('retryableFor (CETP-5-05 … 5-24)', () => {
  it.each(SPEC_TABLE.filter(([, p]) => p !== 'conditional'))(
    '%s ignores the hint: retryable=%s',
    (code, policy) => {
      expect(retryableFor(code)).toBe(policy === 'yes');
      expect(retryableFor(code, true)).toBe(policy === 'yes');
      expect(retryableFor(code, false)).toBe(policy === 'yes');
    },
  );

  it.each(SPEC_TABLE.filter(([, p]) => p === 'conditional'))(
    '%s follows the hint, else the default',
    (code) => {
      expect(retryableFor(code, true)).toBe(true);
      expect(retryableFor(code, false)).toBe(false);
      expect(retryableFor(code)).toBe(CONDITIONAL_RETRYABLE_DEFAULT[code]);
    },
  );

  it('a resolution is not an automatic retry: AUTH_REQUIRED and USER_ACTION_REQUIRED default to false (NOTES 7)', () => {
    expect(retryableFor('AUTH_REQUIRED')).toBe(false);
    expect(retryableFor('USER_ACTION_REQUIRED')).toBe(false);
    expect(retryableFor('DEADLINE_EXCEEDED')).toBe(true);
  });
});
