/** A `--provider` module whose install() replaces Math.random during the runs (used by the tests). */
import { patchingDuringRuns } from './patch-in-install.ts';

export const providers = [
  patchingDuringRuns('patcher', () => {
    Math.random = () => 0.25;
  }),
];
