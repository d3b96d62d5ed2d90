/**
 * A small harness over tinybench: each case does `perIteration` units of work per call, so the
 * recorded figure is units per second (e.g. round trips/s), with the target it is held to. Results
 * go to bench/results/<suite>.json with the machine they were measured on. Wall time is fine here:
 * benchmarks are outside the determinism law (docs/design.md).
 *
 * A case measured in rounds (`rounds`) is timed by the harness itself instead: fixed-length rounds,
 * each followed by the host probe (host-probe.ts), so the record shows how fast the host was while
 * the case ran, round by round.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { probeHost, QUIET_PROBE_RATE } from './host-probe.ts';

export interface BenchCase {
  readonly name: string;
  readonly unit: string;
  /** Units of work done by one call of `fn`. */
  readonly perIteration: number;
  /** The figure the project holds itself to, in `unit` (higher is better). */
  readonly target?: number;
  /**
   * Run the case this long before measuring it, and record the rate of that first stretch as a
   * figure of its own ("cold"). A scenario run goes through ~500 functions; V8 takes a couple of
   * thousand runs to optimise them all, far longer than tinybench's own warm-up.
   */
  readonly warmupMs?: number;
  /**
   * Measure in `count` rounds of `ms` each, every round followed by the host probe; the figure is
   * the median round (a single GC pause or a one-second stall of the host moves it little, and the
   * record keeps every round with the probe beside it).
   */
  readonly rounds?: { readonly count: number; readonly ms: number };
  fn(): Promise<void> | void;
}

/** One measured round of a case with `rounds`, and the host probe's rate right after it. */
export interface BenchRound {
  /** Units per second of wall time. */
  readonly value: number;
  /**
   * Units per second of the process's CPU time (every thread: GC and compiler helpers included). Far
   * above `value` when other processes had the CPU; about equal when the round had a core to itself.
   */
  readonly perCpuSecond: number;
  readonly hostProbe: number;
}

/** The host probe over a case's rounds, against the recording machine's quiet-host rate. */
export interface HostProbeFigure {
  /** Median probe rate over the rounds (items/s). */
  readonly median: number;
  readonly quietReference: number;
  /** median / quietReference: ~1 on the recording machine when its host is quiet. */
  readonly ratio: number;
}

export interface BenchFigure {
  readonly name: string;
  readonly unit: string;
  /**
   * Units per second, what `meetsTarget` is judged on: from the mean time per iteration, or for a
   * case measured in rounds, the median round.
   */
  readonly value: number;
  /** Units per second from the median time per iteration (less swayed by GC pauses and host noise). */
  readonly median: number;
  readonly rme: number;
  readonly samples: number;
  readonly target: number | null;
  readonly meetsTarget: boolean | null;
  /** A case measured in rounds: every round, in the order they ran. */
  readonly rounds?: readonly BenchRound[];
  readonly hostProbe?: HostProbeFigure;
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** Runs `c.fn` for at least `ms`; units per second of wall time and of the process's CPU time. */
async function rateOver(
  c: BenchCase,
  ms: number,
): Promise<{ rate: number; perCpuSecond: number; calls: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < ms) {
    await c.fn();
    calls++;
  }
  const units = calls * c.perIteration;
  const used = process.cpuUsage(cpu);
  return {
    rate: (units * 1000) / (performance.now() - started),
    perCpuSecond: (units * 1e6) / Math.max(1, used.user + used.system),
    calls,
  };
}

/** A case measured in rounds, each followed by the host probe; the figure is the median round. */
async function measureRounds(
  c: BenchCase,
  rounds: { readonly count: number; readonly ms: number },
): Promise<BenchFigure> {
  const measured: BenchRound[] = [];
  for (let i = 0; i < rounds.count; i++) {
    const { rate, perCpuSecond } = await rateOver(c, rounds.ms);
    measured.push({
      value: Math.round(rate),
      perCpuSecond: Math.round(perCpuSecond),
      hostProbe: Math.round(await probeHost(500)),
    });
  }
  return roundsFigure(c, measured);
}

/** The figure of a case measured in `rounds` (at least one): the median round, judged on the target. */
export function roundsFigure(
  c: Pick<BenchCase, 'name' | 'unit' | 'target'>,
  rounds: readonly BenchRound[],
  quietReference = QUIET_PROBE_RATE,
): BenchFigure {
  if (rounds.length === 0) throw new RangeError(`${c.name}: no rounds to summarise`);
  const values = rounds.map((r) => r.value);
  const value = median(values);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, values.length - 1));
  const probe = median(rounds.map((r) => r.hostProbe));
  return {
    name: c.name,
    unit: c.unit,
    value: Math.round(value),
    median: Math.round(value),
    // Relative margin of error of the mean round (95%, normal approximation), as tinybench reports it.
    rme: Math.round(((1.96 * sd) / Math.sqrt(values.length) / mean) * 10_000) / 100,
    samples: values.length,
    target: c.target ?? null,
    meetsTarget: c.target === undefined ? null : value >= c.target,
    rounds,
    hostProbe: {
      median: Math.round(probe),
      quietReference,
      ratio: Math.round((probe / quietReference) * 100) / 100,
    },
  };
}

export async function runSuite(
  suite: string,
  cases: readonly BenchCase[],
  timeMs = 3000,
): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  // Warm-up and rounds first, each case right after its own warm-up (before other cases' code can
  // colour V8's type feedback); then tinybench for the rest.
  for (const c of cases) {
    if (c.warmupMs !== undefined) {
      const { rate, calls } = await rateOver(c, c.warmupMs);
      figures.push({
        name: `${c.name}, cold: the first ${Math.round(c.warmupMs / 1000)} s`,
        unit: c.unit,
        value: Math.round(rate),
        median: Math.round(rate),
        rme: 0,
        samples: calls,
        target: null,
        meetsTarget: null,
      });
    }
    if (c.rounds !== undefined) figures.push(await measureRounds(c, c.rounds));
  }
  const bench = new Bench({ name: suite, time: timeMs, iterations: 5, warmup: true });
  for (const c of cases) if (c.rounds === undefined) bench.add(c.name, c.fn);
  await bench.run();
  for (const task of bench.tasks) {
    const c = cases.find((x) => x.name === task.name);
    const r = task.result as {
      state: string;
      latency?: { mean: number; p50?: number; rme: number; samplesCount?: number };
    };
    if (!c || !r.latency) throw new Error(`benchmark ${task.name} did not complete (${r.state})`);
    const value = (c.perIteration * 1000) / r.latency.mean;
    figures.push({
      name: c.name,
      unit: c.unit,
      value: Math.round(value),
      median: Math.round((c.perIteration * 1000) / (r.latency.p50 ?? r.latency.mean)),
      rme: Math.round(r.latency.rme * 100) / 100,
      samples: r.latency.samplesCount ?? 0,
      target: c.target ?? null,
      meetsTarget: c.target === undefined ? null : value >= c.target,
    });
  }
  return figures;
}

export function recordResults(file: string, suite: string, figures: readonly BenchFigure[]): void {
  const cpu = cpus()[0]?.model ?? 'unknown';
  const record = {
    suite,
    measuredAt: new Date().toISOString(),
    node: process.version,
    cpu,
    cores: cpus().length,
    figures,
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}

const n = (x: number) => x.toLocaleString('en-US');

export function printFigures(figures: readonly BenchFigure[]): void {
  for (const f of figures) {
    const target = f.target === null ? '' : ` (target ${n(f.target)}: ${f.meetsTarget ? 'met' : 'NOT met'})`;
    if (f.rounds === undefined || f.hostProbe === undefined) {
      console.log(`${f.name}: ${n(f.value)} ${f.unit} ±${f.rme}% (median ${n(f.median)})${target}`);
      continue;
    }
    const values = f.rounds.map((r) => r.value);
    console.log(
      `${f.name}: ${n(f.value)} ${f.unit}, the median of ${f.rounds.length} rounds ` +
        `(slowest ${n(Math.min(...values))}, fastest ${n(Math.max(...values))})${target}`,
    );
    console.log(
      `  per second of the process's CPU time (all threads), median round: ` +
        `${n(Math.round(median(f.rounds.map((r) => r.perCpuSecond))))}`,
    );
    console.log(
      `  host probe beside it: ${n(f.hostProbe.median)} items/s, ${f.hostProbe.ratio}× the recording ` +
        `machine's quiet rate (${n(f.hostProbe.quietReference)})`,
    );
  }
}
