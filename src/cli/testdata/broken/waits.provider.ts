/**
 * Every tool handler blocks its thread for good without burning a core: Atomics.wait on a word no one
 * ever changes (blocks.provider.ts is the busy-looping kind). Only the watchdog ends such a run.
 */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    throw new Error('unreachable: nothing ever wakes this wait');
  }),
];
