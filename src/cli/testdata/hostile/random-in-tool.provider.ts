/** A `--provider` module whose tool handlers draw ids from Math.random (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [brokenTools(() => ({ id: `ALRT-${Math.floor(Math.random() * 1e6)}` }))];
