/**
 * Every tool handler sleeps 0.3 s of wall time without burning a core (Atomics.wait with a timeout),
 * then throws: a run that is slow but ends — the watched-run test's early run (worker/watched-run.test.ts).
 */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    throw new Error('woke from a 0.3 s nap');
  }),
];
