/**
 * cetp-sim's own code on more than one thread (pool.ts `runSpread`): the CLI's thread and worker
 * threads from the bundle take the items' jobs from one shared counter (see runShared), each worker
 * under the watchdog, the CLI's thread under cli-watchdog.ts; with CETP_SIM_POOL_STATS, what each
 * thread did (telemetry.ts).
 */
import { Worker } from 'node:worker_threads';
import { CliError } from '../../harness/errors.ts';
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
import {
  entryFor,
  type Host,
  type JobEnd,
  type JobWatch,
  type Spread,
  STARTUP_MS,
  TICK_MS,
  WorkerHost,
} from './worker-host.ts';

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
export async function runShared<T, R>(
  items: readonly T[],
  spread: Spread<T, R>,
  threads: number,
): Promise<R[]> {
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
    // The CLI's thread takes jobs while it reports results: each result line comes out as soon as it
    // and every one before it are in, and a signal is handled between two jobs, not after the last.
    const hereDone = here
      ? runSharedHere(shared, slots, (i) => spread.onStart?.(items[i] as T), stats)
      : Promise.resolve();
    hereDone.catch(() => {});
    const results: R[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const result = await outcome;
      results.push(result);
      spread.onResult?.(result, items[i] as T);
    }
    await hereDone;
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
export class StatsLog {
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
    // Let the event loop turn between jobs: results, worker messages and signals wait for no more
    // than one job of this thread.
    await new Promise((resolve) => setImmediate(resolve));
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
    // Before the watched run (JobWatch.watchedRun), every run has the start-up allowance.
    const early = count <= (slot.watch.watchedRun ?? 0);
    if (now - this.lastChange > (early ? startupMs : slot.watch.budgetMs))
      this.hung(
        count === 0
          ? `the worker did not even start the first run within ${startupMs / 1000} s`
          : early
            ? `it did not finish within the start-up allowance of ${startupMs / 1000} s of wall time`
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
