/**
 * Each size's cost measured in fresh processes, several times, and summarised by the median
 * (issue 18, part 1). One process per measurement, because a size measured after others inherits
 * their JIT and heap state: the same code read 1.24× at 128 KiB after 1, 4, 16 and 64 KiB and 1.33×
 * after 1 KiB alone, the floor moving by 10% (0.664 – 0.738 ms) while the path stayed within 4%
 * (bench/README.md). Several processes, because one process's median still varies from the next by
 * a few per cent; the spread across them is recorded beside the median.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../harness.ts';
import type { CostPoint } from './cost.ts';

/** A size's cost over several processes: medians of their figures, and every process's ratio. */
export interface IsolatedCostPoint extends CostPoint {
  /** ratio = the median of these, one per process, in the order they ran. */
  readonly ratios: readonly number[];
  readonly fullRatios: readonly number[];
}

const CHILD = fileURLToPath(new URL('./cost-child.ts', import.meta.url));

/** One measurement of one size in a process of its own. */
export function measureCostInProcess(sizeBytes: number, msPerSize: number): CostPoint {
  const run = spawnSync(
    process.execPath,
    [...process.execArgv, CHILD, String(sizeBytes), String(msPerSize)],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0)
    throw new Error(`cost child for ${sizeBytes} bytes failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as CostPoint;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Joins one size's measurements (all of the same size and path). */
export function summariseCost(points: readonly CostPoint[]): IsolatedCostPoint {
  const first = points[0];
  if (!first) throw new Error('no measurement to summarise');
  const ratios = points.map((p) => p.ratio);
  const fullRatios = points.map((p) => p.fullRatio);
  return {
    sizeBytes: first.sizeBytes,
    path: first.path,
    samples: points.reduce((s, p) => s + p.samples, 0),
    pathMs: round(median(points.map((p) => p.pathMs)), 3),
    floorMs: round(median(points.map((p) => p.floorMs)), 3),
    fullFloorMs: round(median(points.map((p) => p.fullFloorMs)), 3),
    ratio: round(median(ratios), 2),
    fullRatio: round(median(fullRatios), 2),
    ratios,
    fullRatios,
  };
}

/**
 * Every size `processes` times, round by round (each round goes through all the sizes, so a drift
 * of the host's load spreads over the sizes instead of falling on one); `log` hears each process.
 */
export function measureCostIsolated(
  sizes: readonly number[],
  processes: number,
  msPerSize: number,
  log: (point: CostPoint, round: number) => void = () => {},
): IsolatedCostPoint[] {
  const bySize = new Map<number, CostPoint[]>(sizes.map((s) => [s, []]));
  for (let round = 0; round < processes; round++) {
    for (const size of sizes) {
      const point = measureCostInProcess(size, msPerSize);
      bySize.get(size)?.push(point);
      log(point, round);
    }
  }
  return sizes.map((s) => summariseCost(bySize.get(s) ?? []));
}
