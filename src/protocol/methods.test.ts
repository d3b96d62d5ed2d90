import { describe, expect, it } from 'vitest';
import {
  CAPABILITIES,
  checkMethodAllowed,
  isCapability,
  isV1MethodName,
  isV2MethodName,
  V1_METHOD_NAMES,
  V2_METHOD_NAMES,
  V2_METHODS,
} from './methods.ts';
import { expectIssue } from './testing/expect-issue.ts';

describe('§4 methods', () => {
  it.each([
    ['negotiate', 'core', 'CETP-4-01'],
    ['get_provider_info', 'core', 'CETP-4-02'],
    ['list_tools', 'core', 'CETP-4-03'],
    ['execute_tool', 'core', 'CETP-4-04'],
    ['get_operation', 'async_operations', 'CETP-4-05'],
    ['cancel_operation', 'cancellation', 'CETP-4-06'],
  ] as const)('%s requires %s (%s)', (name, requires, ruleId) => {
    expect(V2_METHODS[name]).toMatchObject({ name, requires });
    expect(V2_METHODS[name].ruleIds).toContain(ruleId);
  });

  it('only negotiate goes without the §4.1 envelope', () => {
    expect(V2_METHOD_NAMES.filter((m) => !V2_METHODS[m].envelope)).toEqual(['negotiate']);
  });

  it('only execute_tool may answer accepted (CETP-4.4-01)', () => {
    expect(V2_METHOD_NAMES.filter((m) => V2_METHODS[m].acceptedShape !== undefined)).toEqual([
      'execute_tool',
    ]);
  });

  it('capabilities are the three optional ones of §2.3', () => {
    expect([...CAPABILITIES]).toEqual(['async_operations', 'cancellation', 'large_results']);
    expect(isCapability('cancellation')).toBe(true);
    expect(isCapability('streaming')).toBe(false);
  });

  it('v1 is assumed to have list_tools and execute_tool only', () => {
    expect([...V1_METHOD_NAMES]).toEqual(['list_tools', 'execute_tool']);
    expect(isV1MethodName('negotiate')).toBe(false);
    expect(isV2MethodName('negotiate')).toBe(true);
    expect(isV2MethodName('authorize_intent')).toBe(false);
  });
});

describe('checkMethodAllowed', () => {
  it.each(['delete_everything', 'NEGOTIATE', ''])('unknown method %j → METHOD_NOT_FOUND (CETP-4-07)', (m) => {
    const issues = checkMethodAllowed(m, [...CAPABILITIES]);
    expectIssue(issues, { code: 'unknown_method', ruleId: 'CETP-4-07' });
    expectIssue(issues, { code: 'unknown_method', ruleId: 'CETP-5-13' });
  });

  it.each([
    ['get_operation', 'async_operations', 'CETP-4-05'],
    ['cancel_operation', 'cancellation', 'CETP-4-06'],
  ] as const)('%s without %s → UNSUPPORTED_CAPABILITY (%s, CETP-2.3-04)', (m, cap, ruleId) => {
    const others = CAPABILITIES.filter((c) => c !== cap);
    const issues = checkMethodAllowed(m, others);
    expectIssue(issues, { code: 'capability_not_negotiated', ruleId });
    expectIssue(issues, { code: 'capability_not_negotiated', ruleId: 'CETP-2.3-04' });
    expectIssue(issues, { code: 'capability_not_negotiated', ruleId: 'CETP-5-06' });
    expect(checkMethodAllowed(m, [cap])).toEqual([]);
  });

  it.each(['negotiate', 'get_provider_info', 'list_tools', 'execute_tool'])(
    'core %s needs no capability',
    (m) => {
      expect(checkMethodAllowed(m, [])).toEqual([]);
    },
  );
});
