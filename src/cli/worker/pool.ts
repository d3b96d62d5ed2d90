/**
 * The CLI's side of its worker threads, with the watchdog. A job runs in a worker; while it runs, the
 * worker bumps a shared counter as each run of a campaign starts. If the counter stands still for
 * longer than the watchdog's budget — one run took that long of wall time: a thread blocked by a
 * synchronous loop, or work far too slow — the worker is terminated and the job ends `hung`, naming
 * the run. A worker that dies (an uncaught error in user code, `process.exit`) ends its job the
 * same way. Either way the CLI keeps control and says what happened; nothing hangs, nothing ends
 * silently.
 *
 * Plain `node:worker_threads`: a pool library would add queueing we do not need and hide the one
 * thing we do — terminating exactly the worker whose run stopped, while reading its heartbeat.
 * Wall-clock time is allowed here (src/cli); it decides only when to give up, never a verdict.
 */
import { Worker } from 'node:worker_threads';
import { CliError } from '../../harness/errors.ts';
import { ownCodeWorker } from './bundle.ts';
import { cliThreadWatchdog } from './cli-watchdog.ts';
import { errorMessage, ModuleCache, runJob } from './jobs.ts';
import type { Job, SharedJobs, WorkerMessage } from './protocol.ts';
import {
  type JobStat,
  poolStatsFile,
  processThreads,
  startJobStat,
  type WorkerStat,
  wallMs,
  writePoolStats,
} from './telemetry.ts';

const BOOT = new URL('./boot.mjs', import.meta.url);
/** How often the watchdog looks at the heartbeat. */
const TICK_MS = 100;
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
  /** Scenario and trace events a watched run streams. */
  readonly onMessage?: (message: WorkerMessage) => void;
  /** How many runs of the job have started, as the count grows (a progress bar's live count). */
  readonly onRuns?: (runsStarted: number) => void;
}

/** Where jobs run: a worker thread under the watchdog, or the CLI's own thread. */
export interface Host {
  /** Resolves when the host takes a job at once (a worker thread has loaded cetp-sim), or died trying. */
  ready(): Promise<void>;
  run<T>(job: Job, watch: JobWatch): Promise<JobEnd<T>>;
  close(): Promise<void>;
}

/**
 * Jobs in the CLI's own thread: only for cetp-sim's own code (no user module), when one thread was
 * asked for — there is nothing to guard against, and no worker to start. Same jobs, same results.
 */
export class InProcessHost implements Host {
  private readonly modules = new ModuleCache();

  async ready(): Promise<void> {}

  async run<T>(job: Job, watch: JobWatch): Promise<JobEnd<T>> {
    try {
      const ended = await cliThreadWatchdog().watch(
        job.kind,
        { budgetMs: watch.budgetMs, startupMs: watch.startupMs ?? STARTUP_MS },
        (beat) =>
          runJob(this.modules, job, {
            started: (runs: number) => {
              beat(runs);
              watch.onRuns?.(runs);
            },
            post: (m: WorkerMessage) => watch.onMessage?.(m),
          }),
      );
      if ('hung' in ended) return { kind: 'hung', ...ended.hung };
      return { kind: 'done', result: ended.value as T };
    } catch (error) {
      const message = errorMessage(error);
      throw new CliError(message.code, message.message, message.exit);
    }
  }

  async close(): Promise<void> {}
}

/**
 * A host for a command's jobs: a worker thread whenever user code runs, or more than one is wanted.
 * `entry` is the worker's first module: tsx's boot (the default, needed for user modules) or the
 * bundle of cetp-sim's own code (bundle.ts), which starts without compiling anything.
 */
export function hostFor(userCode: boolean, threads: number, entry: URL = BOOT): Host {
  return userCode || threads > 1 ? new WorkerHost(entry) : new InProcessHost();
}

/** The entry for workers of `spread`: the bundle of cetp-sim's own code unless user code runs. */
async function entryFor(userCode: boolean, threads: number): Promise<URL> {
  if (userCode || threads <= 1) return BOOT;
  return (await ownCodeWorker()) ?? BOOT;
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
}

/**
 * Runs `items` on up to `workers` threads; the results come back in item order. Which thread runs an
 * item depends on timing; nothing else does: every item is a job of its own (seeded by itself).
 *
 * - One thread and no user code: the CLI's own thread.
 * - User code: worker threads only, each under the watchdog, each taking the next item once it is
 *   loaded and free (the CLI's thread must stay free to watch them).
 * - cetp-sim's own code on more than one thread: `runShared` — the CLI's thread and `workers − 1`
 *   worker threads take the items from one shared counter.
 */
export async function runSpread<T, R>(items: readonly T[], spread: Spread<T, R>): Promise<R[]> {
  const slots = Math.max(1, Math.min(spread.workers, items.length));
  if (!spread.userCode && slots > 1) return runShared(items, spread, slots);
  const entry = await entryFor(spread.userCode, slots);
  const hosts = Array.from({ length: slots }, () => hostFor(spread.userCode, slots, entry));
  const results: { value: R }[] = [];
  let next = 0;
  let reported = 0;
  const report = () => {
    for (let done = results[reported]; done !== undefined; done = results[reported]) {
      spread.onResult?.(done.value, items[reported] as T);
      reported++;
    }
  };
  // A host still starting when every item is taken has nothing to wait for.
  let allTaken = () => {};
  const taken = new Promise<void>((resolve) => {
    allTaken = resolve;
  });
  // The stats of the CLI's own thread (one thread, own code); worker hosts here are not timed.
  const stats = poolStatsFile() !== null && !spread.userCode ? new StatsLog('spread', slots) : null;
  const serve = async (host: Host) => {
    await Promise.race([host.ready(), taken]);
    for (let i = next++; i < items.length; i = next++) {
      if (i === items.length - 1) allTaken();
      const item = items[i] as T;
      spread.onStart?.(item);
      const stat = stats ? startJobStat(i, 'cli') : null;
      results[i] = { value: await spread.run(host, item) };
      if (stat) stats?.jobs.push(stat());
      report();
    }
  };
  try {
    await Promise.all(hosts.map(serve));
    stats?.write();
  } finally {
    await Promise.all(hosts.map((h) => h.close()));
  }
  return results.map((r) => r.value);
}

/**
 * One item's host in `runShared`: its first `run` records the job, which some thread answers later;
 * a later `run` (a hung run watched again, say) goes to a fresh worker of its own.
 */
class SharedSlot implements Host {
  job: Job | null = null;
  watch: JobWatch = { budgetMs: STARTUP_MS };
  settled = false;
  readonly end: Promise<JobEnd<unknown>>;
  private resolveEnd: (end: JobEnd<unknown>) => void = () => {};
  private rejectEnd: (error: Error) => void = () => {};
  private spare: WorkerHost | null = null;

  constructor(private readonly entry: URL) {
    this.end = new Promise((resolve, reject) => {
      this.resolveEnd = resolve;
      this.rejectEnd = reject;
    });
    this.end.catch(() => {});
  }

  async ready(): Promise<void> {}

  run<T>(job: Job, watch: JobWatch): Promise<JobEnd<T>> {
    if (this.job !== null) {
      this.spare ??= new WorkerHost(this.entry);
      return this.spare.run<T>(job, watch);
    }
    this.job = job;
    this.watch = watch;
    return this.end as Promise<JobEnd<T>>;
  }

  settle(end: JobEnd<unknown> | CliError): void {
    if (this.settled) return;
    this.settled = true;
    if (end instanceof CliError) this.rejectEnd(end);
    else this.resolveEnd(end);
  }

  async close(): Promise<void> {
    await this.spare?.close();
  }
}

/**
 * cetp-sim's own code on `threads` threads: the CLI's thread and `threads − 1` worker threads (from
 * the bundle) take the items' jobs from one shared counter, so no thread waits for another to hand it
 * work — the CLI's thread, busy with a job, could not (its campaigns await only settled promises).
 * Each item's `run` is called at once with a SharedSlot, which records its job; every job is then in
 * the list the workers get before they start. A worker is watched as WorkerHost watches its job
 * (its heartbeat says which job it is on); one that hangs or dies ends that job `hung`, and the
 * others take the rest. Results are reported in item order.
 */
async function runShared<T, R>(items: readonly T[], spread: Spread<T, R>, threads: number): Promise<R[]> {
  const entry = await entryFor(false, threads);
  const slots = items.map(() => new SharedSlot(entry));
  const outcomes = items.map((item, i) => spread.run(slots[i] as SharedSlot, item));
  for (const outcome of outcomes) outcome.catch(() => {});
  const jobs = slots.map((slot, i) => {
    if (slot.job === null) throw new Error(`item ${i} did not ask for its job at once`);
    return slot.job;
  });
  const shared: SharedJobs = { kind: 'shared', jobs, counter: new SharedArrayBuffer(4) };
  const here = spread.cliThreadWorks ?? true;
  const stats = poolStatsFile() !== null ? new StatsLog(jobs[0]?.kind ?? 'none', threads) : null;
  const workers = Array.from(
    { length: here ? threads - 1 : threads },
    () => new SharedWorker(entry, shared, slots, stats),
  );
  try {
    if (here) await runSharedHere(shared, slots, (i) => spread.onStart?.(items[i] as T), stats);
    const results: R[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const result = await outcome;
      results.push(result);
      spread.onResult?.(result, items[i] as T);
    }
    if (stats) {
      // A worker that took a job says it is done right after its last result.
      await Promise.all(workers.filter((w) => w.tookJob).map((w) => w.done));
      for (const w of workers) w.reportIfSilent();
      stats.write();
    }
    return results;
  } finally {
    await Promise.all([...workers.map((w) => w.close()), ...slots.map((s) => s.close())]);
  }
}

/** What a spread's threads did, written at its end when CETP_SIM_POOL_STATS asks for it (telemetry.ts). */
class StatsLog {
  readonly startMs = wallMs();
  readonly jobs: JobStat[] = [];
  readonly workers: WorkerStat[] = [];

  constructor(
    private readonly command: string,
    private readonly threads: number,
  ) {}

  write(): void {
    writePoolStats({
      command: this.command,
      threads: this.threads,
      startMs: this.startMs,
      endMs: wallMs(),
      jobs: [...this.jobs].sort((a, b) => a.index - b.index),
      workers: this.workers,
      processThreads: processThreads(
        new Map(this.workers.flatMap((w) => (w.tid === null ? [] : [[w.tid, w.thread] as const]))),
      ),
    });
  }
}

/** The CLI's thread's share of `runShared`: takes indices until none is left. */
async function runSharedHere(
  shared: SharedJobs,
  slots: readonly SharedSlot[],
  onStart: (index: number) => void,
  stats: StatsLog | null,
): Promise<void> {
  const modules = new ModuleCache();
  const counter = new Int32Array(shared.counter);
  for (let i = Atomics.add(counter, 0, 1); i < shared.jobs.length; i = Atomics.add(counter, 0, 1)) {
    const slot = slots[i] as SharedSlot;
    onStart(i);
    const channel = {
      started: (runs: number) => slot.watch.onRuns?.(runs),
      post: (m: WorkerMessage) => slot.watch.onMessage?.(m),
    };
    const started = performance.now();
    const stat = stats ? startJobStat(i, 'cli') : null;
    const job = shared.jobs[i] as Job;
    try {
      const ended = await cliThreadWatchdog().watch(
        job.kind,
        { budgetMs: slot.watch.budgetMs, startupMs: slot.watch.startupMs ?? STARTUP_MS },
        (beat) =>
          runJob(modules, job, {
            started: (runs: number) => {
              beat(runs);
              channel.started(runs);
            },
            post: channel.post,
          }),
      );
      if (stat) stats?.jobs.push(stat());
      if ('hung' in ended) slot.settle({ kind: 'hung', ...ended.hung });
      else slot.settle({ kind: 'done', result: ended.value, ms: performance.now() - started });
    } catch (error) {
      const message = errorMessage(error);
      slot.settle(new CliError(message.code, message.message, message.exit));
    }
  }
}

/** A worker thread of `runShared`, under the watchdog. */
class SharedWorker {
  private readonly worker: Worker;
  private readonly heartbeat = new Int32Array(new SharedArrayBuffer(8));
  private readonly timer: ReturnType<typeof setInterval>;
  private watched = -1;
  private seen = 0;
  private lastChange = Date.now();
  private ended = false;
  private readonly spawnMs = wallMs();
  private reported = false;
  private markDone: () => void = () => {};
  /** Resolves once the worker has said it is done, or has ended otherwise. */
  readonly done = new Promise<void>((resolve) => {
    this.markDone = resolve;
  });

  /** Whether it ever took a job from the counter. */
  get tookJob(): boolean {
    return Atomics.load(this.heartbeat, 1) >= 0;
  }

  constructor(
    entry: URL,
    shared: SharedJobs,
    private readonly slots: readonly SharedSlot[],
    private readonly stats: StatsLog | null = null,
  ) {
    Atomics.store(this.heartbeat, 1, -1);
    const worker = new Worker(entry, {
      workerData: { heartbeat: this.heartbeat.buffer },
      stdout: true,
      stderr: true,
    });
    worker.stdout.pipe(process.stderr, { end: false });
    worker.stderr.pipe(process.stderr, { end: false });
    // Queued until the worker listens: it starts on the jobs as soon as it has loaded.
    worker.postMessage(shared);
    worker.on('message', (message: WorkerMessage) => this.onMessage(message));
    worker.once('error', (error: Error) => this.hung(`its thread died: ${error.message.split('\n')[0]}`));
    worker.once('exit', (code: number) =>
      this.hung(`its thread exited with code ${code} (process.exit or an uncaught error)`),
    );
    this.worker = worker;
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'result' && message.index !== undefined) {
      if (message.stat) this.stats?.jobs.push(message.stat);
      this.slots[message.index]?.settle({
        kind: 'done',
        result: message.result,
        ...(message.ms !== undefined ? { ms: message.ms } : {}),
      });
    } else if (message.type === 'error' && message.index !== undefined) {
      this.slots[message.index]?.settle(new CliError(message.code, message.message, message.exit));
    } else if (message.type === 'shared-done') {
      this.reported = true;
      this.stats?.workers.push({
        thread: `worker ${this.worker.threadId}`,
        spawnMs: this.spawnMs,
        firstJobMs: message.firstJobMs ?? null,
        doneMs: wallMs(),
        cpuMs: message.clock?.cpuMs ?? null,
        waitMs: message.clock?.waitMs ?? null,
        startupCpuMs: message.startupClock?.cpuMs ?? null,
        tid: message.tid ?? null,
      });
      this.end();
    } else if (message.type === 'scenario' || message.type === 'event') {
      this.slots[Atomics.load(this.heartbeat, 1)]?.watch.onMessage?.(message);
    }
  }

  private tick(): void {
    const index = Atomics.load(this.heartbeat, 1);
    const slot = this.slots[index];
    if (slot === undefined || slot.settled) return;
    const now = Date.now();
    const count = Atomics.load(this.heartbeat, 0);
    if (index !== this.watched || count !== this.seen) {
      this.watched = index;
      this.seen = count;
      this.lastChange = now;
      if (count > 0) slot.watch.onRuns?.(count);
      return;
    }
    const startupMs = Math.max(slot.watch.startupMs ?? STARTUP_MS, slot.watch.budgetMs);
    if (now - this.lastChange > (count === 0 ? startupMs : slot.watch.budgetMs))
      this.hung(
        count === 0
          ? `the worker did not even start the first run within ${startupMs / 1000} s`
          : `it did not finish within the watchdog's ${slot.watch.budgetMs / 1000} s of wall time`,
      );
  }

  /** The job this worker is on (if any) ends `hung`; the other threads take the rest. */
  private hung(reason: string): void {
    if (this.ended) return;
    const index = Atomics.load(this.heartbeat, 1);
    const run = Math.max(0, Atomics.load(this.heartbeat, 0) - 1);
    this.slots[index]?.settle({ kind: 'hung', run, reason });
    this.end();
  }

  /** For the stats: a worker that never reported (still loading when the spread ended). */
  reportIfSilent(): void {
    if (this.reported) return;
    this.reported = true;
    this.stats?.workers.push({
      thread: `worker ${this.worker.threadId}`,
      spawnMs: this.spawnMs,
      firstJobMs: null,
      doneMs: null,
      cpuMs: null,
      waitMs: null,
      startupCpuMs: null,
      tid: null,
    });
  }

  private end(): void {
    this.markDone();
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    void this.worker.terminate();
  }

  async close(): Promise<void> {
    this.markDone();
    this.ended = true;
    clearInterval(this.timer);
    await this.worker.terminate();
  }
}

/** A job of cetp-sim's own code that must finish: one that hung is an internal error (exit 3). */
export async function mustFinish<T>(host: Host, job: Job, budgetMs: number): Promise<T> {
  const end = await host.run<T>(job, { budgetMs });
  if (end.kind === 'hung')
    throw new CliError('job_hung', `the ${job.kind} job never finished: ${end.reason}`, 3);
  return end.result;
}

/** One worker thread, started on first use and again after a watchdog ended it. */
export class WorkerHost implements Host {
  private worker: Worker | null = null;

  /** `entry`: tsx's boot (default; user modules need it) or the bundle of cetp-sim's own code. */
  constructor(private readonly entry: URL = BOOT) {}

  private heartbeat = new Int32Array(new SharedArrayBuffer(4));
  private loaded: Promise<void> = Promise.resolve();

  ready(): Promise<void> {
    if (!this.worker) this.start();
    return this.loaded;
  }

  private start(): Worker {
    this.heartbeat = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(this.entry, {
      workerData: { heartbeat: this.heartbeat.buffer },
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
        } else if (now - lastChange > (count === 0 ? startupMs : watch.budgetMs)) {
          hung(
            count === 0
              ? `the worker did not even start the first run within ${startupMs / 1000} s (loading the module, or the module's top level, never finished)`
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
