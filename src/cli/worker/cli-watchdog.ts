/**
 * The watchdog of jobs on the CLI's own thread (cetp-sim's own code: `--workers 1`, and the CLI's
 * share of a spread). A worker thread's job is watched from the CLI's thread (pool.ts); a job on the
 * CLI's thread needs another thread to watch it, since a thread blocked in a synchronous loop cannot
 * watch itself. So a small watcher thread (plain JavaScript, no module of ours) reads a heartbeat the
 * job bumps as each run starts, and if it stands still for longer than the job's budget:
 *
 * 1. it tells the CLI's thread, which — if its event loop still turns (a job awaiting something that
 *    never comes, with timers alive) — ends the job `hung`, like a worker's (mustFinish: exit 3);
 * 2. if the CLI's thread does not answer within GRACE_MS (a synchronous loop), the watcher writes the
 *    error to stderr itself and stops the thread's JavaScript (the inspector's terminateExecution);
 *    the process then exits with code 3.
 *
 * A job whose promise can never settle, with nothing else alive, would end the process silently
 * (Node's exit code 13, "unsettled top-level await"); the exit handler says which job it was and
 * exits with code 3. Wall-clock time is allowed here (src/cli): it decides only when to give up.
 */
import { Worker } from 'node:worker_threads';
import { caches } from '../../base/caches.ts';

/** How long the CLI's thread has to answer the watcher before its JavaScript is stopped. */
export const GRACE_MS = 1_000;
const EXIT_INTERNAL = 3;

/** Heartbeat slots (Int32). */
const RUNS = 0;
const STATE = 1; // 0 idle, 1 a job runs, 2 the watcher gave up on it
const BUDGET_MS = 2;
const STARTUP_MS = 3;
const GENERATION = 4;
const SLOTS = 5;

/** The watcher's code: polls the heartbeat; says `hung` to the CLI thread, then stops it if need be. */
const WATCHER = `
const { workerData, parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const beat = new Int32Array(workerData.heartbeat);
let seen = -1, gen = -1, since = Date.now(), told = 0;
const timer = setInterval(() => {
  const now = Date.now();
  if (Atomics.load(beat, ${STATE}) !== 1) { gen = -1; told = 0; return; }
  const runs = Atomics.load(beat, ${RUNS}), g = Atomics.load(beat, ${GENERATION});
  if (runs !== seen || g !== gen) { seen = runs; gen = g; since = now; told = 0; return; }
  const limit = runs === 0 ? Math.max(Atomics.load(beat, ${STARTUP_MS}), Atomics.load(beat, ${BUDGET_MS})) : Atomics.load(beat, ${BUDGET_MS});
  if (told === 0 && now - since > limit) { told = now; parentPort.postMessage({ runs, limitMs: limit }); return; }
  if (told !== 0 && now - told > ${GRACE_MS}) {
    Atomics.store(beat, ${STATE}, 2);
    writeSync(2, 'error job_hung: a job on the CLI\\'s thread did not finish' + (runs > 0 ? ' run ' + runs : ' starting') + ' within the watchdog\\'s ' + (limit / 1000) + ' s of wall time and its thread does not answer (a synchronous loop): stopped. This is a bug in cetp-sim.\\n');
    const { Session } = require('node:inspector');
    const session = new Session();
    session.connectToMainThread();
    session.post('Runtime.terminateExecution');
    clearInterval(timer);
  }
}, 100);
`;

export interface Hung {
  readonly run: number;
  readonly reason: string;
}

/** Watches the CLI's thread's jobs, one at a time. */
export class CliThreadWatchdog {
  private readonly beat = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private watcher: Worker | null = null;
  private job = '';
  private onHung: ((hung: Hung) => void) | null = null;

  private start(): void {
    if (this.watcher) return;
    const watcher = new Worker(WATCHER, {
      eval: true,
      // Plain JavaScript: no loader (a --import of the parent's would make it wait on the very thread it watches).
      execArgv: [],
      workerData: { heartbeat: this.beat.buffer },
    });
    watcher.on('message', (m: { runs: number; limitMs: number }) => {
      this.onHung?.({
        run: Math.max(0, m.runs - 1),
        reason:
          m.runs === 0
            ? `it did not even start its first run within ${m.limitMs / 1000} s`
            : `it did not finish within the watchdog's ${m.limitMs / 1000} s of wall time`,
      });
    });
    // Never what keeps the process alive (unref after the listener, which would ref it again).
    watcher.unref();
    process.once('exit', () => {
      const state = Atomics.load(this.beat, STATE);
      if (state === 2) process.exitCode = EXIT_INTERNAL;
      else if (state === 1) {
        process.stderr.write(
          `error job_hung: the ${this.job} job on the CLI's thread awaited something that can never happen (nothing was left to run). This is a bug in cetp-sim.\n`,
        );
        process.exitCode = EXIT_INTERNAL;
      }
    });
    this.watcher = watcher;
  }

  /**
   * Runs `job` under the watch: resolves with its value, or with `hung` when the watcher gave up on
   * it while the CLI's thread could still answer. `started` is the heartbeat to call as runs start.
   */
  async watch<T>(
    kind: string,
    limits: { readonly budgetMs: number; readonly startupMs: number },
    job: (started: (runs: number) => void) => Promise<T>,
  ): Promise<{ readonly value: T } | { readonly hung: Hung }> {
    this.start();
    this.job = kind;
    Atomics.store(this.beat, BUDGET_MS, Math.min(2 ** 31 - 1, limits.budgetMs));
    Atomics.store(this.beat, STARTUP_MS, Math.min(2 ** 31 - 1, Math.max(limits.startupMs, limits.budgetMs)));
    Atomics.store(this.beat, RUNS, 0);
    Atomics.add(this.beat, GENERATION, 1);
    Atomics.store(this.beat, STATE, 1);
    const hung = new Promise<{ hung: Hung }>((resolve) => {
      this.onHung = (h) => resolve({ hung: h });
    });
    try {
      return await Promise.race([
        job((runs) => Atomics.store(this.beat, RUNS, runs)).then((value) => ({ value })),
        hung,
      ]);
    } finally {
      this.onHung = null;
      Atomics.store(this.beat, STATE, 0);
    }
  }
}

/** The CLI's one watchdog (made on first use; its watcher thread starts with the first job). */
const instance = caches.lazy('cli/worker: the watchdog of the CLI thread', () => new CliThreadWatchdog());
export function cliThreadWatchdog(): CliThreadWatchdog {
  return instance.get();
}
