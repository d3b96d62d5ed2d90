/** Every tool handler spins cooperatively: it yields to the scheduler forever and never answers. */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async (call) => {
    for (;;) await call.context.yield();
  }),
];
