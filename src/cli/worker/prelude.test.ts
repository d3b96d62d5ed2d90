/**
 * A load job run as a prelude (user-modules.ts loadModulesAhead: the campaign's first worker loads the
 * modules for the CLI, then takes the campaign's first job) leaves that first job its thread's first:
 * the campaign's isolation re-run and hang diagnosis may still take run 0 of it as a fresh instance's
 * (campaign.ts). Any other job before it — a load job that is not a prelude, a fuzz job — does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import { WorkerHost } from './pool.ts';
import type { FuzzJob, LoadJob } from './protocol.ts';

const modules = { provider: 'examples/notes-provider/notes.provider.ts' };
const load: LoadJob = { kind: 'load', modules, cwd: process.cwd() };
const fuzz: FuzzJob = {
  kind: 'fuzz',
  property: 'idempotency',
  seed: 0,
  runs: 1,
  tails: ['fifo'],
  variant: REFERENCE,
  modules,
  cwd: process.cwd(),
};
const watch = { budgetMs: 120_000 };

let host: WorkerHost | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
});

/** Whether each job after the first, on one worker thread, ran as the thread's first. */
async function freshness(prelude: boolean): Promise<boolean[]> {
  host = new WorkerHost();
  const first = await host.run(load, { ...watch, prelude });
  expect(first.kind).toBe('done');
  const fresh: boolean[] = [];
  for (const _ of [1, 2]) {
    const end = await host.run(fuzz, watch);
    expect(end.kind).toBe('done');
    fresh.push(host.lastJobFresh);
  }
  return fresh;
}

describe('a load job as a prelude', () => {
  it('leaves the next job its thread’s first, and only that one', async () => {
    expect(await freshness(true)).toEqual([true, false]);
  });

  it('a load job that is not a prelude counts as the thread’s first', async () => {
    expect(await freshness(false)).toEqual([false, false]);
  });
});
