/** A `--provider` module whose tool handlers call process.exit (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(() => {
    process.exit(0);
  }),
];
