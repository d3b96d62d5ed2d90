/**
 * Where a job runs, watched: a worker thread (WorkerHost) under the watchdog — while a job runs, the
 * worker bumps a shared counter as each run of a campaign starts; if the counter stands still for
 * longer than the watchdog's budget (a thread blocked by a synchronous loop, or work far too slow)
 * the worker is terminated and the job ends `hung`, naming the run; a worker that dies (an uncaught
 * error in user code, `process.exit`) ends its job the same way — or the CLI's own thread
 * (InProcessHost, pool.ts), watched by cli-watchdog.ts. Either way the CLI keeps control.
 *
 * Plain `node:worker_threads`: a pool library would add queueing we do not need and hide the one
 * thing we do — terminating exactly the worker whose run stopped, while reading its heartbeat.
 * Wall-clock time is allowed here (src/cli); it decides only when to give up, never a verdict.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { CliError } from '../../harness/errors.ts';
import { ownCodeWorker, userCodeBundle } from './bundle.ts';
import type { Job, WorkerMessage } from './protocol.ts';

export const BOOT = new URL('./boot.mjs', import.meta.url);
/** How often the watchdog looks at the heartbeat. */
export const TICK_MS = 100;
/** See JobWatch.startupMs. */
export const STARTUP_MS = 60_000;

/** How a job ended: its answer, or the run (numbered from 0) that never finished, and why. */
export type JobEnd<T> =
  /** `ms`: the job's own wall time where it ran, when the host measured it (shared jobs). */
  | { readonly kind: 'done'; readonly result: T; readonly ms?: number }
  | { readonly kind: 'hung'; readonly run: number; readonly reason: string };

export interface JobWatch {
  /** Wall-clock ms one run (or a job without runs) may take. */
  readonly budgetMs: number;
  /**
   * Wall-clock ms before the first run starts: starting a worker and loading cetp-sim and the user's
   * modules (compiled on the fly) takes seconds on a busy machine. Default STARTUP_MS, or the budget
   * if that is longer.
   */
  readonly startupMs?: number;
  /**
   * The run (numbered from 0) the watch is for: the runs before it get the start-up allowance, not
   * the budget. A diagnosis re-runs a hung property's runs in a fresh worker, on cold code, to reach
   * the one that hung; only that one is held to the (short) budget.
   */
  readonly watchedRun?: number;
  /** Scenario and trace events a watched run streams. */
  readonly onMessage?: (message: WorkerMessage) => void;
  /** How many runs of the job have started, as the count grows (a progress bar's live count). */
  readonly onRuns?: (runsStarted: number) => void;
  /**
   * The job runs only the user code the thread's next job would run first, in the same order (a
   * load job without a variant: import, install(), list_tools — kept by the worker's ModuleCache), so
   * it does not make that next job any less the thread's first (`lastJobFresh`).
   */
  readonly prelude?: boolean;
}

/** Where jobs run: a worker thread under the watchdog, or the CLI's own thread. */
export interface Host {
  /** Resolves when the host takes a job at once (a worker thread has loaded cetp-sim), or died trying. */
  ready(): Promise<void>;
  run<T>(job: Job, watch: JobWatch): Promise<JobEnd<T>>;
  close(): Promise<void>;
  /**
   * Whether the last job posted was the first its worker thread ran: user modules it loaded were
   * fresh instances, nothing of theirs ran before it (absent: never, as in the CLI's thread).
   */
  readonly lastJobFresh?: boolean;
}

/** How a command spreads its items (properties, planted bugs, rules, vector files) over hosts. */
export interface Spread<T, R> {
  readonly workers: number;
  /** Whether the jobs run user code (then always in worker threads, under the watchdog). */
  readonly userCode: boolean;
  readonly run: (host: Host, item: T) => Promise<R>;
  readonly onStart?: (item: T) => void;
  /** Each result, in item order, as soon as it and every one before it are in. */
  readonly onResult?: (result: R, item: T) => void;
  /**
   * Own code on more than one thread: whether the CLI's thread takes jobs too (default true). Tests
   * turn it off to have every job of a shared spread run in a worker thread.
   */
  readonly cliThreadWorks?: boolean;
  /** A host of the kind the first slot needs, already started (user code: loadModulesAhead). */
  readonly started?: Host;
}

/** The entry for workers of `spread`: the bundle of cetp-sim's own code unless user code runs. */
export async function entryFor(userCode: boolean, threads: number): Promise<URL> {
  if (userCode) await userCodeBundle();
  if (userCode || threads <= 1) return BOOT;
  return (await ownCodeWorker()) ?? BOOT;
}

/** A job of cetp-sim's own code that must finish: one that hung is an internal error (exit 3). */
export async function mustFinish<T>(host: Host, job: Job, budgetMs: number): Promise<T> {
  const end = await host.run<T>(job, { budgetMs });
  if (end.kind === 'hung')
    throw new CliError('job_hung', `the ${job.kind} job never finished: ${end.reason}`, 3);
  return end.result;
}

const MB = 1024 * 1024;
/** No worker is capped below this: loading cetp-sim and a user's modules takes ~100 MB. */
export const MIN_WORKER_HEAP_MB = 256;

/**
 * The old-generation heap a worker thread may grow to when `threads` of them run at once, in MB, or
 * null to keep V8's default. V8 gives every isolate the same default limit (4 GB on a 24 GB host, or
 * what NODE_OPTIONS' --max-old-space-size says), so workers running a module that allocates without
 * bound could together ask for more than the machine has: the kernel would then kill the whole CLI
 * (exit 137, no report, no replay). Capped so that all of them stay within half the machine's memory,
 * a worker instead dies of its own limit and the CLI says so (ERR_WORKER_OUT_OF_MEMORY: the job's
 * module failed to load, or its property fails with a replay). Never above the default.
 */
export function workerHeapLimitMb(
  threads: number,
  totalBytes: number = totalmem(),
  defaultBytes: number = getHeapStatistics().heap_size_limit,
): number | null {
  const share = Math.max(MIN_WORKER_HEAP_MB, Math.floor(totalBytes / 2 / Math.max(1, threads) / MB));
  return share * MB < defaultBytes ? share : null;
}

/** One worker thread, started on first use and again after a watchdog ended it. */
export class WorkerHost implements Host {
  private worker: Worker | null = null;
  private readonly heapLimitMb: number | null;

  /**
   * `entry`: tsx's boot (default; user modules need it) or the bundle of cetp-sim's own code.
   * `threads`: how many workers run at once, for the heap each may take (workerHeapLimitMb).
   */
  constructor(
    private readonly entry: URL = BOOT,
    threads = 1,
  ) {
    this.heapLimitMb = workerHeapLimitMb(threads);
  }

  private heartbeat = new Int32Array(new SharedArrayBuffer(4));
  /** Jobs posted to the current worker thread (a new thread starts at 0). */
  private posted = 0;
  private freshJob = false;

  get lastJobFresh(): boolean {
    return this.freshJob;
  }

  private loaded: Promise<void> = Promise.resolve();

  ready(): Promise<void> {
    if (!this.worker) this.start();
    return this.loaded;
  }

  private start(): Worker {
    this.heartbeat = new Int32Array(new SharedArrayBuffer(4));
    this.posted = 0;
    const worker = new Worker(this.entry, {
      workerData: { heartbeat: this.heartbeat.buffer },
      ...(this.heapLimitMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.heapLimitMb } }),
      // What user code prints goes to stderr: stdout is the CLI's (and may be --json).
      stdout: true,
      stderr: true,
    });
    worker.stdout.pipe(process.stderr, { end: false });
    worker.stderr.pipe(process.stderr, { end: false });
    this.worker = worker;
    // Referenced while it loads (the CLI waits for it), then only while it runs a job.
    this.loaded = new Promise<void>((resolve) => {
      const onMessage = (message: WorkerMessage) => {
        if (message.type !== 'ready') return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', () => resolve());
      worker.once('exit', () => resolve());
    }).finally(() => worker.unref());
    return worker;
  }

  run<T>(job: Job, watch: JobWatch): Promise<JobEnd<T>> {
    const worker = this.worker ?? this.start();
    const heartbeat = this.heartbeat;
    this.freshJob = this.posted === 0;
    if (watch.prelude !== true) this.posted++;
    Atomics.store(heartbeat, 0, 0);
    const startupMs = Math.max(watch.startupMs ?? STARTUP_MS, watch.budgetMs);
    return new Promise<JobEnd<T>>((resolve, reject) => {
      let seen = 0;
      let lastChange = Date.now();
      const finish = (end: () => void) => {
        clearInterval(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        end();
      };
      const hung = (reason: string) => {
        const run = Math.max(0, Atomics.load(heartbeat, 0) - 1);
        this.worker = null;
        void worker.terminate();
        finish(() => resolve({ kind: 'hung', run, reason }));
      };
      const timer = setInterval(() => {
        const now = Date.now();
        const count = Atomics.load(heartbeat, 0);
        if (count !== seen) {
          seen = count;
          lastChange = now;
          watch.onRuns?.(count);
        } else if (now - lastChange > (count <= (watch.watchedRun ?? 0) ? startupMs : watch.budgetMs)) {
          hung(
            count === 0
              ? `the worker did not even start the first run within ${startupMs / 1000} s (loading the module, or the module's top level, never finished)`
              : count <= (watch.watchedRun ?? 0)
                ? `it did not finish within the start-up allowance of ${startupMs / 1000} s of wall time`
                : `it did not finish within the watchdog's ${watch.budgetMs / 1000} s of wall time`,
          );
        }
      }, TICK_MS);
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'ready') return;
        if (message.type === 'result') finish(() => resolve({ kind: 'done', result: message.result as T }));
        else if (message.type === 'error')
          finish(() => reject(new CliError(message.code, message.message, message.exit)));
        else watch.onMessage?.(message);
      };
      const onError = (error: Error) => {
        this.worker = null;
        hung(`its thread died: ${error.message.split('\n')[0]}`);
      };
      const onExit = (code: number) => {
        this.worker = null;
        hung(`its thread exited with code ${code} (process.exit or an uncaught error in the module)`);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref();
      worker.postMessage(job);
    }).finally(() => this.worker?.unref());
  }

  /** Ends the worker (the CLI is done with it). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
