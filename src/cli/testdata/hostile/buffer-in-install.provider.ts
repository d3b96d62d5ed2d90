/**
 * A `--provider` module whose install() replaces Buffer.byteLength during the runs — the count the
 * inline limit (CETP-4.5-01) and max_request_bytes are judged by (used by the tests).
 */
import { patchingDuringRuns } from './patch-in-install.ts';

export const providers = [
  patchingDuringRuns('byte_counter', () => {
    Buffer.byteLength = () => 0;
  }),
];
