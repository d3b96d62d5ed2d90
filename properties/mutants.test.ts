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
 * `npm test` checks. How deep each bug hides over ten seeds: bench/mutant-depth.ts. Each hunt asks
 * only whether the bug is killed, so it is not shrunk (`shrink: false`: the first failing run is the
 * same either way); the last two tests check the shrinking.
 */
describe('planted bugs are killed', () => {
  for (const mutant of MUTANTS) {
    it(`${mutant.id} (${mutant.ruleIds.join(' ')}) is killed by ${mutant.killers.join(' or ')}`, async () => {
      const result = await huntMutant(mutant, {
        seed: 0,
        runsPerProperty: DEFAULT_MUTANT_RUNS,
        tails: tailsOf('portfolio'),
        shrink: false,
      });
      expect(result.killed, `${mutant.id} survived ${mutant.killers.join(', ')}`).toBe(true);
    });
  }

  it('a hunt shrinks its kill unless told not to; the kill is the same either way', async () => {
    const mutant = MUTANTS.find((m) => m.id === 'dedup-check-then-insert');
    if (!mutant) throw new Error('fixture missing');
    const options = { seed: 0, runsPerProperty: DEFAULT_MUTANT_RUNS, tails: tailsOf('portfolio') };
    const shrunk = await huntMutant(mutant, options);
    const found = await huntMutant(mutant, { ...options, shrink: false });
    expect(found.killed && shrunk.killed).toBe(true);
    expect(found.killedBy).toBe(shrunk.killedBy);
    expect(found.runsToFailure).toBe(shrunk.runsToFailure);
    expect(shrunk.shrunkSteps ?? Number.POSITIVE_INFINITY).toBeLessThan(found.shrunkSteps ?? 0);
  });

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
