/** A `--provider` module that calls process.exit while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

process.exit(0);

export const providers = [ALERTS];
