/** A `--provider` module whose tool handlers allocate without bound (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(async () => {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  }),
];
