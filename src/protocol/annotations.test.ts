import { describe, expect, it } from 'vitest';
import {
  alwaysConfirmationTriggers,
  CONFIRMATIONS,
  checkAnnotationConsistency,
  EFFECTS,
  EXECUTIONS,
  RISKS,
  SCOPE_ACCESS,
  SENSITIVITIES,
  type ToolAnnotations,
} from './annotations.ts';
import { checkAnnotations } from './descriptor-checks.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';

const SAFE: ToolAnnotations = {
  effect: 'create',
  risk: 'moderate',
  destructive: false,
  idempotent: false,
  open_world: false,
  confirmation: 'provider_policy',
  execution: 'sync',
};
const ASYNC = { negotiatedCapabilities: ['async_operations'] };
const SYNC_ONLY = { negotiatedCapabilities: [] };

describe('§3.4 / §3.2 enums', () => {
  it('match the spec tables', () => {
    expect([...EFFECTS]).toEqual(['read', 'create', 'update', 'delete', 'transaction']);
    expect([...RISKS]).toEqual(['low', 'moderate', 'high']);
    expect([...CONFIRMATIONS]).toEqual(['never', 'provider_policy', 'always']);
    expect([...EXECUTIONS]).toEqual(['sync', 'sync_or_async']);
    expect([...SCOPE_ACCESS]).toEqual(['read', 'write']);
    expect([...SENSITIVITIES]).toEqual(['public', 'personal', 'financial', 'health', 'device', 'other']);
  });
});

describe('CETP-3.4-09 / 10-02: delete, transaction, destructive or high risk ⇒ confirmation=always', () => {
  const cases: [string, Partial<ToolAnnotations>, string[]][] = [
    ['effect=delete', { effect: 'delete' }, ['effect=delete']],
    ['effect=transaction', { effect: 'transaction' }, ['effect=transaction']],
    ['destructive=true', { destructive: true }, ['destructive=true']],
    ['risk=high', { risk: 'high' }, ['risk=high']],
    [
      'all of them',
      { effect: 'delete', destructive: true, risk: 'high' },
      ['effect=delete', 'destructive=true', 'risk=high'],
    ],
  ];

  it.each(cases)('%s with confirmation=provider_policy or never is an issue', (_name, patch, triggers) => {
    for (const confirmation of ['never', 'provider_policy'] as const) {
      const a = { ...SAFE, ...patch, confirmation };
      expect(alwaysConfirmationTriggers(a)).toEqual(triggers);
      const issues = checkAnnotationConsistency(a, SYNC_ONLY);
      expectIssue(issues, {
        code: 'inconsistent_confirmation',
        ruleId: 'CETP-3.4-09',
        path: '/confirmation',
      });
      expectIssue(issues, { code: 'inconsistent_confirmation', ruleId: 'CETP-10-02' });
    }
  });

  it.each(cases)('%s with confirmation=always is consistent', (_name, patch) => {
    expect(checkAnnotationConsistency({ ...SAFE, ...patch, confirmation: 'always' }, SYNC_ONLY)).toEqual([]);
  });

  it.each(['read', 'create', 'update'] as const)(
    'effect=%s at low/moderate risk may use any confirmation',
    (effect) => {
      for (const confirmation of CONFIRMATIONS) {
        for (const risk of ['low', 'moderate'] as const) {
          expect(checkAnnotationConsistency({ ...SAFE, effect, risk, confirmation }, SYNC_ONLY)).toEqual([]);
        }
      }
    },
  );
});

describe('CETP-3.4-10: sync_or_async only when async_operations was negotiated', () => {
  it('is an issue without async_operations', () => {
    expectIssue(checkAnnotationConsistency({ ...SAFE, execution: 'sync_or_async' }, SYNC_ONLY), {
      code: 'async_not_negotiated',
      ruleId: 'CETP-3.4-10',
      path: '/execution',
    });
  });

  it('is fine with async_operations, and sync is always fine', () => {
    expect(checkAnnotationConsistency({ ...SAFE, execution: 'sync_or_async' }, ASYNC)).toEqual([]);
    expect(checkAnnotationConsistency(SAFE, SYNC_ONLY)).toEqual([]);
  });
});

describe('checkAnnotations on untrusted JSON', () => {
  it('accepts well-formed annotations, ignoring unknown fields (CETP-3.2-10)', () => {
    expect(okValue(checkAnnotations({ ...SAFE, future_hint: 'x' }, SYNC_ONLY))).toMatchObject(SAFE);
  });

  it.each([
    ['effect', 'archive', 'CETP-3.4-01'],
    ['risk', 'extreme', 'CETP-3.4-02'],
    ['confirmation', 'sometimes', 'CETP-3.4-06'],
    ['execution', 'async', 'CETP-3.4-07'],
  ])('an unknown %s value (%j) is not ignored (CETP-3.2-12, %s)', (field, value, ruleId) => {
    const issues = issuesOf(checkAnnotations({ ...SAFE, [field]: value }, ASYNC));
    expectIssue(issues, { code: 'unknown_enum_value', ruleId: 'CETP-3.2-12', path: `/${field}` });
    expectIssue(issues, { code: 'unknown_enum_value', ruleId, path: `/${field}` });
  });

  it.each(Object.keys(SAFE))(
    'all seven fields are required on the wire: missing %s (CETP-3.2-11, NOTES 15)',
    (field) => {
      const { [field as keyof ToolAnnotations]: _, ...rest } = SAFE;
      expectIssue(issuesOf(checkAnnotations(rest, ASYNC)), {
        code: 'missing_required',
        ruleId: 'CETP-3.2-11',
        path: `/${field}`,
      });
    },
  );

  it.each(['destructive', 'idempotent', 'open_world'])('%s must be a Boolean', (field) => {
    expectIssue(issuesOf(checkAnnotations({ ...SAFE, [field]: 'false' }, ASYNC)), {
      code: 'wrong_type',
      path: `/${field}`,
    });
  });

  it('then applies the consistency rules, with the caller path', () => {
    const issues = issuesOf(checkAnnotations({ ...SAFE, risk: 'high' }, ASYNC, '/tools/0/annotations'));
    expectIssue(issues, { code: 'inconsistent_confirmation', path: '/tools/0/annotations/confirmation' });
  });
});
