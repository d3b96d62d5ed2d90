/**
 * A request_id reserved for confirmation with some args is not taken over by other args.
 *
 * Found by a fuzz campaign (`fuzz --seed 9001`, identity) — the first finding of this kind in the
 * reference provider SDK rather than in the test bed: one agent sent create_alert under request id R
 * twice, with args that need a confirmation and with args that do not, concurrently. Both calls
 * looked R up and found nothing; the first reserved R for confirmation (its args); the second then
 * accepted R with its own args in its transaction — which let a reservation for confirmation be
 * overwritten by any call, not only by that request's approved resume — and committed an effect for R
 * while the user was being asked about the other args (approval-binding: "effect … without any
 * confirmation"; CETP-6-03/6-04: R was used with two sets of args). Now a transaction replaces a
 * reservation only for the same tool and args (`mayReplace`), and a record found there is answered
 * through the same args check as one found before (`answerExisting`): INVALID_REQUEST for other args.
 *
 * The run was re-found after the sim's process start took virtual time (100 ms, providers published
 * before Application.onCreate): the same commands, the clock jump moved from step 93 to 105. It
 * fails with `mayReplace` reverted to replacing any reservation.
 */
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const FOUND: Scenario = {
  seed: 999984,
  tail: 'random',
  actors: {
    a: [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'list_alerts',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'foreign',
        duplicates: 2,
      },
    ],
    b: [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        // AAPL at 400 (pool entry 1; the run was found as 5, which was 1 while the pool held 4 entries)
        args: 1,
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
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        args: 0,
        rid: {
          kind: 'reuse',
          index: 0,
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 2,
      },
    ],
    s1: [
      {
        kind: 'poll',
        other: false,
        wrongRid: false,
      },
    ],
    s2: [
      {
        kind: 'cancel',
        other: false,
        afterMs: 0,
      },
    ],
  },
  user: [],
  faults: [
    {
      at: 105,
      fault: {
        kind: 'clockJump',
        ms: 7200000,
      },
    },
  ],
  decisions: [],
};

describe('a reservation for confirmation under a request_id', () => {
  it('CETP-6-03 CETP-6-04 CETP-4.3-08: a concurrent call with other args cannot take it over', async () => {
    const identity = PROPERTIES.find((p) => p.id === 'identity');
    if (identity?.kind !== 'raw') throw new Error('the identity property drives the raw driver');
    const run = await runScenario(identity.fixture, FOUND, REFERENCE);
    const reserved = run.observation.confirmations.find(
      (n) => n.kind === 'confirm' && n.event === 'requested',
    );
    if (!reserved) throw new Error('the found run reserves a request for confirmation');
    // Every call under that request_id with other args than the reservation's is refused.
    const others = run.observation.calls.filter(
      (c) =>
        c.method === 'execute_tool' &&
        c.requestId === reserved.requestId &&
        c.callerUid === reserved.uid &&
        c.args !== null &&
        c.step > reserved.step &&
        c.reply.kind === 'bundle' &&
        c.reply.status !== 'error',
    );
    expect(others.filter((c) => c.reply.kind === 'bundle' && c.reply.status === 'accepted')).toEqual([]);
    // No effect under that request_id with other args than the reserved call's.
    const reservedCall = run.observation.calls.find(
      (c) =>
        c.requestId === reserved.requestId &&
        c.callerUid === reserved.uid &&
        c.reply.kind === 'bundle' &&
        c.reply.errorCode === 'USER_ACTION_REQUIRED',
    );
    const reservedArgs = JSON.stringify(JSON.parse(reservedCall?.args ?? 'null'));
    expect(
      run.observation.effects.filter(
        (e) => e.requestId === reserved.requestId && JSON.stringify(e.args) !== reservedArgs,
      ),
    ).toEqual([]);
    expect(run.violations).toEqual([]);
  });
});
