import { expect, it } from 'vitest';
import { fuzzReference } from '../src/harness/index.ts';
import { describeReference } from '../src/vitest.ts';

/**
 * Every property suite holds for the reference provider apps and consumer at a CI-sized budget,
 * with the strategy portfolio finishing the generated schedules: one test per property, registered
 * by the public vitest entry (`cetp-sim/vitest`) exactly as a user's suite registers its own — a
 * failure prints the checker, rule ids, evidence and replay command; a property that exercised
 * nothing fails too.
 */
describeReference({
  name: 'property suites against the reference implementations',
  seed: 0,
  replayDir: null,
});

it('a campaign is deterministic: the same seed gives the same runs, verdicts and replay', async () => {
  const options = {
    property: 'idempotency',
    seed: 5,
    runs: 300,
    mutant: 'dedup-ignores-args',
    replayDir: null,
  } as const;
  const a = await fuzzReference(options);
  const b = await fuzzReference(options);
  expect(a.passed).toBe(false);
  expect(a.properties[0]?.status).toBe('failed');
  expect(b).toEqual(a);
});
