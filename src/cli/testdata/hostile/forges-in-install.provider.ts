/**
 * A `--provider` module whose install() patches a prototype of cetp-sim's own classes during the
 * runs — `World.prototype.run`, reached through the world it is given (used by the tests).
 */
import { patchingDuringRuns } from './patch-in-install.ts';

export const providers = [
  patchingDuringRuns('forger', (world) => {
    const proto = Object.getPrototypeOf(world) as { run: (...a: unknown[]) => unknown };
    const run = proto.run;
    proto.run = function (this: unknown, ...args: unknown[]) {
      return run.apply(this, args);
    };
  }),
];
