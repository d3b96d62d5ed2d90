/**
 * A small harness over tinybench: each case does `perIteration` units of work per call, so the
 * recorded figure is units per second (e.g. round trips/s), with the target it is held to. Results
 * go to bench/results/<suite>.json with the machine they were measured on. Wall time is fine here:
 * benchmarks are outside the determinism law (DESIGN.md).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Bench } from 'tinybench';

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
  fn(): Promise<void> | void;
}

export interface BenchFigure {
  readonly name: string;
  readonly unit: string;
  /** Units per second from the mean time per iteration (what `meetsTarget` is judged on). */
  readonly value: number;
  /** Units per second from the median time per iteration (less swayed by GC pauses and host noise). */
  readonly median: number;
  readonly rme: number;
  readonly samples: number;
  readonly target: number | null;
  readonly meetsTarget: boolean | null;
}

export async function runSuite(
  suite: string,
  cases: readonly BenchCase[],
  timeMs = 3000,
): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  for (const c of cases) {
    if (c.warmupMs === undefined) continue;
    const started = performance.now();
    let calls = 0;
    while (performance.now() - started < c.warmupMs) {
      await c.fn();
      calls++;
    }
    const rate = (calls * c.perIteration * 1000) / (performance.now() - started);
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
  const bench = new Bench({ name: suite, time: timeMs, iterations: 5, warmup: true });
  for (const c of cases) bench.add(c.name, c.fn);
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

export function printFigures(figures: readonly BenchFigure[]): void {
  for (const f of figures) {
    const target =
      f.target === null
        ? ''
        : ` (target ${f.target.toLocaleString('en-US')}: ${f.meetsTarget ? 'met' : 'NOT met'})`;
    console.log(
      `${f.name}: ${f.value.toLocaleString('en-US')} ${f.unit} ±${f.rme}% (median ${f.median.toLocaleString('en-US')})${target}`,
    );
  }
}
