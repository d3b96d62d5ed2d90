/**
 * How deep each planted bug hides: the runs `cetp-sim mutants` needs to kill it, over ten campaign
 * seeds (0..9), with the CLI's defaults (portfolio strategy, DEFAULT_MUTANT_RUNS per killer
 * property). Runs to failure count every run of every killer tried, as `cetp-sim mutants` reports
 * them. Target: every bug killed at every seed, and each bug's median ≤ 200 runs — so the default
 * budget kills each with room to spare rather than by luck of the seed. Beside it, the median size
 * (scheduler steps) of the shrunk failing run, to see that generators which find a bug sooner still
 * shrink it well. Counts, not times: the figures are the same on every machine. `npm test` bounds
 * seed 0's count for every planted provider bug (properties/depth.test.ts, bounds in
 * src/fuzz/depth.ts): re-measure here when a generator change moves them.
 */

import { tailsOf } from '../src/cli/campaign.ts';
import { DEFAULT_MUTANT_RUNS } from '../src/cli/commands/mutants.ts';
import { huntMutant } from '../src/fuzz/hunt.ts';
import { MUTANTS, type Mutant } from '../src/fuzz/mutants.ts';
import { median } from './strategies.bench.ts';

export const DEPTH_SEEDS = 10;
export const DEPTH_MEDIAN_TARGET = 200;

export interface MutantDepth {
  readonly id: string;
  /** Runs to failure at seeds 0..9 (null: survived that seed's budget). */
  readonly runsBySeed: readonly (number | null)[];
  /** The median over the seeds (the upper one of an even count; null if half or more survived). */
  readonly median: number | null;
  /** The most runs any seed needed (null if a seed survived). */
  readonly max: number | null;
  /** The property (and checker) that killed it, at each seed that did. */
  readonly killedBy: readonly string[];
  /** The median scheduler steps of the shrunk failing run over the seeds that killed it. */
  readonly shrunkStepsMedian: number | null;
}

export interface DepthFigures {
  readonly runsPerProperty: number;
  readonly seeds: number;
  readonly mutants: readonly MutantDepth[];
  readonly survivors: readonly string[];
  readonly overTarget: readonly string[];
  readonly meetsTarget: boolean;
}

async function depthOf(mutant: Mutant, seeds: number, runsPerProperty: number): Promise<MutantDepth> {
  const runsBySeed: (number | null)[] = [];
  const shrunkSteps: number[] = [];
  const killedBy = new Set<string>();
  for (let seed = 0; seed < seeds; seed++) {
    const result = await huntMutant(mutant, { seed, runsPerProperty, tails: tailsOf('portfolio') });
    runsBySeed.push(result.runsToFailure);
    if (!result.killed) continue;
    killedBy.add(`${result.killedBy}/${result.checker}`);
    if (result.shrunkSteps !== null) shrunkSteps.push(result.shrunkSteps);
  }
  const survived = runsBySeed.includes(null);
  return {
    id: mutant.id,
    runsBySeed,
    median: median(runsBySeed),
    max: survived ? null : Math.max(...(runsBySeed as number[])),
    killedBy: [...killedBy].sort(),
    shrunkStepsMedian: median(shrunkSteps),
  };
}

/** Measures every planted bug (or those named), printing each as it is done. */
export async function mutantDepth(
  ids: readonly string[] = [],
  seeds = DEPTH_SEEDS,
  runsPerProperty = DEFAULT_MUTANT_RUNS,
): Promise<DepthFigures> {
  const mutants: MutantDepth[] = [];
  for (const mutant of MUTANTS) {
    if (ids.length > 0 && !ids.includes(mutant.id)) continue;
    const depth = await depthOf(mutant, seeds, runsPerProperty);
    console.log(
      `  ${depth.id.padEnd(40)} median ${String(depth.median ?? '—').padStart(4)}  max ${String(depth.max ?? '—').padStart(4)}  shrunk ${String(depth.shrunkStepsMedian ?? '—').padStart(4)}  [${depth.runsBySeed.map((r) => r ?? '✗').join(' ')}]  ${depth.killedBy.join(', ')}`,
    );
    mutants.push(depth);
  }
  const survivors = mutants.filter((m) => m.max === null).map((m) => m.id);
  const overTarget = mutants
    .filter((m) => m.median === null || m.median > DEPTH_MEDIAN_TARGET)
    .map((m) => m.id);
  return {
    runsPerProperty,
    seeds,
    mutants,
    survivors,
    overTarget,
    meetsTarget: survivors.length === 0 && overTarget.length === 0,
  };
}
