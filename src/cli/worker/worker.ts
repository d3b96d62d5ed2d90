/**
 * A worker thread of the CLI: it runs jobs (jobs.ts) one at a time and answers each with plain data
 * (protocol.ts). As each run of a campaign starts it bumps a shared counter: the CLI's watchdog
 * (pool.ts) reads it to tell a slow campaign from a run that never ends, and which run that was.
 */

import { parentPort, threadId, workerData } from 'node:worker_threads';
import { caches } from '../../base/caches.ts';
import { errorMessage, ModuleCache, runJob } from './jobs.ts';
import type { Job, SharedJobs, WorkerMessage } from './protocol.ts';
import { poolStatsFile, startJobStat, threadClock, threadTid, wallMs } from './telemetry.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread of the cetp-sim CLI');
/** [0]: how many runs of the current job have started (the watchdog's heartbeat); [1]: a shared job's index. */
const heartbeat = new Int32Array((workerData as { heartbeat: SharedArrayBuffer }).heartbeat);
const modules = caches.lazy('cli/worker: modules this worker loaded', () => new ModuleCache()).get();
const channel = {
  started: (runs: number) => Atomics.store(heartbeat, 0, runs),
  post: (message: WorkerMessage) => port.postMessage(message),
};

/** Takes indices of `shared.jobs` until none is left (the CLI's thread and other workers take them too). */
async function runShared(shared: SharedJobs): Promise<void> {
  const counter = new Int32Array(shared.counter);
  const stats = poolStatsFile() !== null;
  const thread = `worker ${threadId}`;
  const firstJobMs = wallMs();
  const startupClock = stats ? threadClock() : null;
  for (
    let index = Atomics.add(counter, 0, 1);
    index < shared.jobs.length;
    index = Atomics.add(counter, 0, 1)
  ) {
    Atomics.store(heartbeat, 1, index);
    Atomics.store(heartbeat, 0, 0);
    const started = performance.now();
    const stat = stats ? startJobStat(index, thread) : null;
    try {
      const result = await runJob(modules, shared.jobs[index] as Job, channel);
      const ms = performance.now() - started;
      channel.post(
        stat ? { type: 'result', result, index, ms, stat: stat() } : { type: 'result', result, index, ms },
      );
    } catch (error) {
      channel.post({ ...errorMessage(error), index });
    }
  }
  channel.post(
    stats
      ? { type: 'shared-done', firstJobMs, startupClock, clock: threadClock(), tid: threadTid() }
      : { type: 'shared-done' },
  );
}

port.on('message', async (job: Job | SharedJobs) => {
  if (job.kind === 'shared') return runShared(job);
  Atomics.store(heartbeat, 0, 0);
  try {
    channel.post({ type: 'result', result: await runJob(modules, job, channel) });
  } catch (error) {
    channel.post(errorMessage(error));
  }
});
channel.post({ type: 'ready' });
