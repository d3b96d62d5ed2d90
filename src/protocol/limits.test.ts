import { describe, expect, it } from 'vitest';
import { checkLimits, LIMIT_MINIMUMS, LIMIT_NAMES } from './limits.ts';
import { validateWire } from './schemas/registry.ts';
import { expectIssue } from './testing/expect-issue.ts';

const minimal = { ...LIMIT_MINIMUMS };

describe('negotiated limits (CETP-2.2-17 … 2.2-20)', () => {
  it('accepts the minimums and the spec example, with unknown extra fields (CETP-3.2-10)', () => {
    expect(checkLimits(minimal)).toEqual([]);
    expect(checkLimits({ ...minimal, max_concurrent_requests: 4, future_limit: 1 })).toEqual([]);
  });

  it.each([
    ['max_request_bytes', 65535, 'CETP-2.2-17'],
    ['max_inline_result_bytes', 262143, 'CETP-2.2-18'],
    ['max_concurrent_requests', 0, 'CETP-2.2-19'],
    ['idempotency_window_seconds', 86399, 'CETP-2.2-20'],
  ] as const)('%s=%d is below its minimum (%s)', (name, value, ruleId) => {
    expectIssue(checkLimits({ ...minimal, [name]: value }), {
      code: 'limit_below_minimum',
      ruleId,
      path: `/limits/${name}`,
    });
  });

  it.each(LIMIT_NAMES)('a missing %s is an issue', (name) => {
    const { [name]: _, ...rest } = minimal;
    expectIssue(checkLimits(rest), { code: 'missing_required', path: `/limits/${name}` });
  });

  it.each([1.5, '65536', null, Number.MAX_SAFE_INTEGER + 2])(
    'a non-integer limit (%j) is wrong_type',
    (v) => {
      expectIssue(checkLimits({ ...minimal, max_request_bytes: v }), {
        code: 'wrong_type',
        ruleId: 'CETP-2.2-17',
      });
    },
  );

  it.each([null, [], 'limits', 3])('limits that are not an object (%j) are wrong_type', (v) => {
    expectIssue(checkLimits(v), { code: 'wrong_type', ruleId: 'CETP-2.2-04' });
  });

  it('agrees with the limits JSON Schema on every case', () => {
    const cases: unknown[] = [
      minimal,
      { ...minimal, max_request_bytes: 65535 },
      { ...minimal, max_concurrent_requests: 0 },
      { ...minimal, idempotency_window_seconds: 1.5 },
      { ...minimal, max_inline_result_bytes: Number.MAX_SAFE_INTEGER + 2 },
      { max_request_bytes: 65536 },
      { ...minimal, extra: true },
      null,
    ];
    for (const c of cases) {
      expect(checkLimits(c).length === 0, JSON.stringify(c)).toBe(validateWire('limits', c).ok);
    }
  });
});
