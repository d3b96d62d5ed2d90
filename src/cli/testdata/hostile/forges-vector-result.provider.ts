/**
 * A `--provider` module that forges what its worker answers: `parentPort` is reachable from the
 * module's thread, and the module wraps its `postMessage` so that every vector outcome the worker
 * hands the CLI says `pass` — leaving the runs' records as they were (used by the tests: the judge
 * in the CLI's thread judges the records again and must fail the forged vectors, naming the forge).
 */
import { parentPort } from 'node:worker_threads';
import { MISPRICED_ALERTS } from './mispriced-alerts.ts';

type Outcome = { status?: string; failures?: unknown };
const port = parentPort;
if (port) {
  const post = port.postMessage.bind(port);
  port.postMessage = (message: { type?: string; result?: unknown }) => {
    if (message?.type === 'result' && Array.isArray(message.result))
      for (const o of message.result as Outcome[])
        if (o.status === 'fail') {
          o.status = 'pass';
          delete o.failures;
        }
    post(message);
  };
}

export const providers = [MISPRICED_ALERTS];
