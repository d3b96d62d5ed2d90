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
import { CliError } from '../../harness/errors.ts';
import { cliThreadWatchdog } from './cli-watchdog.ts';
import { errorMessage, ModuleCache, runJob } from './jobs.ts';
import type { Job, WorkerMessage } from './protocol.ts';
import { runShared, StatsLog } from './shared.ts';
import { poolStatsFile, startJobStat } from './telemetry.ts';
import {
  BOOT,
  entryFor,
  type Host,
  type JobEnd,
  type JobWatch,
  type Spread,
  STARTUP_MS,
  WorkerHost,
} from './worker-host.ts';

export {
  type Host,
  type JobEnd,
  type JobWatch,
  mustFinish,
  type Spread,
  STARTUP_MS,
  WorkerHost,
} from './worker-host.ts';

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
  return userCode || threads > 1 ? new WorkerHost(entry, threads) : new InProcessHost();
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
  const hosts = Array.from(
    { length: slots },
    (_, i) => (i === 0 ? spread.started : undefined) ?? hostFor(spread.userCode, slots, entry),
  );
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
