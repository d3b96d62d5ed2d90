import { describe, expect, it } from 'vitest';
import { issue, pointerToken, resultOf, withoutDisabledRules } from './issues.ts';

describe('issues', () => {
  it('issue() copies the rule ids and omits an absent path (exactOptionalPropertyTypes)', () => {
    const ids = ['CETP-4.1-03'] as const;
    const built = issue('invalid_uuid', 'bad', ids);
    expect(built).toEqual({ code: 'invalid_uuid', message: 'bad', ruleIds: ['CETP-4.1-03'] });
    expect('path' in built).toBe(false);
    expect(issue('invalid_uuid', 'bad', ids, 'request_id').path).toBe('request_id');
  });

  it('resultOf is ok only without issues', () => {
    expect(resultOf(1, [])).toEqual({ ok: true, value: 1 });
    expect(resultOf(1, [issue('empty_value', 'x', [])]).ok).toBe(false);
  });

  it.each([
    ['a/b', 'a~1b'],
    ['m~n', 'm~0n'],
    [3, '3'],
  ])('pointerToken(%j) = %s (RFC 6901)', (token, escaped) => {
    expect(pointerToken(token)).toBe(escaped);
  });

  describe('rule ablation', () => {
    const confirm = issue('inconsistent_confirmation', 'x', ['CETP-3.4-09', 'CETP-10-02']);
    const asyncIssue = issue('async_not_negotiated', 'x', ['CETP-3.4-10']);
    const unruled = issue('unknown_shape', 'x', []);

    it.each([
      [[], [confirm, asyncIssue, unruled]],
      [['CETP-3.4-10'], [confirm, unruled]],
      [['CETP-3.4-09'], [confirm, asyncIssue, unruled]], // CETP-10-02 still guards it
      [['CETP-3.4-09', 'CETP-10-02', 'CETP-3.4-10'], [unruled]],
    ])('disabling %j keeps %#', (disabled, kept) => {
      expect(withoutDisabledRules([confirm, asyncIssue, unruled], new Set(disabled))).toEqual(kept);
    });
  });
});
