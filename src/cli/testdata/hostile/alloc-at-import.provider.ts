/** A `--provider` module that allocates without bound while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

const hoard: number[][] = [];
for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));

export const providers = [ALERTS];
