/**
 * The inline/file result boundary (issue 18, part 1): what a result costs on each side of CETP's
 * 256 KiB inline limit against what its bytes alone cost, how much memory verifying a 16 MiB file
 * result takes, and how concurrent inline results fare in Binder's shared 1 MiB − 8 KiB buffer.
 * bench/README.md tells the method and the findings; bench/charts.ts draws the figures.
 *
 *   npm run bench -- boundary     (writes bench/results/boundary.json and the boundary-*.svg charts)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BINDER_BUFFER_BYTES } from '../src/sim/process/process.ts';
import {
  inlineReplyParcelBytes,
  replayConcurrentRun,
  repliesThatFit,
  type StrategyName,
} from './boundary/concurrency.ts';
import { type IsolatedCostPoint, measureCostIsolated } from './boundary/isolated.ts';
import type { MemoryFigures } from './boundary/memory-child.ts';
import { KIB, MIB } from './boundary/payload.ts';
import { type ConcurrencyCell, summariseCell } from './boundary/summary.ts';
import { probeHost } from './host-probe.ts';

/** Log scale from 1 KiB to 16 MiB, dense around the 256 KiB limit. */
export const COST_SIZES: readonly number[] = [
  1, 4, 16, 64, 128, 192, 240, 255, 256, 257, 300, 512, 1024, 4096, 16384,
].map((k) => k * KIB);

export const CONCURRENCY_LEVELS: readonly number[] = [1, 2, 4, 8, 16];
export const CONCURRENCY_SIZES: readonly number[] = [16, 64, 128, 192, 255, 256].map((k) => k * KIB);
/** fifo is one schedule; random and pct are sampled over seeds. */
export const CONCURRENCY_SEEDS: Readonly<Record<StrategyName, readonly number[]>> = {
  fifo: [1],
  random: Array.from({ length: 10 }, (_, i) => i + 1),
  pct: Array.from({ length: 10 }, (_, i) => i + 1),
};
/** One call alone, with a provider that raised max_inline_result_bytes to 1 MiB (CETP-2.2-18 allows it). */
export const SINGLE_CALL_SIZES: readonly number[] = [256, 384, 480, 500, 507, 508, 512, 768].map(
  (k) => k * KIB,
);

export interface ReplySize {
  readonly sizeBytes: number;
  /** The reply parcel of an inline result this size: UTF-16 strings, so ~2 bytes per byte of data. */
  readonly replyParcelBytes: number;
  /** How many such replies the 1 MiB − 8 KiB buffer holds at once. */
  readonly fitAtOnce: number;
}

export interface BoundaryResults {
  /** Each size measured in COST_PROCESSES fresh processes: medians, and each process's ratio. */
  readonly cost: readonly IsolatedCostPoint[];
  /** The host probe before and after the cost sweep (items/s; see host-probe.ts). */
  readonly hostProbe: { readonly before: number; readonly after: number };
  readonly memory: MemoryFigures;
  readonly bufferBytes: number;
  readonly replySizes: readonly ReplySize[];
  readonly concurrency: readonly ConcurrencyCell[];
  /** The same at 256 KiB with the write tool `archive`: a lost reply's retry gets the recorded result. */
  readonly writes: readonly ConcurrencyCell[];
  readonly singleCall: readonly ConcurrencyCell[];
  readonly secondsTaken: { readonly cost: number; readonly memory: number; readonly concurrency: number };
}

/** Processes per size (isolated.ts): the recorded figure is their median. */
export const COST_PROCESSES = 3;
/** Sampling time per size and process, after its warm-up (cost.ts). */
export const COST_MS_PER_PROCESS = 2_000;

function costSweep(log: (line: string) => void): IsolatedCostPoint[] {
  const points = measureCostIsolated(COST_SIZES, COST_PROCESSES, COST_MS_PER_PROCESS, (p, round) =>
    log(
      `  [${round + 1}/${COST_PROCESSES}] ${String(p.sizeBytes / KIB).padStart(6)} KiB ${p.path.padEnd(6)} ` +
        `${p.pathMs.toFixed(3).padStart(9)} ms floor ${p.floorMs.toFixed(3).padStart(9)} ms ×${p.ratio}  ` +
        `full floor ×${p.fullRatio}  (${p.samples} samples)`,
    ),
  );
  log('  median of the processes:');
  for (const p of points)
    log(
      `  ${String(p.sizeBytes / KIB).padStart(6)} KiB ${p.path.padEnd(6)} ×${p.ratio} ` +
        `(${p.ratios.join(', ')})  full floor ×${p.fullRatio} (${p.fullRatios.join(', ')})`,
    );
  return points;
}

/** The memory figure, measured in a process of its own (memory-child.ts) so its peak RSS is its own. */
function memoryOfVerification(sizeBytes: number): MemoryFigures {
  const child = fileURLToPath(new URL('./boundary/memory-child.ts', import.meta.url));
  const run = spawnSync(process.execPath, [...process.execArgv, child, String(sizeBytes)], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`memory child failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as MemoryFigures;
}

interface CellOptions {
  readonly maxInlineResultBytes?: number;
  readonly write?: boolean;
}

async function cell(
  concurrency: number,
  sizeBytes: number,
  strategy: StrategyName,
  seeds: readonly number[],
  options: CellOptions = {},
): Promise<ConcurrencyCell> {
  const runs = [];
  for (const seed of seeds) {
    const run = await replayConcurrentRun({ concurrency, sizeBytes, seed, strategy, ...options });
    runs.push({ ...run, seed });
  }
  return summariseCell({ concurrency, sizeBytes, strategy }, runs);
}

async function concurrencySweep(
  sizes: readonly number[],
  log: (line: string) => void,
  options: CellOptions = {},
): Promise<ConcurrencyCell[]> {
  const cells: ConcurrencyCell[] = [];
  for (const sizeBytes of sizes) {
    for (const concurrency of CONCURRENCY_LEVELS) {
      for (const [strategy, seeds] of Object.entries(CONCURRENCY_SEEDS) as [StrategyName, number[]][]) {
        const c = await cell(concurrency, sizeBytes, strategy, seeds, options);
        cells.push(c);
        log(
          `  ${String(sizeBytes / KIB).padStart(4)} KiB × ${String(concurrency).padStart(2)} ${strategy.padEnd(6)} ` +
            `failing runs ${c.runsWithFailure}/${c.runs}, failed transactions ${c.failedTransactions}/${c.transactions}, ` +
            `calls not ok ${Math.round(c.failedCallShare * 100)}% ${JSON.stringify(c.outcomes)}` +
            (options.write ? `, effects ${c.effects}` : ''),
        );
      }
    }
  }
  return cells;
}

export async function boundaryBenchmark(log: (line: string) => void = console.log): Promise<BoundaryResults> {
  const t0 = performance.now();
  log(
    `cost per result size (median ms per call; floors in the same process, interleaved; each size in ${COST_PROCESSES} fresh processes)`,
  );
  const before = await probeHost(500);
  const cost = costSweep(log);
  const after = await probeHost(500);
  const t1 = performance.now();
  log('memory while verifying a 16 MiB file result (a process of its own)');
  const memory = memoryOfVerification(16 * MIB);
  log(`  ${JSON.stringify(memory)}`);
  const t2 = performance.now();
  log('concurrent inline results against the shared Binder buffer (deterministic runs)');
  const concurrency = await concurrencySweep(CONCURRENCY_SIZES, log);
  log('the same with the write tool archive (256 KiB)');
  const writes = await concurrencySweep([256 * KIB], log, { write: true });
  const singleCall: ConcurrencyCell[] = [];
  for (const size of SINGLE_CALL_SIZES)
    singleCall.push(await cell(1, size, 'fifo', [1], { maxInlineResultBytes: MIB }));
  log(
    `  one call, max_inline_result_bytes = 1 MiB: ${singleCall.map((c) => `${c.sizeBytes / KIB} KiB ${c.outcomes.ok ? 'ok' : 'FAILS'}`).join(', ')}`,
  );
  const t3 = performance.now();
  const requestId = '00000000-0000-4000-8000-000000000000';
  return {
    cost,
    hostProbe: { before: Math.round(before), after: Math.round(after) },
    memory,
    bufferBytes: BINDER_BUFFER_BYTES,
    replySizes: [...new Set([...CONCURRENCY_SIZES, ...SINGLE_CALL_SIZES])].map((sizeBytes) => {
      const replyParcelBytes = inlineReplyParcelBytes(sizeBytes, requestId);
      return { sizeBytes, replyParcelBytes, fitAtOnce: repliesThatFit(replyParcelBytes) };
    }),
    concurrency,
    writes,
    singleCall,
    secondsTaken: {
      cost: Math.round((t1 - t0) / 1000),
      memory: Math.round((t2 - t1) / 1000),
      concurrency: Math.round((t3 - t2) / 1000),
    },
  };
}
