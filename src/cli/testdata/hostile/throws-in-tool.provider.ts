/** A `--provider` module whose tool handlers throw (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(() => {
    throw new Error('storage offline');
  }),
];
