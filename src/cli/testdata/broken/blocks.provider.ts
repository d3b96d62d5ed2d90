/**
 * Every tool handler blocks its thread with a synchronous infinite loop, burning a core until the
 * watchdog stops it (the replay test's; the fuzz of every property blocks in waits.provider.ts).
 */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async () => {
    for (;;) {
      // busy
    }
  }),
];
