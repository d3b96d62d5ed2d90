/** A `--provider` module that arms a real interval timer while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

setInterval(() => {}, 1_000);

export const providers = [ALERTS];
