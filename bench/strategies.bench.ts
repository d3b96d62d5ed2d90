/**
 * How many runs each scheduling strategy needs to expose a planted race, when the strategy alone
 * picks the interleaving (no generated decisions): uniform random against PCT (depth 2 and 3), with
 * FIFO as the baseline. Two races: the toy check-then-insert (schedule-only: FIFO never finds it) and
 * the SDK's planted dedup check-then-insert under the idempotency property.
 */
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { mutantById } from '../src/fuzz/mutants.ts';
import { runRace } from '../src/fuzz/race-demo.ts';
import { propertyById } from '../src/fuzz/suites.ts';
import type { StrategySpec } from '../src/sim/core/strategy.ts';

export interface StrategyFigure {
  readonly race: string;
  readonly strategy: string;
  /** Runs to the first failure, per trial (null: not found within the budget). */
  readonly runsToFailure: readonly (number | null)[];
  readonly median: number | null;
}

export function median(values: readonly (number | null)[]): number | null {
  const sorted = [...values].map((v) => v ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const m = sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY;
  return Number.isFinite(m) ? m : null;
}

/** The toy race: each run is a fresh world seed; count runs until a double insert. */
async function toyRace(strategy: (seed: number) => StrategySpec, trials: number, budget: number) {
  const out: (number | null)[] = [];
  for (let trial = 0; trial < trials; trial++) {
    let found: number | null = null;
    for (let run = 1; run <= budget && found === null; run++) {
      const seed = trial * budget + run;
      if ((await runRace({ decisions: [], faults: [] }, false, seed, strategy(seed))).inserts > 1)
        found = run;
    }
    out.push(found);
  }
  return out;
}

export async function strategyComparison(trials = 10, budget = 200): Promise<StrategyFigure[]> {
  const figures: StrategyFigure[] = [];
  const toy: [string, (seed: number) => StrategySpec][] = [
    ['fifo', () => ({ kind: 'fifo' })],
    ['random', () => ({ kind: 'random' })],
    ['pct depth 2', () => ({ kind: 'pct', depth: 2, stepsEstimate: 40 })],
    ['pct depth 3', () => ({ kind: 'pct', depth: 3, stepsEstimate: 40 })],
  ];
  for (const [name, spec] of toy) {
    const runs = await toyRace(spec, trials, budget);
    figures.push({
      race: 'toy check-then-insert',
      strategy: name,
      runsToFailure: runs,
      median: median(runs),
    });
  }
  const mutant = mutantById('dedup-check-then-insert');
  const def = propertyById('idempotency');
  if (mutant && def) {
    for (const tail of ['fifo', 'random', 'pct'] as const) {
      const runs: (number | null)[] = [];
      for (let seed = 0; seed < trials; seed++) {
        const r = await fuzzProperty(def, {
          seed,
          runs: budget * 10,
          tails: [tail],
          variant: mutant.variant,
          generateDecisions: false,
        });
        runs.push(r.status === 'failed' ? r.runs : null);
      }
      figures.push({
        race: 'SDK dedup-check-then-insert',
        strategy: tail,
        runsToFailure: runs,
        median: median(runs),
      });
    }
  }
  return figures;
}
