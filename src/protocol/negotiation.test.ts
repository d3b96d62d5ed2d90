import { describe, expect, it } from 'vitest';
import { checkNegotiateResponse, selectCapabilities, selectVersion } from './negotiation.ts';
import { validateWire } from './schemas/registry.ts';
import { SPEC_EXAMPLES } from './schemas/spec-examples.ts';
import { expectIssue, okValue } from './testing/expect-issue.ts';

const example = okValue(
  validateWire('negotiate_response', JSON.parse(SPEC_EXAMPLES.negotiate_response.json)),
);
const request = {
  consumerVersions: [2, 1],
  consumerCapabilities: ['async_operations', 'cancellation', 'large_results'],
};

describe('selectVersion (CETP-2.2-05, 2.2-15)', () => {
  it.each([
    [[2, 1], [1, 2], 2],
    [[2, 1], [1], 1],
    [[3, 2, 1], [2, 3], 3],
    [[2], [1], null],
    [[], [1, 2], null],
  ])('consumer %j, provider %j → %s', (consumer, provider, selected) => {
    expect(selectVersion(consumer, provider)).toBe(selected);
  });
});

describe('selectCapabilities (CETP-2.2-06)', () => {
  it.each([
    [
      ['cancellation', 'async_operations'],
      ['async_operations', 'large_results', 'cancellation'],
      ['async_operations', 'cancellation'],
    ],
    [['future_x', 'large_results'], ['future_x', 'large_results'], ['large_results']],
    [[], ['cancellation'], []],
  ])('%j ∩ %j = %j', (consumer, provider, expected) => {
    expect(selectCapabilities(consumer, provider)).toEqual(expected);
  });
});

describe('checkNegotiateResponse', () => {
  it('accepts the spec example as an answer to a full offer', () => {
    expect(checkNegotiateResponse(example, request, [1, 2])).toEqual([]);
  });

  it('a version the consumer did not offer is an issue (CETP-2.2-05, 2.2-16)', () => {
    expectIssue(checkNegotiateResponse(example, { ...request, consumerVersions: [1] }), {
      code: 'version_not_selectable',
      ruleId: 'CETP-2.2-16',
    });
  });

  it('not the highest common version is an issue (CETP-2.2-05)', () => {
    expectIssue(checkNegotiateResponse({ ...example, selected_version: 1 }, request, [1, 2]), {
      code: 'version_not_selectable',
      ruleId: 'CETP-2.2-05',
    });
  });

  it('a capability the consumer did not offer is an issue (CETP-2.2-06)', () => {
    expectIssue(checkNegotiateResponse(example, { ...request, consumerCapabilities: ['cancellation'] }), {
      code: 'capability_not_offered',
      ruleId: 'CETP-2.2-06',
      path: '/capabilities/0',
    });
  });

  it('a duplicated capability is an issue', () => {
    const dup = { ...example, capabilities: ['cancellation' as const, 'cancellation' as const] };
    expectIssue(checkNegotiateResponse(dup, request), { code: 'duplicate_name', path: '/capabilities/1' });
  });

  it('a session_token over 256 UTF-8 bytes is an issue even within 256 characters (CETP-2.2-08)', () => {
    const token = '令'.repeat(100); // 100 chars, 300 bytes
    expectIssue(checkNegotiateResponse({ ...example, session_token: token }, request), {
      code: 'session_token_too_long',
      ruleId: 'CETP-2.2-08',
    });
    expect(checkNegotiateResponse({ ...example, session_token: 'a'.repeat(256) }, request)).toEqual([]);
  });
});
