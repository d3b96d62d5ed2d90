/**
 * The provider's readings of ambiguous spec points (src/providers/sdk/readings.ts) on hand-written
 * scenarios: each reading changes what the provider answers (so the switch is real), and every
 * oracle accepts each reading on its own — where an oracle judged a point the spec leaves open, it is
 * parametrised by the run's readings (NOTES 10a: cancel-after-end), and still fails on the same
 * answer made without the reading (a rule switched off).
 */
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS } from '../src/check/checkers/index.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import { type Command, executeCommand as execute, type Variant } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import type { UserDecision } from '../src/sim/ui/user.ts';

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
const reference: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };
const reading = (provider: Record<string, string>): Variant => ({ ...reference, readings: { provider } });

async function run(commands: readonly Command[], variant: Variant, user: UserDecision[] = ['approve']) {
  const result = await runScenario(
    { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: ALL_CHECKERS },
    { seed: 1, tail: 'fifo', actors: { a: commands }, user, faults: [], decisions: [] },
    variant,
  );
  const answers = result.observation.calls
    .filter((c) => c.method === 'cancel_operation' || c.method === 'execute_tool')
    .map(
      (c) =>
        `${c.method}:${c.reply.kind === 'bundle' ? (c.reply.errorCode ?? c.reply.status) : c.reply.kind}`,
    );
  return { answers, firing: [...new Set(result.violations.map((v) => v.checker))] };
}

describe('provider readings', () => {
  const cancelAfterEnd: Command[] = [
    { kind: 'negotiate', caps: ALL_CAPS },
    execute('payments.reconcile_accounts'),
    { kind: 'wait', ms: 20_000 },
    { kind: 'poll', other: false },
    { kind: 'cancel', other: false, afterMs: 0 },
  ];
  // The same, then a poll and a same-id re-send: what an accepted cancel must not have changed.
  const afterCancel: Command[] = [
    ...cancelAfterEnd,
    { kind: 'poll', other: false },
    { kind: 'retry', index: 0, afterMs: 0 },
  ];

  it('NOTES 10a cancelFinished=accept: a finished operation accepts the cancel, and cancel-after-end accepts the reading', async () => {
    const ref = await run(cancelAfterEnd, reference);
    expect(ref.answers).toContain('cancel_operation:CONFLICT');
    expect(ref.firing).toEqual([]);
    const accept = await run(cancelAfterEnd, reading({ cancelFinished: 'accept' }));
    expect(accept.answers).toContain('cancel_operation:success');
    expect(accept.firing).toEqual([]);
  });

  it('NOTES 10a: an app configured to accept (its reading not declared to the judge) passes too', async () => {
    // With CETP-5-16 switched off the reference answers exactly as cancelFinished=accept does
    // (success, cancellation_requested, nothing changed), and the run names no reading: the
    // oracle judges what the answer did, so a user's app configured with the reading passes.
    const undeclared = await run(afterCancel, { ...reference, disabledRules: ['CETP-5-16'] });
    expect(undeclared.answers).toContain('cancel_operation:success');
    expect(undeclared.firing).toEqual([]);
  });

  it('NOTES 10a: no reading lets an accepted cancel of a finished operation undo it (cancel-after-end fails)', async () => {
    // The planted cancel-after-commit accepts the cancel and marks the succeeded operation cancelled.
    for (const variant of [
      { ...reference, providerBugs: ['cancel-after-commit'] },
      { ...reading({ cancelFinished: 'accept' }), providerBugs: ['cancel-after-commit'] },
    ]) {
      const broken = await run(afterCancel, variant);
      expect(broken.answers).toContain('cancel_operation:success');
      expect(broken.firing).toContain('cancel-after-end');
    }
  });

  it('NOTES 5 deadlineCheck=first: a same-id re-send with an expired deadline gets DEADLINE_EXCEEDED, not its record', async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments.transfer'),
      execute('payments.transfer', {
        rid: { kind: 'reuse', index: 0 },
        expiredDeadline: true,
        resolve: 'none',
      }),
    ];
    const ref = await run(commands, reference);
    const first = await run(commands, reading({ deadlineCheck: 'first' }));
    expect(ref.answers.at(-1)).not.toBe('execute_tool:DEADLINE_EXCEEDED');
    expect(first.answers.at(-1)).toBe('execute_tool:DEADLINE_EXCEEDED');
    expect(first.firing).toEqual([]);
  });

  it("NOTES 10c cancelledReplay=accepted: a replay of a cancelled operation's request answers accepted", async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments.reconcile_accounts'),
      { kind: 'cancel', other: false, afterMs: 0 },
      { kind: 'wait', ms: 20_000 },
      { kind: 'retry', index: 0, afterMs: 0 },
    ];
    const ref = await run(commands, reference);
    const accepted = await run(commands, reading({ cancelledReplay: 'accepted' }));
    expect(ref.answers.at(-1)).toBe('execute_tool:CANCELLED');
    expect(accepted.answers.at(-1)).toBe('execute_tool:accepted');
    expect(accepted.firing).toEqual([]);
  });
});

describe('reference fixes found by the matrix', () => {
  it("CETP-6-05: a retry of a committed delete gets its recorded result, not INVALID_ARGS from today's state", async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ['cancellation', 'large_results'] },
      execute('alerts.create_alert'),
      execute('alerts.delete_alert'),
      { kind: 'retry', index: 1, afterMs: 0 },
    ];
    const { answers, firing } = await run(commands, reference, ['approve', 'approve', 'approve']);
    const deletes = answers.slice(-2);
    expect(deletes[0]).toBe('execute_tool:success');
    expect(deletes[1]).toBe('execute_tool:success');
    expect(firing).toEqual([]);
  });
});
