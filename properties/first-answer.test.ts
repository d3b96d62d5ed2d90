/**
 * capability-gating judges a request's *first* answer for `accepted` (a replay of a running request
 * answers `accepted` in whatever session it comes: 6-07 over 2.3-02, spec/interpretations.md). Two
 * fuzz campaigns found two ways "first" was misjudged; both are fixed and replayed here.
 *
 * 1. A provider's first answer is its first answer even if the reply was lost on the way.
 *
 * Found by a fuzz campaign (`fuzz --seed 777001`, operations): an async transfer's `accepted` reply
 * was lost (a fault), the agent renegotiated without async_operations and retried, and the reference
 * provider replayed `accepted` — allowed: a replay of a running request answers `accepted` in
 * whatever session it comes (6-07 over 2.3-02, spec/interpretations.md). capability-gating judges only
 * first answers for that, but it saw only delivered replies, so the replay looked like a first
 * answer. The wire log now keeps what the provider answered when the reply was lost
 * (`ContentCallResult.undelivered`, `CallView.lostAnswer`), and the oracle judges answers, delivered
 * or not.
 *
 * 2. First by when it was answered, not by when it was sent (`fuzz --seed 4242`, operations): an
 * agent renegotiated without async_operations and sent an async request; a stale renegotiation with
 * every capability, still in flight from before, landed after it, so a racing duplicate went out in
 * that session and was answered `accepted` first; the original send, waiting behind it, was then
 * answered `accepted` as a replay. It was made first, so the oracle took it for the first answer.
 * Calls are now judged in the order their answers came (`byAnswer`).
 *
 * Both runs were re-found after the sim's process start took virtual time (100 ms, providers
 * published before Application.onCreate): the same commands, other seeds and fault steps. The first
 * fails when capability-gating ignores lost answers, the second when it judges calls in the order
 * they were made.
 */
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const FOUND_LOST: Scenario = {
  seed: 754877,
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
      at: 120,
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

const FOUND_RACED: Scenario = {
  seed: 256711,
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
    ],
    b: [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'reconcile_accounts',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 1,
      },
      {
        kind: 'negotiate',
        caps: ['cancellation', 'large_results'],
      },
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'reconcile_accounts',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'none',
        duplicates: 2,
      },
    ],
  },
  user: [],
  faults: [
    {
      at: 0,
      fault: {
        kind: 'kill',
        process: 'com.example.payments',
      },
    },
    {
      at: 117,
      fault: {
        kind: 'clockJump',
        ms: 90000000,
      },
    },
  ],
  decisions: [0, 0, 0],
};

describe('capability-gating and first answers', () => {
  it('CETP-2.3-02 CETP-6-07: a replayed accepted, after the first accepted was lost, is no violation', async () => {
    const operations = PROPERTIES.find((p) => p.id === 'operations');
    if (operations?.kind !== 'raw') throw new Error('the operations property drives the raw driver');
    const run = await runScenario(operations.fixture, FOUND_LOST, REFERENCE);
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

  it('CETP-2.3-02 CETP-6-07: an earlier send answered accepted after a racing duplicate was is a replay, no violation', async () => {
    const operations = PROPERTIES.find((p) => p.id === 'operations');
    if (operations?.kind !== 'raw') throw new Error('the operations property drives the raw driver');
    const run = await runScenario(operations.fixture, FOUND_RACED, REFERENCE);
    // Under one request_id: a send made earlier than another but answered `accepted` after it.
    const accepted = run.observation.calls.filter(
      (c) => c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted',
    );
    const raced = accepted.some((early) =>
      accepted.some(
        (late) =>
          late.requestKey === early.requestKey &&
          late.id > early.id &&
          (late.replyStep ?? 0) < (early.replyStep ?? 0),
      ),
    );
    expect(raced).toBe(true);
    expect(run.violations).toEqual([]);
  });
});
