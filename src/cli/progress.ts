/**
 * Progress of a long command (fuzz, mutants, ablate, crashpoints): on a terminal, a live bar on
 * stderr (cli-progress; stdout stays the report) showing the units done (properties, planted bugs,
 * rules), the runs done so far, the failures so far and the unit(s) running now:
 *
 *   fuzz ████████░░░░░░░░░░░░░░░░ 3/10 properties · 1,234 runs · 1 failed · now idempotency · 0:12
 *
 * Elsewhere (CI logs, pipes, `CI` set) no bar and no redraws: one plain line per finished unit, as
 * it finishes — quiet lines a log keeps. With --json nothing but the bar is drawn: stdout is the
 * single JSON object.
 */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';
import type { Io } from './io.ts';

/** How a finished unit went. */
export interface UnitOutcome {
  /** A failure to count: a property failed or exercised nothing, a mutant survived, a rule went uncaught. */
  readonly failed: boolean;
  /** Runs the unit took, when it has runs (fuzz). */
  readonly runs?: number;
}

export interface Progress {
  /** A unit of work starts (named on the bar as running now). */
  begin(label: string): void;
  /** Live: `runs` runs of the running unit `label` have started so far. */
  runs(label: string, runs: number): void;
  /**
   * A unit finished: its one-line summary (null: none, the command prints its report at the end) is
   * printed now without a bar, or once the bar is gone.
   */
  done(label: string, line: string | null, outcome: UnitOutcome): void;
  /** Removes the bar and prints the summaries it held back. */
  finish(): void;
}

export interface ProgressOptions {
  readonly json: boolean;
  /** The command, first on the bar. */
  readonly noun: string;
  /** What a unit is, plural ('properties', 'mutants', 'rules'). */
  readonly units: string;
  /** What a failure is called ('failed', 'survived', 'not caught'). */
  readonly failure: string;
  /** Whether the units have runs to count (fuzz, mutants, ablate: yes). */
  readonly countsRuns: boolean;
}

/** What the bar shows beside its bar and count. */
export interface ProgressState {
  readonly runsDone: number;
  readonly failures: number;
  /** Units running now, in the order they started. */
  readonly running: readonly string[];
}

/** Labels on the bar at most; more running units show as "+N". */
const RUNNING_SHOWN = 3;

/** The bar's status text: runs done, failures so far, what runs now (`·`-separated). */
export function progressStatus(state: ProgressState, options: ProgressOptions): string {
  const parts: string[] = [];
  if (options.countsRuns)
    parts.push(`${state.runsDone.toLocaleString('en-US')} ${state.runsDone === 1 ? 'run' : 'runs'}`);
  parts.push(`${state.failures} ${options.failure}`);
  if (state.running.length > 0) {
    const shown = state.running.slice(0, RUNNING_SHOWN).join(', ');
    const more = state.running.length - RUNNING_SHOWN;
    parts.push(`now ${shown}${more > 0 ? ` +${more}` : ''}`);
  }
  return parts.join(' · ');
}

export function startProgress(io: Io, total: number, options: ProgressOptions): Progress {
  const stream = io.progressStream;
  if (!stream || total === 0) {
    return {
      begin: () => {},
      runs: () => {},
      done: (_label, line) => {
        if (!options.json && line !== null) io.out(line);
      },
      finish: () => {},
    };
  }
  const held: string[] = [];
  /** Runs of the finished units, and the live count of each running one. */
  let finishedRuns = 0;
  let failures = 0;
  const running = new Map<string, number>();
  const status = () =>
    progressStatus(
      {
        runsDone: finishedRuns + [...running.values()].reduce((a, b) => a + b, 0),
        failures,
        running: [...running.keys()],
      },
      options,
    );
  // Required when a bar is drawn (a terminal), not at every CLI's start.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${options.noun} {bar} {value}/{total} ${options.units} · {status} · {duration_formatted}`,
      clearOnComplete: true,
      hideCursor: true,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { status: status() });
  return {
    begin: (label) => {
      running.set(label, 0);
      bar.update({ status: status() });
      bar.render();
    },
    runs: (label, runs) => {
      if (!running.has(label) || running.get(label) === runs) return;
      running.set(label, runs);
      bar.update({ status: status() });
    },
    done: (label, line, outcome) => {
      running.delete(label);
      finishedRuns += outcome.runs ?? 0;
      if (outcome.failed) failures++;
      if (line !== null) held.push(line);
      bar.increment({ status: status() });
    },
    finish: () => {
      bar.stop();
      if (!options.json) for (const line of held) io.out(line);
    },
  };
}
