import { describe, expect, it } from 'vitest';
import { makeWireError, readErrorBundle, type WireError, writeErrorBundle } from './error-bundle.ts';
import {
  ERROR_CODE_TABLE,
  ERROR_CODES,
  type ErrorCode,
  RESOLUTION_ERROR_CODES,
  retryableFor,
} from './errors.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';
import { MapBundle } from './testing/map-bundle.ts';

const REQUEST_ID = '6f9619ff-8b86-4011-b42d-00c04fc964ff';

function errorFor(code: ErrorCode, extra: Partial<WireError> = {}): WireError {
  const e = makeWireError(code, { protocolVersion: 2, requestId: REQUEST_ID });
  if (RESOLUTION_ERROR_CODES.includes(code)) e.resumeToken = 'resume-1';
  return { ...e, ...extra };
}

/** A well-formed error Bundle; `resolution` stands for the PendingIntent the caller adds itself. */
function written(e: WireError): MapBundle {
  const b = new MapBundle();
  expect(writeErrorBundle(b, e)).toEqual([]);
  if (RESOLUTION_ERROR_CODES.includes(e.code)) b.putRaw('resolution', 'PendingIntent', { token: 1 });
  return b;
}

describe('writeErrorBundle (CETP-5-01 … 5-04)', () => {
  it('writes every field with its Bundle type', () => {
    const b = written(errorFor('RATE_LIMITED', { retryAfterMs: 2000, details: { limit: 10 } }));
    expect(b.keySet().sort()).toEqual(
      [
        'error_code',
        'error_details',
        'error_message',
        'protocol_version',
        'request_id',
        'retry_after_ms',
        'retryable',
        'status',
      ].sort(),
    );
    expect([b.typeOf('status'), b.getString('status')]).toEqual(['String', 'error']);
    expect(b.typeOf('error_code')).toBe('String');
    expect(b.typeOf('error_message')).toBe('String');
    expect([b.typeOf('retryable'), b.getBoolean('retryable')]).toEqual(['Boolean', true]);
    expect([b.typeOf('protocol_version'), b.getInt('protocol_version')]).toEqual(['Int', 2]);
    expect([b.typeOf('request_id'), b.getString('request_id')]).toEqual(['String', REQUEST_ID]);
    expect([b.typeOf('retry_after_ms'), b.getLong('retry_after_ms')]).toEqual(['Long', 2000]);
    expect(JSON.parse(b.getString('error_details') ?? '')).toEqual({ limit: 10 });
  });

  it.each(ERROR_CODES)('round-trips %s through read', (code) => {
    const e = errorFor(code);
    const read = okValue(readErrorBundle(written(e), { expectedRequestId: REQUEST_ID }));
    expect(read).toMatchObject({
      code,
      message: ERROR_CODE_TABLE[code].defaultMessage,
      retryable: e.retryable,
    });
    expect(read.hasResolution).toBe(RESOLUTION_ERROR_CODES.includes(code));
  });

  it.each(ERROR_CODES.filter((c) => ERROR_CODE_TABLE[c].retryPolicy !== 'conditional'))(
    'refuses %s with the wrong retryable value (its fixed policy)',
    (code) => {
      const b = new MapBundle();
      const issues = writeErrorBundle(b, errorFor(code, { retryable: !retryableFor(code) }));
      expectIssue(issues, {
        code: 'retryable_mismatch',
        ruleId: ERROR_CODE_TABLE[code].ruleId,
        path: 'retryable',
      });
      expect(b.keySet()).toEqual([]);
    },
  );

  it.each([
    'AUTH_REQUIRED',
    'USER_ACTION_REQUIRED',
    'CONFLICT',
    'DEADLINE_EXCEEDED',
    'INTERNAL_ERROR',
  ] as const)('accepts either retryable value for conditional %s', (code) => {
    for (const retryable of [true, false])
      expect(writeErrorBundle(new MapBundle(), errorFor(code, { retryable }))).toEqual([]);
  });

  it('refuses an INTERNAL_ERROR whose message leaks a stack trace (CETP-5-25)', () => {
    const b = new MapBundle();
    const message =
      'java.lang.IllegalStateException: db closed\n    at com.example.Repo.insert(Repo.java:12)';
    expectIssue(writeErrorBundle(b, errorFor('INTERNAL_ERROR', { message })), {
      code: 'unsafe_error_message',
      ruleId: 'CETP-5-25',
    });
    expect(b.keySet()).toEqual([]);
  });

  it.each([
    ['missing request_id echo', { requestId: null }, 'missing_key', 'CETP-5-03'],
    ['missing protocol_version echo', { protocolVersion: null }, 'missing_key', 'CETP-5-03'],
    ['negative retry_after_ms', { retryAfterMs: -1 }, 'out_of_range', 'CETP-5-04'],
    ['non-object error_details', { details: [1] as never }, 'wrong_type', 'CETP-5-04'],
    ['empty message', { message: '' }, 'empty_value', 'CETP-5-02'],
  ] as const)('refuses %s', (_name, patch, code, ruleId) => {
    expectIssue(writeErrorBundle(new MapBundle(), errorFor('UNAVAILABLE', patch)), { code, ruleId });
  });

  it('negotiate errors need no echo (NOTES 20)', () => {
    const e = errorFor('UNSUPPORTED_VERSION', { requestId: null, protocolVersion: null });
    const b = new MapBundle();
    expect(writeErrorBundle(b, e, { method: 'negotiate' })).toEqual([]);
    expect(b.containsKey('request_id')).toBe(false);
    expect(okValue(readErrorBundle(b, { method: 'negotiate' })).code).toBe('UNSUPPORTED_VERSION');
    expectIssue(issuesOf(readErrorBundle(b)), {
      code: 'missing_key',
      ruleId: 'CETP-5-03',
      path: 'request_id',
    });
  });

  it.each(RESOLUTION_ERROR_CODES)('%s needs a resume_token (CETP-4.3-03)', (code) => {
    const { resumeToken: _, ...e } = errorFor(code);
    expectIssue(writeErrorBundle(new MapBundle(), e), { code: 'missing_key', ruleId: 'CETP-4.3-03' });
  });
});

describe('readErrorBundle checks well-formedness', () => {
  const base = () => written(errorFor('UNAVAILABLE'));
  /** The issues readErrorBundle finds in a well-formed UNAVAILABLE error after `change`. */
  const issuesAfter = (change: (b: ReturnType<typeof base>) => void) => {
    const b = base();
    change(b);
    return issuesOf(readErrorBundle(b));
  };

  it.each([
    ['status', 'missing_key', 'CETP-5-01'],
    ['error_code', 'missing_key', 'CETP-5-01'],
    ['error_message', 'missing_key', 'CETP-5-02'],
    ['retryable', 'missing_key', 'CETP-5-01'],
    ['protocol_version', 'missing_key', 'CETP-5-03'],
    ['request_id', 'missing_key', 'CETP-5-03'],
  ])('a missing %s is %s (%s)', (key, code, ruleId) => {
    expectIssue(
      issuesAfter((b) => b.remove(key)),
      { code, ruleId, path: key },
    );
  });

  it.each([
    ['retryable', 'String', 'true', 'CETP-5-01'],
    ['protocol_version', 'Long', 2, 'CETP-5-03'],
    ['retry_after_ms', 'Int', 100, 'CETP-5-04'],
    ['error_code', 'Int', 1, 'CETP-5-01'],
  ] as const)('%s stored as %s is a wrong Bundle type', (key, type, value, ruleId) => {
    expectIssue(
      issuesAfter((b) => b.putRaw(key, type, value)),
      { code: 'wrong_bundle_type', ruleId, path: key },
    );
  });

  it('an unknown error code is an issue (CETP-9-09: treat as not retryable)', () => {
    expectIssue(
      issuesAfter((b) => b.putString('error_code', 'TEAPOT')),
      { code: 'unknown_error_code', ruleId: 'CETP-5-01' },
    );
  });

  it('a fixed-policy code with the wrong retryable is an issue', () => {
    expectIssue(
      issuesAfter((b) => b.putBoolean('retryable', false)),
      { code: 'retryable_mismatch', ruleId: 'CETP-5-23' },
    );
  });

  it('a status other than "error" is an issue', () => {
    expectIssue(
      issuesAfter((b) => b.putString('status', 'success')),
      { code: 'unknown_status', path: 'status' },
    );
  });

  it('echoes must match the request (CETP-5-03)', () => {
    const b = base();
    expectIssue(issuesOf(readErrorBundle(b, { expectedRequestId: '00000000-0000-0000-0000-000000000000' })), {
      code: 'echo_mismatch',
      path: 'request_id',
    });
    b.putInt('protocol_version', 1);
    expectIssue(issuesOf(readErrorBundle(b)), { code: 'echo_mismatch', path: 'protocol_version' });
  });

  it('error_details must be a JSON object', () => {
    const b = base();
    b.putString('error_details', '{oops');
    expectIssue(issuesOf(readErrorBundle(b)), { code: 'invalid_json', path: 'error_details' });
    b.putString('error_details', '"text"');
    expectIssue(issuesOf(readErrorBundle(b)), { code: 'wrong_type', ruleId: 'CETP-5-04' });
  });

  it.each(RESOLUTION_ERROR_CODES)(
    '%s without resolution or resume_token is an issue (CETP-4.3-02, 4.3-03)',
    (code) => {
      const b = written(errorFor(code));
      b.remove('resolution');
      b.remove('resume_token');
      const issues = issuesOf(readErrorBundle(b));
      expectIssue(issues, { code: 'missing_key', ruleId: 'CETP-4.3-02', path: 'resolution' });
      expectIssue(issues, { code: 'missing_key', ruleId: 'CETP-4.3-03', path: 'resume_token' });
    },
  );

  it('reads optional fields', () => {
    const b = written(errorFor('RATE_LIMITED', { retryAfterMs: 1500, details: { scope: 'uid' } }));
    expect(okValue(readErrorBundle(b))).toMatchObject({ retryAfterMs: 1500, details: { scope: 'uid' } });
  });
});
