/**
 * A provider's first answer is its first answer even if the reply was lost on the way.
 *
 * Found by a fuzz campaign (`fuzz --seed 777001`, operations): an async transfer's `accepted` reply
 * was lost (a fault), the agent renegotiated without async_operations and retried, and the reference
 * provider replayed `accepted` — allowed: a replay of a running request answers `accepted` in
 * whatever session it comes (6-07 over 2.3-02, spec/interpretations.md). capability-gating judges only
 * first answers for that, but it saw only delivered replies, so the replay looked like a first
 * answer. The wire log now keeps what the provider answered when the reply was lost
 * (`ContentCallResult.undelivered`, `CallView.lostAnswer`), and the oracle judges answers, delivered
 * or not.
 */
import { describe, expect, it } from 'vitest';
import type { Scenario } from './scenario/model.ts';
import { REFERENCE } from './scenario/model.ts';
import { runScenario } from './scenario/runner.ts';
import { PROPERTIES } from './suites.ts';

const FOUND: Scenario = {
  seed: 0,
  tail: 'pct',
  actors: {
    a: [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'transfer',
        args: 0,
        rid: {
          kind: 'reuse',
          index: 0,
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 1,
      },
      {
        kind: 'negotiate',
        caps: [],
      },
    ],
    b: [
      {
        kind: 'wait',
        ms: 500,
      },
    ],
  },
  user: [],
  faults: [
    {
      at: 84,
      fault: {
        kind: 'kill',
        process: 'com.example.payments',
      },
    },
    {
      at: 89,
      fault: {
        kind: 'loseReply',
        callee: 'com.example.payments',
      },
    },
  ],
  decisions: [],
};

describe('lost replies and first answers', () => {
  it('CETP-2.3-02 CETP-6-07: a replayed accepted, after the first accepted was lost, is no violation', async () => {
    const operations = PROPERTIES.find((p) => p.id === 'operations');
    if (operations?.kind !== 'raw') throw new Error('the operations property drives the raw driver');
    const run = await runScenario(operations.fixture, FOUND, REFERENCE);
    const lost = run.observation.calls.filter((c) => c.lostAnswer !== null);
    // The provider's answer to the lost call is kept: `accepted`, under the transfer's request_id.
    expect(lost.map((c) => [c.method, c.reply.kind, c.lostAnswer?.status])).toEqual([
      ['execute_tool', 'exception', 'accepted'],
    ]);
    const replayed = run.observation.calls.filter(
      (c) =>
        c.requestKey === lost[0]?.requestKey && c.reply.kind === 'bundle' && c.reply.status === 'accepted',
    );
    expect(replayed.length).toBeGreaterThan(0);
    expect(run.violations).toEqual([]);
  });
});
