/**
 * A `--provider` module that imports cetp-sim's own checker list — not a public export — and
 * makes every checker a no-op, so that any run would pass (used by the tests: it must be refused).
 */
import { ALL_CHECKERS } from '../../../check/checkers/index.ts';
import { ALERTS } from './alerts.ts';

for (const checker of ALL_CHECKERS) (checker as unknown as { check: () => unknown[] }).check = () => [];

export const providers = [ALERTS];
