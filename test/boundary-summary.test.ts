/**
 * The boundary benchmark's pure parts: summarising concurrency runs into a cell
 * (bench/boundary/summary.ts), and the charts drawn from a results record (bench/charts.ts) — each
 * with its title, units and the 256 KiB limit marked.
 */
import { describe, expect, it } from 'vitest';
import { summariseCost } from '../bench/boundary/isolated.ts';
import { type RunTally, summariseCell } from '../bench/boundary/summary.ts';
import type { BoundaryResults } from '../bench/boundary.bench.ts';
import { CHARTS, renderSvg } from '../bench/charts.ts';

const KEY = { concurrency: 4, sizeBytes: 262_144, strategy: 'random' } as const;
const tally = (seed: number, failedReplies: number, kinds: string[], effects = 0): RunTally => ({
  seed,
  transactions: kinds.length + failedReplies,
  failedReplies,
  failedRequests: 0,
  outcomes: kinds.map((kind) => ({ kind }) as RunTally['outcomes'][number]),
  elapsedMs: 250 * failedReplies,
  effects,
});

describe('summariseCell', () => {
  it('counts failing runs, failed transactions and call outcomes over the seeds', () => {
    const cell = summariseCell(KEY, [
      tally(3, 0, ['ok', 'ok']),
      tally(5, 2, ['ok', 'provider_unavailable']),
      tally(4, 1, ['ok', 'ok'], 2),
    ]);
    expect(cell).toMatchObject({
      ...KEY,
      runs: 3,
      runsWithFailure: 2,
      failingRunShare: 0.667,
      transactions: 9,
      failedTransactions: 3,
      failedTransactionShare: 0.333,
      outcomes: { ok: 5, provider_unavailable: 1 },
      failedCallShare: 0.167,
      meanElapsedMs: 250,
      firstFailingSeed: 4,
      effects: 2,
    });
  });

  it('has no failing seed when nothing failed, and refuses an empty cell', () => {
    expect(summariseCell(KEY, [tally(1, 0, ['ok'])]).firstFailingSeed).toBeNull();
    expect(() => summariseCell(KEY, [])).toThrow(RangeError);
  });
});

describe('summariseCost (each size over several processes)', () => {
  const point = (pathMs: number, floorMs: number) => ({
    sizeBytes: 131_072,
    path: 'inline' as const,
    samples: 100,
    pathMs,
    floorMs,
    fullFloorMs: floorMs * 1.1,
    ratio: Math.round((pathMs / floorMs) * 100) / 100,
    fullRatio: Math.round((pathMs / floorMs / 1.1) * 100) / 100,
  });

  it("records the median of the processes, and every process's ratio in the order they ran", () => {
    const s = summariseCost([point(0.9, 0.7), point(0.88, 0.72), point(0.95, 0.66)]);
    expect(s.ratios).toEqual([1.29, 1.22, 1.44]);
    expect(s.ratio).toBe(1.29);
    expect(s.pathMs).toBe(0.9);
    expect(s.floorMs).toBe(0.7);
    expect(s.samples).toBe(300);
  });

  it('refuses to summarise nothing', () => {
    expect(() => summariseCost([])).toThrow(/no measurement/);
  });
});

const cost = (sizeBytes: number, path: 'inline' | 'file') => ({
  sizeBytes,
  path,
  samples: 5,
  pathMs: sizeBytes / 1e5,
  floorMs: sizeBytes / 2e5,
  fullFloorMs: sizeBytes / 1.5e5,
  ratio: 2,
  fullRatio: 1.5,
  ratios: [2],
  fullRatios: [1.5],
});
const cell = summariseCell(KEY, [tally(1, 1, ['ok', 'ok'])]);
const RESULTS: BoundaryResults = {
  cost: [cost(1024, 'inline'), cost(262_144, 'inline'), cost(263_168, 'file'), cost(16_777_216, 'file')],
  hostProbe: { before: 800_000, after: 800_000 },
  memory: {
    fileBytes: 16_777_190,
    baselineRssMb: 140,
    maxRssBeforeMb: 150,
    maxRssAfterMb: 190,
    peakRssGrowthMb: 50,
    heldGrowthMb: 40,
    leftGrowthMb: 20,
    peakPerFileByte: 2.98,
  },
  bufferBytes: 1_040_384,
  replySizes: [],
  concurrency: [cell, { ...cell, strategy: 'fifo' }, { ...cell, strategy: 'pct' }],
  writes: [],
  singleCall: [],
  secondsTaken: { cost: 1, memory: 1, concurrency: 1 },
};

describe('charts', () => {
  for (const [file, spec] of Object.entries(CHARTS)) {
    it(`${file} renders to SVG with its title and axis units`, async () => {
      const svg = await renderSvg(spec(RESULTS));
      expect(svg.startsWith('<svg')).toBe(true);
      const title = spec(RESULTS).title as { text: string };
      expect(svg).toContain(title.text.replace(/&/g, '&amp;'));
      expect(svg).toMatch(/KiB|MB|concurrent calls/);
    });
  }

  it('marks the 256 KiB inline limit on the size charts and the goals on the ratio and memory charts', async () => {
    expect(await renderSvg(CHARTS['boundary-cost.svg']!(RESULTS))).toContain('inline limit 256 KiB');
    const ratio = await renderSvg(CHARTS['boundary-ratio.svg']!(RESULTS));
    expect(ratio).toContain('inline limit 256 KiB');
    expect(ratio).toContain('goal 1.3×');
    expect(await renderSvg(CHARTS['boundary-memory.svg']!(RESULTS))).toContain('goal: 3× the file');
  });
});
