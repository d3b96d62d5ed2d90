/** A `--provider` module that draws from Math.random while it loads (used by the tests). */
import { ALERTS } from './alerts.ts';

export const SESSION_SALT = Math.random().toString(36).slice(2);

export const providers = [ALERTS];
