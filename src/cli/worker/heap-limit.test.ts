/**
 * A worker thread's heap is capped so that the workers of one command stay within half the
 * machine's memory (workerHeapLimitMb): a user's module that allocates without bound then kills its
 * own worker, which the CLI reports, not the whole CLI through the kernel's OOM killer.
 */
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../harness/errors.ts';
import { MIN_WORKER_HEAP_MB, WorkerHost, workerHeapLimitMb } from './worker-host.ts';

const GB = 2 ** 30;
const MB = 2 ** 20;
const PROBE = fileURLToPath(new URL('../testdata/hostile/heap-limit.provider.ts', import.meta.url));

describe('workerHeapLimitMb', () => {
  it('shares half the machine among the workers', () => {
    expect(workerHeapLimitMb(2, 7 * GB, 4 * GB)).toBe(1792);
    expect(workerHeapLimitMb(4, 16 * GB, 4 * GB)).toBe(2048);
  });

  it("keeps V8's default (null) where the share is above it: a big machine, or NODE_OPTIONS set lower", () => {
    expect(workerHeapLimitMb(2, 24 * GB, 4 * GB)).toBeNull();
    expect(workerHeapLimitMb(2, 7 * GB, 192 * MB)).toBeNull();
  });

  it('never gives a worker less than it needs to load', () => {
    expect(workerHeapLimitMb(64, 4 * GB, 4 * GB)).toBe(MIN_WORKER_HEAP_MB);
    expect(workerHeapLimitMb(0, 1 * GB, 4 * GB)).toBe(512);
  });
});

describe('a worker thread gets the limit', () => {
  const hosts: WorkerHost[] = [];
  afterAll(async () => {
    for (const host of hosts) await host.close();
  });

  /** The heap limit the module reports from inside the worker (it refuses to load, saying it). */
  async function limitInWorker(threads: number): Promise<number> {
    const host = new WorkerHost(undefined, threads);
    hosts.push(host);
    const failure = await host
      .run({ kind: 'load', modules: { provider: PROBE }, cwd: process.cwd() }, { budgetMs: 120_000 })
      .then(
        (end) => new Error(`the probe module loaded: ${JSON.stringify(end)}`),
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(CliError);
    const mb = /heap limit (\d+) MB/.exec((failure as CliError).message)?.[1];
    expect(mb, (failure as CliError).message).toBeDefined();
    return Number(mb);
  }

  it('capped when many workers share the machine, and the default when few do', async () => {
    const threads = 100_000; // every share below the floor: the floor
    expect(workerHeapLimitMb(threads)).toBe(MIN_WORKER_HEAP_MB);
    // The old generation's limit plus the young generation's: above the cap, far below the default.
    const inWorker = await limitInWorker(threads);
    expect(inWorker).toBeGreaterThanOrEqual(MIN_WORKER_HEAP_MB);
    expect(inWorker).toBeLessThan(MIN_WORKER_HEAP_MB + 128);
    if (workerHeapLimitMb(1) === null)
      expect(await limitInWorker(1)).toBe(Math.round(getHeapStatistics().heap_size_limit / MB));
  }, 240_000);
});
