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

/** Every tool handler waits for good (Atomics.wait), from the first run that calls one. */
const job: FuzzJob = {
  kind: 'fuzz',
  property: 'idempotency',
  seed: 0,
  runs: 5,
  tails: ['fifo'],
  variant: REFERENCE,
  shrink: false,
  modules: { provider: 'src/cli/testdata/broken/waits.provider.ts' },
  cwd: process.cwd(),
};

const hosts: WorkerHost[] = [];
afterAll(() => Promise.all(hosts.map((host) => host.close())));

/** The job's end under a 0.2 s budget and a 1.5 s start-up allowance, watching run `watchedRun`. */
async function end(watchedRun: number | undefined) {
  const host = new WorkerHost();
  hosts.push(host);
  await host.ready();
  return host.run(job, {
    budgetMs: 200,
    startupMs: 1_500,
    ...(watchedRun === undefined ? {} : { watchedRun }),
  });
}

describe('a watched run (the diagnosis of a hung run)', () => {
  it('runs before the watched one get the start-up allowance; the watched one, and any later, the budget', async () => {
    const early = await end(3);
    expect(early.kind).toBe('hung');
    if (early.kind !== 'hung') return;
    // The first run that calls a tool waits for good: before run 3 it is given the allowance.
    expect(early.run).toBeLessThan(3);
    expect(early.reason).toBe('it did not finish within the start-up allowance of 1.5 s of wall time');

    const unwatched = await end(undefined);
    expect(unwatched.kind).toBe('hung');
    if (unwatched.kind !== 'hung') return;
    expect(unwatched.run).toBe(early.run);
    expect(unwatched.reason).toBe("it did not finish within the watchdog's 0.2 s of wall time");
  }, 120_000);
});
