/** A `--provider` module whose tool handlers read the wall clock (used by the tests). */
import { brokenTools } from './alerts.ts';

export const providers = [brokenTools(() => ({ ok: true, at: Date.now() }))];
