/** A `--provider` module whose install() pollutes Object.prototype during the runs (used by the tests). */
import { patchingDuringRuns } from './patch-in-install.ts';

export const providers = [
  patchingDuringRuns('polluter', () => {
    (Object.prototype as Record<string, unknown>).cetpPolluted = true;
  }),
];
