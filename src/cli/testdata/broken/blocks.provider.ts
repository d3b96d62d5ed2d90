/** Every tool handler blocks its thread with a synchronous infinite loop. */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async () => {
    for (;;) {
      // busy
    }
  }),
];
