/**
 * The settle phase (src/fuzz/scenario/runner.ts) on a run the fuzzer found (operations, seed 6):
 * the main send of an async execute lost its reply, and the duplicate racing it was answered
 * `accepted` only after the actors' own commands had ended. Settling used to look at the actors'
 * operations before that answer arrived, so the operation was never polled and operations-terminate
 * reported a liveness failure of the reference provider. Settling now waits for racing duplicates.
 *
 * The run was re-found after the sim's process start took virtual time (100 ms, providers published
 * before Application.onCreate): the same commands, another seed and fault steps. It fails when
 * settling does not wait for racing duplicates.
 */
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';
import { replayRegression } from './regressions/replay.ts';

const FOUND: Scenario = {
  seed: 867758,
  tail: 'random',
  actors: {
    a: [
      {
        kind: 'execute',
        provider: 'payments',
        tool: 'transfer',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 2,
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
        kind: 'poll',
        other: false,
      },
    ],
  },
  user: [],
  faults: [
    {
      at: 37,
      fault: {
        kind: 'clockJump',
        ms: 90000000,
      },
    },
    {
      at: 213,
      fault: {
        kind: 'loseReply',
        callee: 'com.example.payments',
      },
    },
  ],
  decisions: [1, 0, 0, 0, 0, 0, 0],
};

describe('settling a run', () => {
  it('CETP-4.4-04 CETP-4.4-16: an operation answered to a racing duplicate after the actors finished is still polled to its end', async () => {
    const operations = PROPERTIES.find((p) => p.id === 'operations');
    if (operations?.kind !== 'raw') throw new Error('the operations property drives the raw driver');
    const run = await runScenario(operations.fixture, FOUND, REFERENCE);
    const accepted = run.observation.calls.filter(
      (c) => c.reply.kind === 'bundle' && c.reply.status === 'accepted',
    );
    expect(accepted.length).toBeGreaterThan(0);
    const lastAccepted = Math.max(...accepted.map((c) => c.replyStep ?? 0));
    expect(lastAccepted).toBeGreaterThan(run.observation.quietFromStep ?? Number.POSITIVE_INFINITY);
    const polledToEnd = run.observation.calls.some(
      (c) =>
        c.method === 'get_operation' &&
        c.reply.kind === 'bundle' &&
        (c.reply.data as { state?: string } | undefined)?.state === 'succeeded',
    );
    expect(polledToEnd).toBe(true);
    expect(run.violations).toEqual([]);
  });
});

describe('settling a run whose agent the freezer stopped (regression, fuzz --time 600 seed 23)', () => {
  it('CETP-4.4-04 CETP-4.4-16: the agent the user opens to settle is thawed, and polls its operation to its end', async () => {
    // An agent killed by lmkd was started again to receive an Activity result, was cached and then
    // frozen (freezeCached) for good. Settling spawned its poll in that process; the task never ran,
    // and operations-terminate blamed the reference provider, whose operation had succeeded.
    const run = await replayRegression('operations', 'operations-frozen-agent.replay.json');
    const events = run.world.trace.events;
    const frozen = events.filter((e) => e.kind === 'process.freeze').map((e) => e.data.actor);
    expect(frozen).toContain('com.fuzz.agent.b');
    const thawed = events.filter((e) => e.kind === 'process.thaw' && e.data.actor === 'com.fuzz.agent.b');
    expect(thawed.map((e) => e.data.reason)).toEqual(['user launched']);
    // Settling waited out the actors (7 days): the poll finds the operation over, its result expired.
    const polledToEnd = run.observation.calls.some(
      (c) =>
        c.caller === 'com.fuzz.agent.b' &&
        c.method === 'get_operation' &&
        c.reply.kind === 'bundle' &&
        (c.reply.errorCode === 'RESULT_EXPIRED' ||
          (c.reply.data as { state?: string } | undefined)?.state === 'succeeded'),
    );
    expect(polledToEnd).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});

describe('settling after a durable actor was relaunched (regression, fuzz --time 600 seed 29, lifecycle)', () => {
  it("CETP-4.4-04 CETP-4.4-16: one body runs an actor's commands at a time, so every operation it starts is settled", async () => {
    // Agent b's process was killed by a package update (a re-sign) while the harness relaunched the
    // actor: the kill of that earlier process counted as the new launch's death, a third launch ran
    // alongside the second, reported the actor done, and settling began while the second still slept
    // toward its grant's expiry (29 days) — and then started an operation nobody polled.
    const run = await replayRegression('lifecycle', 'lifecycle-two-launches.replay.json');
    const updates = run.world.trace.events.filter(
      (e) => e.kind === 'process.kill' && e.data.actor === 'com.fuzz.agent.b',
    );
    expect(updates.length).toBeGreaterThanOrEqual(2); // the situation: b killed by both re-signs
    const quiet = run.observation.quietFromStep ?? Number.POSITIVE_INFINITY;
    const acceptedAfterSettling = run.observation.calls.filter(
      (c) => c.reply.kind === 'bundle' && c.reply.status === 'accepted' && c.step > quiet,
    );
    expect(acceptedAfterSettling).toEqual([]);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
