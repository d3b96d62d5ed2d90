/**
 * `cetp-sim mutants`: hunts each planted bug (src/fuzz/mutants.ts) with its killer properties, in
 * order, until one fails; reports which property and checker killed it, after how many runs (and, in
 * the text table, how much wall time), and how small the shrunk failing run is. A survivor is a hole
 * in the suites: exit 1. The planted bugs are spread over `--workers` threads, one bug per job, and
 * reported in catalogue order: the results do not depend on the number of workers; `--shard I/N`
 * hunts every N-th bug (for a CI matrix, merged with `cetp-sim merge`).
 */

import type { MutantResult } from '../../fuzz/hunt.ts';
import type { Mutant } from '../../fuzz/mutants.ts';
import { EXIT_FAILED, EXIT_OK } from '../../harness/errors.ts';
import { selectMutants } from '../../harness/selection.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import type { Shard } from '../args.ts';
import { type Strategy, shardOf, tailsOf } from '../campaign.ts';
import { onInterrupt, SIGNAL_EXIT, type StopSignal } from '../interrupt.ts';
import type { Io } from '../io.ts';
import { startProgress } from '../progress.ts';
import { table } from '../table.ts';
import { mustFinish, runSpread } from '../worker/pool.ts';

/**
 * Runs each killer property gets. Enough with room to spare: over seeds 0..9 every planted bug's
 * median runs to failure is ≤ 200 and its worst 352 (bench/results/mutant-depth.json); at seed 0 all
 * 28 die in about 15 s of CPU time on 2 cores. properties/mutants.test.ts uses this budget too.
 */
export const DEFAULT_MUTANT_RUNS = 500;

/** Wall-clock ms one planted bug's hunt may take before it counts as hung (it is cetp-sim's own code). */
export const HUNT_BUDGET_MS = 10 * 60_000;

/** The flags of a sweep that switches one thing off at a time (`mutants`: planted bugs; `ablate`: rules). */
export interface SweepFlags {
  readonly seed: number;
  readonly runs: number;
  readonly strategy: Strategy;
  readonly shard?: Shard;
  readonly workers: number;
  readonly json: boolean;
  /** `--android`: the release profile the worlds run (src/sim/core/release.ts; absent: the default). */
  readonly android?: AndroidRelease;
}

export interface MutantsFlags extends SweepFlags {
  readonly id?: readonly string[];
}

/** No wall-clock field: identical arguments print identical bytes (the time is in the text table). */
function mutantJson(r: MutantResult) {
  return {
    id: r.id,
    rules: r.rules,
    killed: r.killed,
    killedBy: r.killedBy,
    runsToFailure: r.runsToFailure,
    shrunkSteps: r.shrunkSteps,
  };
}

export async function mutantsCommand(io: Io, flags: MutantsFlags): Promise<number> {
  const c = io.color;
  const mutants = shardOf(selectMutants(flags.id), flags.shard);
  const progress = startProgress(io, mutants.length, {
    json: flags.json,
    noun: 'mutants',
    units: 'planted bugs',
    failure: 'survived',
    countsRuns: false,
  });
  const shard = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  if (!flags.json)
    io.out(
      c.bold(
        `cetp-sim mutants: ${mutants.length} planted bug(s)${shard}, seed ${flags.seed}, up to ${flags.runs} runs per killer property, strategy ${flags.strategy}${flags.android !== undefined ? `, Android ${flags.android}` : ''}`,
      ),
    );
  // SIGINT/SIGTERM: the report of the planted bugs hunted so far, in catalogue order, marked
  // interrupted, and the shell's exit code for the signal (jobs in flight are dropped).
  const soFar = new Map<string, MutantResult>();
  const interrupt = onInterrupt((signal) => {
    progress.finish();
    const done = mutants.flatMap((m) => soFar.get(m.id) ?? []);
    process.exit(mutantsReport(io, done, signal, mutants.length, flags));
  });
  let results: MutantResult[];
  try {
    results = await runSpread(mutants, {
      workers: flags.workers,
      userCode: false,
      onStart: (mutant) => progress.begin(mutant.id),
      run: (host, mutant: Mutant) =>
        mustFinish<MutantResult>(
          host,
          {
            kind: 'mutant',
            mutant: mutant.id,
            seed: flags.seed,
            runsPerProperty: flags.runs,
            tails: tailsOf(flags.strategy),
            ...(flags.android !== undefined ? { android: flags.android } : {}),
          },
          HUNT_BUDGET_MS,
        ),
      onResult: (result, mutant) => {
        soFar.set(mutant.id, result);
        progress.done(
          mutant.id,
          result.killed
            ? `  ${c.green('killed')}   ${mutant.id} by ${result.killedBy}`
            : `  ${c.red('SURVIVED')} ${mutant.id} (tried ${mutant.killers.join(', ')})`,
          { failed: !result.killed },
        );
      },
    });
  } finally {
    progress.finish();
    interrupt.dispose();
  }
  return mutantsReport(io, results, null, mutants.length, flags);
}

/** The hunt's report (whole, or so far when `interrupted`) and its exit code. */
function mutantsReport(
  io: Io,
  results: readonly MutantResult[],
  interrupted: StopSignal | null,
  planted: number,
  { json, android }: Pick<MutantsFlags, 'json' | 'android'>,
): number {
  const c = io.color;
  const stopped = interrupted !== null ? SIGNAL_EXIT[interrupted] : null;
  const survivors = results.filter((r) => !r.killed);
  const code = stopped ?? (survivors.length === 0 ? EXIT_OK : EXIT_FAILED);
  if (json) {
    io.out(
      JSON.stringify({
        ...(android !== undefined ? { android } : {}),
        mutants: results.map(mutantJson),
        ...(interrupted !== null ? { interrupted } : {}),
      }),
    );
    return code;
  }
  io.out('');
  const rows = results.map((r) => {
    const cells = [
      r.id,
      r.killedBy ?? '—',
      r.checker ?? '—',
      r.runsToFailure === null ? '—' : String(r.runsToFailure),
      r.msToFailure === null ? '—' : String(r.msToFailure),
      r.shrunkSteps === null ? '—' : String(r.shrunkSteps),
      r.rules.join(' '),
    ];
    return r.killed ? cells : cells.map((cell) => c.red(cell));
  });
  for (const line of table(['mutant', 'killed by', 'checker', 'runs', 'ms', 'shrunk steps', 'rules'], rows))
    io.out(line);
  io.out('');
  io.out(
    survivors.length === 0
      ? c.green(`All ${results.length} planted bug(s) killed.`)
      : c.red(
          c.bold(`${survivors.length} planted bug(s) survived: ${survivors.map((s) => s.id).join(', ')}`),
        ),
  );
  if (interrupted !== null)
    io.out(
      c.yellow(c.bold(`INTERRUPTED (${interrupted}): ${results.length} of ${planted} planted bug(s) hunted`)),
    );
  return code;
}
