/**
 * Fuzzing benchmarks: scenario runs per second (a fixed ten-step scenario — two actors × five
 * commands — judged by every checker; target ≥ 2,000/s on one core), and each planted bug's time to
 * failure with the default strategy portfolio (target: median under 1 s, none over 10 s).
 */

import { ALL_CHECKERS, runCheckers } from '../src/check/checkers/index.ts';
import { observe } from '../src/check/observation.ts';
import { huntMutant, type MutantResult } from '../src/fuzz/hunt.ts';
import { MUTANTS } from '../src/fuzz/mutants.ts';
import { checkContext } from '../src/fuzz/scenario/fixtures.ts';
import { REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { runScenario } from '../src/fuzz/scenario/runner.ts';
import type { BenchCase } from './harness.ts';
import { BENCH_FIXTURE, TEN_STEP_SCENARIO } from './scenarios.ts';

const SCENARIOS_PER_ITERATION = 50;

/** The same world with no commands: building it, installing the apps, judging an empty run. */
const NO_COMMANDS: Scenario = { ...TEN_STEP_SCENARIO, actors: {} };

/** A finished ten-step run, for timing the observation and the oracles alone. */
const finished = await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
const finishedContext = checkContext(BENCH_FIXTURE.providers, { consumers: [] });

export const fuzzCases: BenchCase[] = [
  {
    name: 'scenario run (ten steps, all checkers)',
    unit: 'runs/s',
    perIteration: SCENARIOS_PER_ITERATION,
    target: 2_000,
    // Steady state: the target is judged after V8 has optimised the path (see BenchCase.warmupMs),
    // in rounds with the host probe beside each (see BenchCase.rounds).
    warmupMs: 6_000,
    rounds: { count: 8, ms: 1_500 },
    fn: async () => {
      for (let i = 0; i < SCENARIOS_PER_ITERATION; i++)
        await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
    },
  },
  // Where a scenario run's time goes (no targets): the fixed part, and the judging part.
  {
    name: 'part: the world alone (install, no commands, judged)',
    unit: 'runs/s',
    perIteration: SCENARIOS_PER_ITERATION,
    fn: async () => {
      for (let i = 0; i < SCENARIOS_PER_ITERATION; i++)
        await runScenario(BENCH_FIXTURE, NO_COMMANDS, REFERENCE);
    },
  },
  {
    name: 'part: observing a finished ten-step run',
    unit: 'observations/s',
    perIteration: SCENARIOS_PER_ITERATION,
    fn: () => {
      for (let i = 0; i < SCENARIOS_PER_ITERATION; i++) observe(finished.world, finished.report, 0);
    },
  },
  {
    // A fresh observation each time: oracles remember derived tables on the observation they judge,
    // so judging one observation over and over would time only the first pass's leftovers.
    name: 'part: observing and judging a finished ten-step run (every oracle)',
    unit: 'judgements/s',
    perIteration: SCENARIOS_PER_ITERATION,
    fn: () => {
      for (let i = 0; i < SCENARIOS_PER_ITERATION; i++)
        runCheckers(observe(finished.world, finished.report, 0), finishedContext, ALL_CHECKERS);
    },
  },
];

export interface TimeToFailure {
  readonly mutants: readonly MutantResult[];
  readonly medianMs: number | null;
  readonly maxMs: number | null;
  readonly meetsTarget: boolean;
}

/** Hunts every planted bug with the default portfolio and summarises wall time to failure. */
export async function timeToFailure(seed = 0): Promise<TimeToFailure> {
  const mutants: MutantResult[] = [];
  for (const m of MUTANTS) {
    mutants.push(
      await huntMutant(m, {
        seed,
        runsPerProperty: 2_000,
        tails: ['fifo', 'random', 'pct'],
        now: () => performance.now(),
      }),
    );
  }
  const times = mutants.map((m) => m.msToFailure ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)] ?? null;
  const maxMs = times.at(-1) ?? null;
  const finite = (x: number | null) => (x !== null && Number.isFinite(x) ? x : null);
  return {
    mutants,
    medianMs: finite(medianMs),
    maxMs: finite(maxMs),
    meetsTarget:
      mutants.every((m) => m.killed) && (medianMs ?? Infinity) < 1_000 && (maxMs ?? Infinity) <= 10_000,
  };
}
