/**
 * Campaigns on every core (issue 18, part 2): what `--workers 2` buys over `--workers 1` on this
 * machine, side by side in one run, each command a fresh CLI process (`node bin/cetp-sim.js …`, as a
 * user runs it; `--workers 1` is the CLI's own thread, `--workers 2` the CLI's thread and one worker
 * thread taking jobs from one shared counter). Until 2026-12-03 the commands ran through `main` in
 * this process: its thread was warm (JIT-compiled by the runs before) while every worker started
 * cold, which measured the JIT more than the parallelism. Wall time from spawn to exit:
 *   - a `fuzz --time T` campaign over every property: total runs in the same wall-time budget
 *     (goal ≥ 1.8×); the wall time each took is recorded too (worker start-up is part of it);
 *   - `mutants` and `ablate` on a fixed selection: wall time (goal: ≥ 1.7× sooner).
 * The pairs alternate (1, 2, then 2, 1) so a host that speeds up or slows down mid-run is felt by
 * both sides. First, what one worker costs to start: booted through tsx (compiling cetp-sim's
 * sources in the thread; still how a worker that loads a user's module starts) against the bundle of
 * cetp-sim's own code (src/cli/worker/bundle.ts; own-code workers start from it), alternating, and
 * what building the bundle costs (once per CLI process). The host load (load average, and the host probe before and after) is recorded beside
 * the figures: on a shared 2-core VM other processes take cores the second worker would use.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkerSource, ownCodeWorker } from '../src/cli/worker/bundle.ts';
import { WorkerHost } from '../src/cli/worker/pool.ts';
import { type JobStat, POOL_STATS_ENV, type PoolStats } from '../src/cli/worker/telemetry.ts';
import { probeHost, QUIET_PROBE_RATE } from './host-probe.ts';

/** The fuzz campaign's wall-time budget, seconds; and a longer one, where the warm-up weighs less. */
const FUZZ_SECONDS = 20;
const FUZZ_LONG_SECONDS = 60;
/** A fixed selection: five planted bugs with the CLI's default budget. */
const MUTANT_IDS = [
  'dedup-check-then-insert',
  'deadline-after-effect',
  'v1-lists-write-tools',
  'dedup-ignores-args',
  'consumer-new-request-id-on-retry',
];
/** A fixed selection of ablated rules, 40 runs per property each. */
const ABLATE_RULES = ['CETP-2.1-06', 'CETP-4.3-05', 'CETP-4.5-05', 'CETP-4.5-06'];

export interface CliRun {
  readonly workers: number;
  readonly wallMs: number;
  readonly exit: number;
  /** fuzz: total runs over the properties. */
  readonly runs?: number;
  /** fuzz: runs per CPU-second of the threads that ran the jobs (job CPU only). */
  readonly runsPerJobCpuSecond?: number;
  readonly threads?: ThreadFigures;
}

const BIN = fileURLToPath(new URL('../bin/cetp-sim.js', import.meta.url));

/**
 * What the threads of one CLI run did (the CLI's CETP_SIM_POOL_STATS telemetry, src/cli/worker/
 * telemetry.ts): CPU time and run-queue wait per thread, which a loaded host does not distort the
 * way it distorts wall time, and what the second thread cost to start.
 */
export interface ThreadFigures {
  /** CPU ms of the jobs on the CLI's thread and on workers, and their run-queue wait. */
  readonly jobCpuMs: { readonly cli: number; readonly workers: number };
  readonly jobWaitMs: { readonly cli: number; readonly workers: number };
  /** Per worker: ms from spawn to its first job, and the CPU ms it spent before it. */
  readonly workerFirstJobMs: readonly (number | null)[];
  readonly workerStartupCpuMs: readonly (number | null)[];
  /** Wall ms each thread sat idle between its first job and the end of the spread. */
  readonly idleMs: Readonly<Record<string, number>>;
  /** CPU ms of the process's threads at the end: the main (CLI) thread, and V8's helpers (workers apart). */
  readonly mainThreadCpuMs: number;
  readonly helperThreadsCpuMs: number;
}

function threadFigures(file: string): ThreadFigures | undefined {
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const stats = JSON.parse(lines.at(-1) ?? '{}') as PoolStats;
  const sum = (pick: (j: JobStat) => number | null, cli: boolean) =>
    Math.round(
      stats.jobs.filter((j) => (j.thread === 'cli') === cli).reduce((s, j) => s + (pick(j) ?? 0), 0),
    );
  const idleMs: Record<string, number> = {};
  for (const thread of new Set(stats.jobs.map((j) => j.thread))) {
    const mine = stats.jobs.filter((j) => j.thread === thread);
    const busy = mine.reduce((s, j) => s + (j.endMs - j.startMs), 0);
    const from = Math.min(...mine.map((j) => j.startMs));
    idleMs[thread] = Math.round(stats.endMs - from - busy);
  }
  const main = stats.processThreads.find((t) => t.name === 'main')?.cpuMs ?? 0;
  // V8's helper threads: every thread of the process but the main thread and the workers.
  const all = stats.processThreads
    .filter((t) => !t.name.startsWith('worker '))
    .reduce((s, t) => s + t.cpuMs, 0);
  return {
    jobCpuMs: { cli: sum((j) => j.cpuMs, true), workers: sum((j) => j.cpuMs, false) },
    jobWaitMs: { cli: sum((j) => j.waitMs, true), workers: sum((j) => j.waitMs, false) },
    workerFirstJobMs: stats.workers.map((w) =>
      w.firstJobMs === null ? null : Math.round(w.firstJobMs - w.spawnMs),
    ),
    workerStartupCpuMs: stats.workers.map((w) =>
      w.startupCpuMs === null ? null : Math.round(w.startupCpuMs),
    ),
    idleMs,
    mainThreadCpuMs: main,
    helperThreadsCpuMs: all - main,
  };
}

/** The CLI in a process of its own; wall ms from spawn to exit, and its threads' telemetry. */
async function timed(
  args: readonly string[],
  workers: number,
): Promise<CliRun & { stdout: string; threads?: ThreadFigures }> {
  const statsFile = join(mkdtempSync(join(tmpdir(), 'cetp-sim-pool-')), 'stats.jsonl');
  const started = performance.now();
  const { exit, stdout } = await new Promise<{ exit: number; stdout: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--json', '--workers', String(workers)],
      { maxBuffer: 256 * 1024 * 1024, env: { ...process.env, [POOL_STATS_ENV]: statsFile } },
      (error, out) => resolve({ exit: error ? Number(error.code ?? 1) : 0, stdout: out }),
    );
  });
  const wallMs = Math.round(performance.now() - started);
  const threads = threadFigures(statsFile);
  return { workers, wallMs, exit, stdout, ...(threads ? { threads } : {}) };
}

/** One command with 1 then 2 workers and again 2 then 1: every run, in the order it ran. */
async function pairs(args: readonly string[], measure: (stdout: string) => Partial<CliRun> = () => ({})) {
  const runs: CliRun[] = [];
  for (const workers of [1, 2, 2, 1]) {
    const { stdout, ...run } = await timed(args, workers);
    const measured = measure(stdout);
    const cpu = run.threads ? run.threads.jobCpuMs.cli + run.threads.jobCpuMs.workers : 0;
    const perCpu =
      measured.runs !== undefined && cpu > 0
        ? { runsPerJobCpuSecond: Math.round((measured.runs * 1000) / cpu) }
        : {};
    runs.push({ ...run, ...measured, ...perCpu });
    const t = run.threads;
    console.log(
      `  --workers ${workers}: ${run.wallMs} ms, exit ${run.exit}${measured.runs !== undefined ? `, ${measured.runs} runs` : ''}` +
        (t
          ? `; job CPU cli ${t.jobCpuMs.cli} / workers ${t.jobCpuMs.workers} ms (run-queue wait ${t.jobWaitMs.cli} / ${t.jobWaitMs.workers}), ` +
            `main thread ${t.mainThreadCpuMs} ms, V8 helper threads ${t.helperThreadsCpuMs} ms CPU, ` +
            `worker first job after ${t.workerFirstJobMs.join(', ') || '-'} ms (${t.workerStartupCpuMs.join(', ') || '-'} ms CPU), idle ${JSON.stringify(t.idleMs)}`
          : ''),
    );
  }
  return runs;
}

const total = (runs: readonly CliRun[], workers: number, pick: (r: CliRun) => number) =>
  runs.filter((r) => r.workers === workers).reduce((sum, r) => sum + pick(r), 0);

const round2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function host() {
  const [one, five, fifteen] = loadavg();
  return { loadAverage: { one: round2(one ?? 0), five: round2(five ?? 0), fifteen: round2(fifteen ?? 0) } };
}

/** Wall ms from `new Worker` to its first 'ready' (cetp-sim loaded), for one entry. */
async function startupMs(entry: URL | undefined): Promise<number> {
  const host = new WorkerHost(entry);
  const started = performance.now();
  await host.ready();
  const ms = Math.round(performance.now() - started);
  await host.close();
  return ms;
}

/** Worker start-up, tsx boot vs bundle, alternating; and the bundle's build time. */
async function workerStartup() {
  let started = performance.now();
  await bundleWorkerSource();
  const bundleBuildMs = Math.round(performance.now() - started);
  started = performance.now();
  const entry = await ownCodeWorker();
  const bundleFirstUseMs = Math.round(performance.now() - started);
  if (!entry) throw new Error('the worker bundle could not be built or written');
  const tsx: number[] = [];
  const bundled: number[] = [];
  for (const which of ['tsx', 'bundle', 'bundle', 'tsx', 'tsx', 'bundle'] as const) {
    const ms = await startupMs(which === 'tsx' ? undefined : entry);
    (which === 'tsx' ? tsx : bundled).push(ms);
    console.log(`  worker start-up (${which}): ${ms} ms`);
  }
  return {
    bundleBuildMs,
    bundleFirstUseMs,
    tsxMs: tsx,
    bundleMs: bundled,
    medianTsxMs: median(tsx),
    medianBundleMs: median(bundled),
    startupSpeedup: round2(median(tsx) / Math.max(1, median(bundled))),
  };
}

/** Wall ms of `cetp-sim --help`, three times: what every command pays before its work. */
async function cliStart(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => execFile(process.execPath, [BIN, '--help'], () => resolve()));
    times.push(Math.round(performance.now() - started));
  }
  return times;
}

export async function scalingBenchmark() {
  const probeBefore = Math.round(await probeHost(1_000));
  const hostBefore = host();
  console.log(`  host before: load ${JSON.stringify(hostBefore.loadAverage)}, probe ${probeBefore}/s`);
  const out = mkdtempSync(join(tmpdir(), 'cetp-sim-scaling-'));

  console.log("worker start-up: tsx boot vs the bundle of cetp-sim's own code");
  const startup = await workerStartup();

  console.log(`fuzz --time ${FUZZ_SECONDS} (every property)`);
  const fuzzRunsOf = (stdout: string) => ({
    runs: (JSON.parse(stdout) as { properties: { runs: number }[] }).properties.reduce(
      (s, p) => s + p.runs,
      0,
    ),
  });
  const fuzz = await pairs(['fuzz', '--time', String(FUZZ_SECONDS), '--out', out], fuzzRunsOf);
  console.log(`fuzz --time ${FUZZ_LONG_SECONDS} (every property)`);
  const fuzzLong = await pairs(['fuzz', '--time', String(FUZZ_LONG_SECONDS), '--out', out], fuzzRunsOf);
  console.log(`mutants --id ${MUTANT_IDS.join(' ')}`);
  const mutants = await pairs(['mutants', '--id', ...MUTANT_IDS]);
  console.log(`ablate --rule ${ABLATE_RULES.join(' ')} --runs 40`);
  const ablate = await pairs(['ablate', '--rule', ...ABLATE_RULES, '--runs', '40']);
  console.log('mutants (every planted bug, the default budget)');
  const mutantsAll = await pairs(['mutants']);

  const probeAfter = Math.round(await probeHost(1_000));
  const hostAfter = host();
  const wall = (runs: readonly CliRun[], w: number) => total(runs, w, (r) => r.wallMs);
  const fuzzRuns = (w: number) => total(fuzz, w, (r) => r.runs ?? 0);
  const cliStartMs = await cliStart();
  /**
   * Amdahl's bound for a fixed command: the CLI's start (`--help`, median) is serial; the rest at
   * best halves on two threads. What ×1.7 sooner would need of the one-thread wall time.
   */
  const bound = (runs: readonly CliRun[]) => {
    const one = wall(runs, 1) / 2;
    const start = median(cliStartMs);
    return round2(one / (start + Math.max(0, one - start) / 2));
  };
  /**
   * The bound the cores set. A one-thread run keeps more than one core busy: V8 compiles (TurboFan)
   * and collects garbage on helper threads beside the JS thread. On `cores` cores no run of the same
   * work on more threads can end sooner than that CPU time ÷ cores, even if the second isolate added
   * no work of its own (it adds its JIT warm-up): best speed-up = one-thread wall × cores ÷ its CPU
   * (every thread of the process, from its start to the end of the spread). Null without telemetry.
   */
  const cores = availableParallelism();
  const coreBound = (runs: readonly CliRun[]) => {
    const ones = runs.filter((r) => r.workers === 1 && r.threads !== undefined);
    const cpu = ones.reduce(
      (s, r) => s + (r.threads ? r.threads.mainThreadCpuMs + r.threads.helperThreadsCpuMs : 0),
      0,
    );
    return ones.length === 0 || cpu === 0
      ? null
      : round2((ones.reduce((s, r) => s + r.wallMs, 0) * cores) / cpu);
  };
  const figures = {
    fuzzRunsRatio: round2(fuzzRuns(2) / fuzzRuns(1)),
    fuzzLongRunsRatio: round2(
      total(fuzzLong, 2, (r) => r.runs ?? 0) / total(fuzzLong, 1, (r) => r.runs ?? 0),
    ),
    fuzzRunsPerWallSecondRatio: round2(fuzzRuns(2) / wall(fuzz, 2) / (fuzzRuns(1) / wall(fuzz, 1))),
    mutantsSpeedup: round2(wall(mutants, 1) / wall(mutants, 2)),
    ablateSpeedup: round2(wall(ablate, 1) / wall(ablate, 2)),
    mutantsAllSpeedup: round2(wall(mutantsAll, 1) / wall(mutantsAll, 2)),
    /** The best speed-up two threads could give each fixed command (bound, above). */
    mutantsAmdahlBound: bound(mutants),
    ablateAmdahlBound: bound(ablate),
    mutantsAllAmdahlBound: bound(mutantsAll),
    /** The best speed-up the host's cores allow each fixed command (coreBound, above). */
    mutantsCoreBound: coreBound(mutants),
    ablateCoreBound: coreBound(ablate),
    mutantsAllCoreBound: coreBound(mutantsAll),
    workerStartupSpeedup: startup.startupSpeedup,
    /**
     * Runs per CPU-second of the job threads, two threads ÷ one: valid on a loaded host. Near 1, a
     * thread does as much with a CPU-second either way, and what two threads lack in wall time is CPU
     * they did not get (other processes, V8's helper threads compiling for both isolates).
     */
    fuzzRunsPerJobCpuSecondRatio: round2(
      median(fuzz.filter((r) => r.workers === 2).map((r) => r.runsPerJobCpuSecond ?? 0)) /
        Math.max(1, median(fuzz.filter((r) => r.workers === 1).map((r) => r.runsPerJobCpuSecond ?? 0))),
    ),
  };
  return {
    goals: { fuzzRunsRatio: 1.8, mutantsSpeedup: 1.7, ablateSpeedup: 1.7 },
    figures,
    meetsGoals: figures.fuzzRunsRatio >= 1.8 && figures.mutantsSpeedup >= 1.7 && figures.ablateSpeedup >= 1.7,
    host: {
      before: { ...hostBefore, probe: probeBefore },
      after: { ...hostAfter, probe: probeAfter },
      quietProbe: QUIET_PROBE_RATE,
    },
    /** The V8 flags bin/cetp-sim.js set for every run, both sides alike (CETP_SIM_V8). */
    v8Flags: process.env.CETP_SIM_V8 ?? 'bin/cetp-sim.js default',
    selection: {
      fuzzSeconds: FUZZ_SECONDS,
      fuzzLongSeconds: FUZZ_LONG_SECONDS,
      mutants: MUTANT_IDS,
      ablateRules: ABLATE_RULES,
      ablateRuns: 40,
    },
    startup,
    /** The CLI with no command's work (`--help`): the serial part of every measured command. */
    cliStartMs,
    runs: { fuzz, fuzzLong, mutants, ablate, mutantsAll },
  };
}
