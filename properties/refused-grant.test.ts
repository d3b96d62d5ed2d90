/**
 * A refused scope grant is not a request's terminal result; a denied confirmation is (4.3-14, 6-05).
 *
 * Found by a fuzz campaign (`fuzz --seed 20261202`; idempotency, confirmation and operations all
 * failed the same way): the user backed out of a scope grant, so the reference provider answered
 * USER_CANCELLED without recording the request, as intended; the same request_id was sent again, the
 * grant was given, a confirmation was asked, approved, and the transfer succeeded. same-terminal-result
 * called that "USER_CANCELLED, later success", because it took any confirmation ever requested for
 * the request_id — here the later one — as the cause of the earlier cancellation. It now asks which
 * confirmation the cancellation ended (the request's last confirmation event before the answer).
 */
import { describe, expect, it } from 'vitest';
import { sameTerminalResult } from '../src/check/checkers/wire.ts';
import type { CallView, Observation } from '../src/check/observation.ts';
import { checkContext } from '../src/fuzz/scenario/fixtures.ts';
import type { Command, Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { type Fixture, runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const transfer = (rid: 'fresh' | 'reuse'): Command => ({
  kind: 'execute',
  provider: 'payments',
  tool: 'transfer',
  args: 7,
  rid: rid === 'fresh' ? { kind: 'fresh' } : { kind: 'reuse', index: 0 },
  expiredDeadline: false,
  confirmedFlag: false,
  resolve: 'honest',
  duplicates: 0,
});

/** The campaign's shrunk idempotency failure (actor a's retry of nothing is a no-op, kept as found). */
const FOUND: Scenario = {
  seed: 0,
  tail: 'fifo',
  actors: {
    a: [{ kind: 'retry', index: 0, afterMs: 0 }],
    b: [{ kind: 'negotiate', caps: [] }, transfer('fresh'), transfer('reuse')],
  },
  user: ['back'],
  faults: [],
  decisions: [],
};

function idempotencyFixture(): Fixture {
  const p = PROPERTIES.find((x) => x.id === 'idempotency');
  if (p?.kind !== 'raw') throw new Error('the idempotency property drives the raw driver');
  return p.fixture;
}

const answers = (calls: readonly CallView[]) =>
  calls
    .filter((c) => c.method === 'execute_tool' && c.reply.kind === 'bundle')
    .map((c) => (c.reply.kind === 'bundle' ? (c.reply.errorCode ?? c.reply.status) : null));

describe('same-terminal-result: refused grants and denied confirmations', () => {
  it('CETP-6-05 CETP-4.3-14: a backed-out scope grant, then the same request granted, confirmed and done, is no violation', async () => {
    const run = await runScenario(idempotencyFixture(), FOUND, REFERENCE);
    // The run is what the finding says: cancelled at the grant, then done under the same request_id.
    expect(answers(run.observation.calls)).toEqual([
      'AUTH_REQUIRED',
      'USER_CANCELLED',
      'AUTH_REQUIRED',
      'USER_ACTION_REQUIRED',
      'success',
    ]);
    expect(new Set(run.observation.calls.map((c) => c.requestId).filter((r) => r !== null)).size).toBe(1);
    expect(run.violations).toEqual([]);
  });

  it('CETP-6-05 CETP-4.3-14: a denied confirmation stays the terminal result — a later success for it is flagged', async () => {
    const fixture = idempotencyFixture();
    const denied = await runScenario(fixture, { ...FOUND, user: ['approve', 'deny'] }, REFERENCE);
    // The reference records the denial and replays it to the same request_id.
    expect(answers(denied.observation.calls)).toEqual([
      'AUTH_REQUIRED',
      'USER_ACTION_REQUIRED',
      'USER_CANCELLED',
      'USER_CANCELLED',
    ]);
    expect(denied.violations).toEqual([]);
    // A provider that answered the replay with a result instead: the last answer swapped for one.
    const done = await runScenario(fixture, FOUND, REFERENCE);
    const success = done.observation.calls.find(
      (c) => c.reply.kind === 'bundle' && c.reply.status === 'success',
    );
    if (!success) throw new Error('the found run ends in a success');
    const calls = denied.observation.calls.map((c, i, all) =>
      i === all.length - 1 ? Object.assign({}, c, { reply: success.reply }) : c,
    );
    const tampered: Observation = Object.assign({}, denied.observation, { calls, memo: new Map() });
    const found = sameTerminalResult.check(tampered, checkContext(fixture.providers, { consumers: [] }));
    expect(found.map((v) => v.message)).toEqual([
      expect.stringMatching(/answered "error:USER_CANCELLED" and later "result sha256:/),
    ]);
  });
});
