/**
 * The negotiated-session oracles (src/check/checkers/negotiated.ts) on hand-written scenarios: each
 * passes against the reference provider and fails — with the oracle's own violation — once the
 * rule it guards is switched off in the provider (rule ablation), so every oracle is shown able to
 * fail on a real protocol breach, not only on synthetic observations.
 */
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS } from '../src/check/checkers/index.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import type { Command, Scenario, Variant } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];

function execute(provider: string, tool: string, args = 0): Command {
  return {
    kind: 'execute',
    provider,
    tool,
    args,
    rid: { kind: 'fresh' },
    expiredDeadline: false,
    confirmedFlag: false,
    resolve: 'honest',
    duplicates: 0,
  };
}

function scenario(commands: readonly Command[]): Scenario {
  return { seed: 1, tail: 'fifo', actors: { a: commands }, user: ['approve'], faults: [], decisions: [] };
}

const reference: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };
const without = (rule: string): Variant => ({ ...reference, disabledRules: [rule] });

async function oraclesFiring(commands: readonly Command[], variant: Variant): Promise<string[]> {
  const run = await runScenario(
    { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: ALL_CHECKERS },
    scenario(commands),
    variant,
  );
  return [...new Set(run.violations.map((v) => v.checker))];
}

describe('oracles over the negotiated session', () => {
  it('CETP-2.2-06: capabilities-intersected fails when the provider grants capabilities nobody asked for', async () => {
    const commands: Command[] = [{ kind: 'negotiate', caps: ['cancellation'] }];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-2.2-06'))).toContain('capabilities-intersected');
  });

  it('CETP-2.3-02 CETP-5-06: capability-gating fails when an operation is served in a session without the capability', async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments', 'reconcile_accounts'),
      { kind: 'negotiate', caps: [] },
      { kind: 'poll', other: false },
      { kind: 'cancel', other: false, afterMs: 0 },
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-5-06'))).toContain('capability-gating');
  });

  it('CETP-4.5-01: inline-within-limit fails when a result over max_inline_result_bytes is inlined', async () => {
    // export_statement's second args (12 months) is over the 256 KiB inline limit.
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments', 'export_statement', 1),
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-4.5-01'))).toContain('inline-within-limit');
  });

  it('CETP-5-14: args-schema fails when args outside the input schema are not refused as INVALID_ARGS', async () => {
    // get_balance has no business validation of its own to fall back on, unlike get_quote.
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      { kind: 'malformed', provider: 'payments', flaw: 'args-schema-mismatch' },
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-5-14'))).toContain('args-schema');
  });

  it('CETP-5-22: window-expiry fails when a same-id retry past the idempotency window replays the old result', async () => {
    // create_alert (after its scope grant, synchronously: no async_operations), then the same request
    // again a day and an hour later.
    const commands: Command[] = [
      { kind: 'negotiate', caps: ['cancellation', 'large_results'] },
      execute('alerts', 'create_alert'),
      { kind: 'retry', index: 0, afterMs: 25 * 3_600_000 },
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-5-22'))).toContain('window-expiry');
  });

  it('CETP-2.2-15: version-agreed fails when a negotiate without a common version succeeds anyway', async () => {
    const commands: Command[] = [{ kind: 'negotiate', caps: ALL_CAPS, versions: [3] }];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-2.2-15'))).toContain('version-agreed');
  });

  it('CETP-2.2-11 CETP-2.2-14: session-expiry fails when a session is still served after its announced expiry', async () => {
    // Two hours after negotiating (sessions last one): the stale token must be refused.
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      { kind: 'wait', ms: 7_200_000 },
      execute('alerts', 'get_quote'),
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-2.2-11'))).toContain('session-expiry');
  });

  it('CETP-5-16 CETP-4.4-21: cancel-after-end fails when an accepted cancel undoes a finished operation', async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments', 'reconcile_accounts'),
      { kind: 'wait', ms: 20_000 },
      { kind: 'poll', other: false },
      { kind: 'cancel', other: false, afterMs: 0 },
      { kind: 'poll', other: false },
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    // Accepting the cancel and changing nothing is NOTES 10a's accept reading (properties/readings.test.ts).
    expect(await oraclesFiring(commands, without('CETP-5-16'))).toEqual([]);
    const undone = { ...reference, providerBugs: ['cancel-after-commit'] };
    expect(await oraclesFiring(commands, undone)).toContain('cancel-after-end');
  });

  it('CETP-4-09: dual-stack-v1 fails when a dual-stack provider refuses a v1 call as UNSUPPORTED_VERSION', async () => {
    const commands: Command[] = [{ kind: 'v1-list', provider: 'alerts' }];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-4-09'))).toContain('dual-stack-v1');
  });

  it('CETP-7.1-06 CETP-2.2-14: resign-ends-session fails when a session outlives a re-signing of its UID', async () => {
    // Two packages share a UID; one is re-signed (a rotated key) between the other's negotiate and
    // its next call, which must then be NEGOTIATION_REQUIRED: the session's identity changed.
    const withSharedUid = async (variant: Variant) => {
      const run = await runScenario(
        { providers: [ALERTS, PAYMENTS], actors: ['s1', 's2'], checkers: ALL_CHECKERS },
        {
          ...scenario([]),
          actors: {
            s1: [{ kind: 'wait', ms: 1 }],
            s2: [
              { kind: 'negotiate', caps: ALL_CAPS },
              { kind: 'wait', ms: 3_000 },
              execute('payments', 'get_balance'),
            ],
          },
          faults: [
            {
              // After s2's second negotiate was answered, while it waits (step re-found after the sim's
              // process start took virtual time: the only step where the ablated provider is caught).
              at: 35,
              fault: { kind: 'resign', package: 'com.fuzz.shared.one', cert: 'rotated-shared', rotate: true },
            },
          ],
        },
        variant,
      );
      return [...new Set(run.violations.map((v) => v.checker))];
    };
    expect(await withSharedUid(reference)).toEqual([]);
    expect(await withSharedUid(without('CETP-7.1-06'))).toContain('resign-ends-session');
  });

  it('CETP-4.1-11: operation-request-id fails when an operation is served under another request_id', async () => {
    const commands: Command[] = [
      { kind: 'negotiate', caps: ALL_CAPS },
      execute('payments', 'reconcile_accounts'),
      { kind: 'poll', other: false, wrongRid: true },
    ];
    expect(await oraclesFiring(commands, reference)).toEqual([]);
    expect(await oraclesFiring(commands, without('CETP-4.1-11'))).toContain('operation-request-id');
  });
});
