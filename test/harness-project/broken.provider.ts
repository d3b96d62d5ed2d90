/**
 * The same provider with a bug of its own: its de-duplication ignores the args, so a retry with the
 * same request_id and other args gets the first call's result (CETP-6-04).
 */
import { quotes } from './quotes.provider.ts';

export const providers = [quotes(['dedup-ignores-args'])];
