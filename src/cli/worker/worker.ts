/**
 * A worker thread of the CLI: it runs jobs (jobs.ts) one at a time and answers each with plain data
 * (protocol.ts). As each run of a campaign starts it bumps a shared counter: the CLI's watchdog
 * (pool.ts) reads it to tell a slow campaign from a run that never ends, and which run that was.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { caches } from '../../base/caches.ts';
import { errorMessage, ModuleCache, runJob } from './jobs.ts';
import type { Job, WorkerMessage } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread of the cetp-sim CLI');
/** [0]: how many runs of the current job have started (the watchdog's heartbeat). */
const heartbeat = new Int32Array((workerData as { heartbeat: SharedArrayBuffer }).heartbeat);
const modules = caches.lazy('cli/worker: modules this worker loaded', () => new ModuleCache()).get();
const channel = {
  started: (runs: number) => Atomics.store(heartbeat, 0, runs),
  post: (message: WorkerMessage) => port.postMessage(message),
};

port.on('message', async (job: Job) => {
  Atomics.store(heartbeat, 0, 0);
  try {
    channel.post({ type: 'result', result: await runJob(modules, job, channel) });
  } catch (error) {
    channel.post(errorMessage(error));
  }
});
channel.post({ type: 'ready' });
