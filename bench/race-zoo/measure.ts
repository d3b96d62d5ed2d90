/**
 * Runs to first failure: for each zoo program and each contestant (a strategy on cetp-sim's scheduler,
 * or fast-check's fc.scheduler), 20 independent trials; a trial counts the runs until the program's bug
 * oracle fires, up to a budget. Every figure is a count from seeded runs — the same code gives the same
 * table on any machine.
 */
import { Rng } from '../../src/sim/core/rng.ts';
import { type CampaignStrategy, campaignStrategy, type StrategySpec } from '../../src/sim/core/strategy.ts';
import { fcRunsToFailure } from './fc-engine.ts';
import type { ZooProgram } from './runtime.ts';
import { runOnSim } from './sim-engine.ts';

export interface Contestant {
  readonly name: string;
  /** A campaign of runs on the sim (the strategy may learn across the runs of one trial). */
  readonly sim?: (rng: Rng) => CampaignStrategy;
  /** fast-check's fc.scheduler: a trial is one fc.check with this seed. */
  readonly fc?: true;
  /** Every run is the same schedule (FIFO): a trial is its first run; more runs could find nothing new. */
  readonly deterministic?: true;
}

function fixed(spec: StrategySpec): (rng: Rng) => CampaignStrategy {
  return (rng) => campaignStrategy(spec, rng);
}

/** PCT as the zoo measures it: change points over choice points, k learned, spawn below the parent. */
const pct = (depth: number): StrategySpec => ({ kind: 'pct', depth, unit: 'choice', spawn: 'below-parent' });

export const CONTESTANTS: readonly Contestant[] = [
  { name: 'fifo', sim: fixed({ kind: 'fifo' }), deterministic: true },
  { name: 'random', sim: fixed({ kind: 'random' }) },
  { name: 'pct-2', sim: fixed(pct(2)) },
  { name: 'pct-3', sim: fixed(pct(3)) },
  { name: 'pct-4', sim: fixed(pct(4)) },
  { name: 'portfolio', sim: fixed({ kind: 'portfolio' }) },
  { name: 'fc.scheduler', fc: true },
];

/** PCT-3 before the zoo's changes, and with only the spawn rule left out: each change's share. */
export const LEGACY: readonly Contestant[] = [
  {
    name: 'pct-3 before (k=400 steps)',
    sim: fixed({ kind: 'pct', depth: 3, stepsEstimate: 400, unit: 'step' }),
  },
  { name: 'pct-3 paper spawn', sim: fixed({ kind: 'pct', depth: 3, unit: 'choice', spawn: 'random' }) },
];

export interface ZooFigure {
  readonly program: string;
  readonly contestant: string;
  /** Runs to the first failure, per trial (null: not found within the budget). */
  readonly runsToFailure: readonly (number | null)[];
  readonly found: number;
  readonly median: number | null;
  /** Mean over trials, counting a miss as the budget (a lower bound when some trials missed). */
  readonly meanCapped: number;
}

export interface MeasureOptions {
  readonly trials: number;
  readonly budget: number;
  /** fc.scheduler's budget (its runs cost ~15× a sim run on twostage_100). */
  readonly fcBudget: number;
}

export function median(values: readonly (number | null)[]): number | null {
  const sorted = [...values].map((v) => v ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length / 2;
  const m =
    sorted.length % 2 === 1
      ? (sorted[Math.floor(mid)] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return Number.isFinite(m) ? m : null;
}

/** Runs to the first failure of one trial on the sim, or null. */
export async function simRunsToFailure(
  program: ZooProgram,
  contestant: Contestant,
  trial: number,
  budget: number,
): Promise<number | null> {
  if (!contestant.sim) throw new Error(`${contestant.name} is not a sim strategy`);
  const campaign = contestant.sim(new Rng(`race-zoo/${program.id}/${contestant.name}/${trial}`));
  const runs = contestant.deterministic ? 1 : budget;
  for (let run = 1; run <= runs; run++) {
    const result = await runOnSim(program, campaign.next());
    campaign.observe({ steps: result.steps, choices: result.choices, failed: result.verdict.kind !== 'ok' });
    if (result.verdict.kind !== 'ok') return run;
  }
  return null;
}

export async function measureProgram(
  program: ZooProgram,
  contestant: Contestant,
  options: MeasureOptions,
): Promise<ZooFigure> {
  const runs: (number | null)[] = [];
  for (let trial = 0; trial < options.trials; trial++) {
    runs.push(
      contestant.fc
        ? await fcRunsToFailure(program, trial, options.fcBudget)
        : await simRunsToFailure(program, contestant, trial, options.budget),
    );
  }
  const cap = contestant.fc ? options.fcBudget : options.budget;
  return {
    program: program.id,
    contestant: contestant.name,
    runsToFailure: runs,
    found: runs.filter((r) => r !== null).length,
    median: median(runs),
    meanCapped: Math.round((runs.reduce<number>((s, r) => s + (r ?? cap), 0) / runs.length) * 10) / 10,
  };
}
