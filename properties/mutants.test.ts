import { describe, expect, it } from 'vitest';
import { tailsOf } from '../src/cli/campaign.ts';
import { DEFAULT_MUTANT_RUNS } from '../src/cli/commands/mutants.ts';
import { replayScenario } from '../src/fuzz/fuzz.ts';
import { huntMutant } from '../src/fuzz/hunt.ts';
import { MUTANTS } from '../src/fuzz/mutants.ts';
import { propertyById } from '../src/fuzz/suites.ts';

/**
 * The property suites kill every planted bug with `npx cetp-sim mutants`'s defaults (seed 0, the
 * portfolio strategy, DEFAULT_MUTANT_RUNS per killer property): what the command promises is what
 * `npm test` checks. How deep each bug hides over ten seeds: bench/mutant-depth.ts.
 */
describe('planted bugs are killed', () => {
  for (const mutant of MUTANTS) {
    it(`${mutant.id} (${mutant.ruleIds.join(' ')}) is killed by ${mutant.killers.join(' or ')}`, async () => {
      const result = await huntMutant(mutant, {
        seed: 0,
        runsPerProperty: DEFAULT_MUTANT_RUNS,
        tails: tailsOf('portfolio'),
      });
      expect(result.killed, `${mutant.id} survived ${mutant.killers.join(', ')}`).toBe(true);
    });
  }

  it('a shrunk failure replays bit for bit from its replay file', async () => {
    const mutant = MUTANTS.find((m) => m.id === 'dedup-check-then-insert');
    const def = propertyById('idempotency');
    if (!mutant || !def) throw new Error('fixture missing');
    const { fuzzProperty } = await import('../src/fuzz/fuzz.ts');
    const result = await fuzzProperty(def, {
      seed: 0,
      runs: 1000,
      tails: ['fifo', 'random', 'pct'],
      variant: mutant.variant,
    });
    const replay = result.failure?.replay;
    if (!replay) throw new Error('the mutant was not caught');
    const again = await replayScenario(def, JSON.parse(JSON.stringify(replay)));
    expect(again.report.traceHash).toBe(replay.traceHash);
    expect(again.violations.map((v) => v.checker)).toEqual(replay.violations.map((v) => v.checker));
  });
});
