/**
 * session-required (CETP-5-07) on hand-written runs: a v2 call without a session, nothing else
 * wrong, is NEGOTIATION_REQUIRED retryable from the reference; with the rule's enforcement point
 * switched off the same call is refused as a malformed request, and the oracle says so.
 */
import { describe, expect, it } from 'vitest';
import { sessionRequired } from '../src/check/checkers/session-required.ts';
import { ALERTS, PAYMENTS } from '../src/fuzz/scenario/fixtures.ts';
import { REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';

const scenario: Scenario = {
  seed: 3,
  tail: 'fifo',
  actors: { a: [{ kind: 'malformed', provider: 'alerts', flaw: 'no-session' }] },
  user: [],
  faults: [],
  decisions: [],
};

async function violations(disabledRules: string[]) {
  const run = await runScenario(
    { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: [sessionRequired] },
    scenario,
    { ...REFERENCE, disabledRules },
  );
  return run.violations.map((v) => v.message);
}

describe('session-required (CETP-5-07)', () => {
  it('holds for the reference: a call without a session is NEGOTIATION_REQUIRED retryable', async () => {
    expect(await violations([])).toEqual([]);
  });

  it('fails with the enforcement point of CETP-5-07 switched off', async () => {
    const found = await violations(['CETP-5-07']);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/execute_tool without a session was answered .*not NEGOTIATION_REQUIRED/);
  });
});
