/**
 * A diagnosis (campaign.ts) re-runs a hung property's runs in a fresh worker, on cold code, to reach
 * the run that hung: only that run is held to the short budget (JobWatch.watchedRun); the runs before
 * it have the start-up allowance, as the first run of any job does. Without that, a slow early run on
 * a loaded host was stopped in place of the one that hung, and the failure had no replay file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import type { FuzzJob } from './protocol.ts';
import { WorkerHost } from './worker-host.ts';

/** Every tool handler sleeps 0.3 s, then throws: the first run that calls one is slow, and fails. */
const job: FuzzJob = {
  kind: 'fuzz',
  property: 'versions',
  seed: 0,
  runs: 1,
  tails: ['fifo'],
  variant: REFERENCE,
  shrink: false,
  modules: { provider: 'src/cli/testdata/broken/naps.provider.ts' },
  cwd: process.cwd(),
};

const hosts: WorkerHost[] = [];
afterAll(() => Promise.all(hosts.map((host) => host.close())));

/**
 * The job's end under a 0.2 s budget and a start-up allowance of 60 s (loading the module on a loaded
 * host may take seconds; a nap never does), watching run `watchedRun`.
 */
async function end(watchedRun: number | undefined) {
  const host = new WorkerHost();
  hosts.push(host);
  await host.ready();
  return host.run(job, {
    budgetMs: 200,
    startupMs: 60_000,
    ...(watchedRun === undefined ? {} : { watchedRun }),
  });
}

describe('a watched run (the diagnosis of a hung run)', () => {
  it('a slow run before the watched one has the start-up allowance: it ends, and fails on its own', async () => {
    const early = await end(3);
    expect(early.kind).toBe('done');
  }, 120_000);

  it('the watched run, or any run of an unwatched job, is held to the budget', async () => {
    for (const watchedRun of [0, undefined]) {
      const ended = await end(watchedRun);
      expect(ended.kind, `watchedRun ${watchedRun}`).toBe('hung');
      if (ended.kind !== 'hung') return;
      expect(ended.reason).toBe("it did not finish within the watchdog's 0.2 s of wall time");
    }
  }, 120_000);
});
