/**
 * What each thread of a spread command did, for the scaling benchmark (issue 18, part 2): when the
 * environment variable CETP_SIM_POOL_STATS names a file, the CLI writes there, at the end of each
 * spread, one JSON object per line (PoolStats): every job's thread, start and end (wall clock), its
 * thread's CPU time and run-queue wait while it ran, each worker's start-up (spawn to loaded, to its
 * first job), and the CPU time of every thread of the process at the end (the CLI's thread, V8's
 * helper threads: garbage collection, compilers). Figures that stay valid on a loaded host: CPU time
 * per thread is not inflated by waiting for a core, and the wait is measured beside it.
 *
 * CPU time per thread comes from Linux's /proc/thread-self/schedstat (on-CPU and run-queue
 * nanoseconds of the calling thread); where it is missing the figures are null. Nothing here
 * changes what a command prints or decides: the file is written only when asked for, and only
 * after the results are in. Wall-clock time is allowed here (src/cli).
 */
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export const POOL_STATS_ENV = 'CETP_SIM_POOL_STATS';

/** The file to append PoolStats to, or null (the default: no telemetry). */
export function poolStatsFile(): string | null {
  const file = process.env[POOL_STATS_ENV];
  return file === undefined || file === '' ? null : file;
}

/** On-CPU and run-queue time of the calling thread so far, ms. */
export interface ThreadClock {
  readonly cpuMs: number;
  readonly waitMs: number;
}

function parseSchedstat(text: string): ThreadClock | null {
  const [run, wait] = text.split(' ');
  const cpu = Number(run);
  const queued = Number(wait);
  return Number.isFinite(cpu) && Number.isFinite(queued) ? { cpuMs: cpu / 1e6, waitMs: queued / 1e6 } : null;
}

/** The calling thread's clock (synchronous reads run on the calling thread), or null off Linux. */
export function threadClock(): ThreadClock | null {
  try {
    return parseSchedstat(readFileSync('/proc/thread-self/schedstat', 'utf8'));
  } catch {
    return null;
  }
}

/** Wall clock shared by every thread of the process (performance.now() has an origin per thread). */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/** One job, where and when it ran. */
export interface JobStat {
  readonly index: number;
  /** 'cli' or 'worker N'. */
  readonly thread: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly cpuMs: number | null;
  readonly waitMs: number | null;
}

/** A worker thread's life: spawned, loaded (its first job taken), done; its own CPU time. */
export interface WorkerStat {
  readonly thread: string;
  readonly spawnMs: number;
  /** When it took its first job (or found none left); null if it never got that far. */
  readonly firstJobMs: number | null;
  readonly doneMs: number | null;
  /** CPU time and run-queue wait of the worker's thread at its end (start-up included). */
  readonly cpuMs: number | null;
  readonly waitMs: number | null;
  /** CPU time spent before its first job: loading the bundle, compiling. */
  readonly startupCpuMs: number | null;
  /** Its Linux task id (to tell it from V8's helper threads in processThreads). */
  readonly tid: number | null;
}

export interface PoolStats {
  readonly command: string;
  readonly threads: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly jobs: readonly JobStat[];
  readonly workers: readonly WorkerStat[];
  /** Every thread of the process still alive at the end — 'main', then by name (comm) — with its CPU time. */
  readonly processThreads: readonly {
    readonly name: string;
    readonly cpuMs: number;
    readonly waitMs: number;
  }[];
}

/** The calling thread's Linux task id, or null. */
export function threadTid(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isSafeInteger(tid) ? tid : null;
  } catch {
    return null;
  }
}

/**
 * CPU time of each live thread of this process (Linux): 'main', the worker threads named in
 * `workers` (by task id), and the rest by their name — V8's helper threads (garbage collection,
 * compilers) and libuv's pool share the process's name.
 */
export function processThreads(
  workers: ReadonlyMap<number, string> = new Map(),
): PoolStats['processThreads'] {
  try {
    return readdirSync('/proc/self/task').flatMap((tid) => {
      try {
        const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
        const name = Number(tid) === process.pid ? 'main' : (workers.get(Number(tid)) ?? comm);
        const clock = parseSchedstat(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8'));
        return clock ? [{ name, cpuMs: Math.round(clock.cpuMs), waitMs: Math.round(clock.waitMs) }] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** Times one job on the calling thread. */
export function startJobStat(index: number, thread: string): () => JobStat {
  const startMs = wallMs();
  const before = threadClock();
  return () => {
    const after = threadClock();
    return {
      index,
      thread,
      startMs,
      endMs: wallMs(),
      cpuMs: before && after ? after.cpuMs - before.cpuMs : null,
      waitMs: before && after ? after.waitMs - before.waitMs : null,
    };
  };
}

/** Appends one spread's stats to the file named by CETP_SIM_POOL_STATS (if any). */
export function writePoolStats(stats: PoolStats): void {
  const file = poolStatsFile();
  if (file === null) return;
  appendFileSync(file, `${JSON.stringify(stats)}\n`);
}
