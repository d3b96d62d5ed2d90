/**
 * A `--provider` module that patches `World.prototype.run` — reached through the public API — as
 * it loads, hiding how runs end (used by the tests: it must be refused).
 */
import { World } from 'cetp-sim';
import { ALERTS } from './alerts.ts';

const run = World.prototype.run;
World.prototype.run = function (this: World, ...args: Parameters<typeof run>) {
  return run.apply(this, args);
};

export const providers = [ALERTS];
