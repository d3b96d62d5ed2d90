/**
 * A --time campaign's shares of its budget (jobs.ts timeShareMs) and the pool's telemetry
 * (telemetry.ts). No timing is asserted: the shares are computed from given clocks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing.ts';
import { timeShareMs } from './jobs.ts';
import { runSpread } from './pool.ts';
import { POOL_STATS_ENV, type PoolStats, processThreads, threadClock } from './telemetry.ts';

/** Every job's [start, end] when each takes its share and runs it to the end, on `threads` threads that start at `startsAt`. */
function simulate(count: number, threads: number, budgetMs: number, startsAt: readonly number[]) {
  const free = [...startsAt];
  const spans: [number, number][] = [];
  for (let index = 0; index < count; index++) {
    // The next job goes to the thread free first (the shared counter: whoever asks first).
    const t = free.indexOf(Math.min(...free));
    const start = free[t] as number;
    const ms = timeShareMs({ deadlineMs: budgetMs, threads, index, count }, start);
    spans.push([start, start + ms]);
    free[t] = start + ms;
  }
  return spans;
}

describe('a --time campaign shares its budget until one deadline (timeShareMs)', () => {
  it.each([
    ['10 properties on 1 thread', 10, 1, [0]],
    ['10 properties on 2 threads, the worker loading for 900 ms', 10, 2, [0, 900]],
    ['10 properties on 3 threads (3 does not divide 10)', 10, 3, [0, 150, 300]],
    ['10 properties on 4 threads', 10, 4, [0, 100, 100, 2_000]],
    ['3 properties on 8 threads', 3, 8, [0, 50, 60, 70, 80, 90, 100, 110]],
  ])('%s: every job ends by the deadline', (_name, count, threads, startsAt) => {
    const spans = simulate(count, threads, 20_000, startsAt);
    for (const [, end] of spans) expect(end).toBeLessThanOrEqual(20_000);
    // Nothing is wasted at the end: the last job of the busiest thread runs up to the deadline.
    expect(Math.max(...spans.map(([, end]) => end))).toBeGreaterThan(20_000 - 2);
  });

  it('gives the jobs about equal time when nothing starts late', () => {
    const spans = simulate(10, 2, 20_000, [0, 0]);
    for (const [start, end] of spans) expect(end - start).toBe(4_000);
  });

  it('the old fixed share (budget × threads / properties) overran when the threads did not divide the properties', () => {
    // 10 properties, 3 threads: 6,667 ms each, four of them on one thread.
    const fixed = Math.floor((20_000 * 3) / 10);
    expect(4 * fixed).toBeGreaterThan(20_000);
    for (const [, end] of simulate(10, 3, 20_000, [0, 0, 0])) expect(end).toBeLessThanOrEqual(20_000);
  });

  it('never gives less than 1 ms, even past the deadline', () => {
    expect(timeShareMs({ deadlineMs: 100, threads: 2, index: 9, count: 10 }, 500)).toBe(1);
  });
});

describe('pool telemetry (CETP_SIM_POOL_STATS)', () => {
  const saved = process.env[POOL_STATS_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[POOL_STATS_ENV];
    else process.env[POOL_STATS_ENV] = saved;
  });

  it('reads this thread’s CPU time and the process’s threads (Linux)', () => {
    const clock = threadClock();
    if (clock === null) return; // not Linux: the figures are null, nothing to read
    expect(clock.cpuMs).toBeGreaterThan(0);
    expect(processThreads().some((t) => t.name === 'main')).toBe(true);
  });

  it('writes one line per spread, with every job where and when it ran; nothing without the variable', async () => {
    const file = join(tempDir('cetp-sim-stats-'), 'stats.jsonl');
    process.env[POOL_STATS_ENV] = file;
    const results = await runSpread([3, 1, 2], {
      workers: 1,
      userCode: false,
      run: async (_host, n) => n * 2,
    });
    expect(results).toEqual([6, 2, 4]);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const stats = JSON.parse(lines[0] as string) as PoolStats;
    expect(stats.jobs.map((j) => [j.index, j.thread])).toEqual([
      [0, 'cli'],
      [1, 'cli'],
      [2, 'cli'],
    ]);
    for (const j of stats.jobs) expect(j.endMs).toBeGreaterThanOrEqual(j.startMs);
    delete process.env[POOL_STATS_ENV];
    await runSpread([1], { workers: 1, userCode: false, run: async (_host, n) => n });
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
  });
});
