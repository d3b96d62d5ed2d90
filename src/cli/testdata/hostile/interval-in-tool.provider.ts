/** A `--provider` module whose tool handlers arm a real interval timer (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(() => {
    setInterval(() => {}, 60_000);
    return { ok: true };
  }),
];
