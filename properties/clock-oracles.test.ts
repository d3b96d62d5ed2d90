/**
 * The clock oracles (src/check/checkers/clocks.ts) on hand-written scenarios: each passes against
 * the reference provider and fails — with its own violation — once the rule it guards is switched
 * off in the provider (rule ablation).
 */
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS } from '../src/check/checkers/index.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import type { Command, ResolveMode, Variant } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';

function execute(tool: string, resolve: ResolveMode): Command {
  return {
    kind: 'execute',
    provider: 'payments',
    tool,
    args: 0,
    rid: { kind: 'fresh' },
    expiredDeadline: false,
    confirmedFlag: false,
    resolve,
    duplicates: 0,
  };
}

const reference: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };
const without = (rule: string): Variant => ({ ...reference, disabledRules: [rule] });

async function firing(commands: readonly Command[], variant: Variant): Promise<string[]> {
  const run = await runScenario(
    { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: ALL_CHECKERS },
    { seed: 1, tail: 'fifo', actors: { a: commands }, user: ['approve'], faults: [], decisions: [] },
    variant,
  );
  return [...new Set(run.violations.map((v) => v.checker))];
}

describe('resume-token-expiry (CETP-4.3-06)', () => {
  const late = [execute('transfer', 'late-after')];
  it('holds on the reference provider: a resume just past the token lifetime does not execute', async () => {
    expect(await firing(late, reference)).toEqual([]);
    expect(await firing([execute('transfer', 'late-before')], reference)).toEqual([]);
  });
  it('fails when the provider accepts expired tokens', async () => {
    expect(await firing(late, without('CETP-4.3-06'))).toContain('resume-token-expiry');
  });
});
