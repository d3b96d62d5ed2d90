/**
 * The negotiated limits of spec §2.2 and their protocol minimums (CETP-2.2-17 … 2.2-20). These
 * constants are also the `minimum`s of the limits JSON Schema.
 */
import { issue, type ProtocolIssue } from './issues.ts';
import type { RuleId } from './rule-ids.ts';

export const LIMIT_NAMES = [
  'max_request_bytes',
  'max_inline_result_bytes',
  'max_concurrent_requests',
  'idempotency_window_seconds',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

export const LIMIT_MINIMUMS: Readonly<Record<LimitName, number>> = Object.freeze({
  max_request_bytes: 65536,
  max_inline_result_bytes: 262144,
  max_concurrent_requests: 1,
  idempotency_window_seconds: 86400,
});

export const LIMIT_RULES: Readonly<Record<LimitName, RuleId>> = Object.freeze({
  max_request_bytes: 'CETP-2.2-17',
  max_inline_result_bytes: 'CETP-2.2-18',
  max_concurrent_requests: 'CETP-2.2-19',
  idempotency_window_seconds: 'CETP-2.2-20',
});

/**
 * Checks a negotiate response's `limits` object: every limit present, a safe integer, and at least
 * its minimum. Unknown extra fields are ignored (CETP-3.2-10).
 */
export function checkLimits(value: unknown, path = '/limits'): ProtocolIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [issue('wrong_type', 'limits must be a JSON object', ['CETP-2.2-04'], path)];
  }
  const limits = value as Record<string, unknown>;
  const issues: ProtocolIssue[] = [];
  for (const name of LIMIT_NAMES) {
    const rule = LIMIT_RULES[name];
    const at = `${path}/${name}`;
    const v = limits[name];
    if (v === undefined) {
      issues.push(issue('missing_required', `limits.${name} is missing`, [rule], at));
    } else if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      issues.push(issue('wrong_type', `limits.${name} must be an integer`, [rule], at));
    } else if (v < LIMIT_MINIMUMS[name]) {
      issues.push(
        issue(
          'limit_below_minimum',
          `limits.${name}=${v} is below the minimum ${LIMIT_MINIMUMS[name]}`,
          [rule],
          at,
        ),
      );
    }
  }
  return issues;
}
