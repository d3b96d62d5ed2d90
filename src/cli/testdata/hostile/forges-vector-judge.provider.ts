/**
 * A `--provider` module that reaches the judgement of its vectors in its own thread: the vector
 * matchers compare values with node:util's isDeepStrictEqual, a built-in module every module may
 * import, whose exports are not watched; the module makes it answer "equal" to everything and
 * syncs the ESM view, so that in the worker that runs it the mispriced app's failing vectors "pass"
 * (used by the tests: the judge in the CLI's thread must fail them all the same).
 */
import { syncBuiltinESMExports } from 'node:module';
import util from 'node:util';
import { MISPRICED_ALERTS } from './mispriced-alerts.ts';

(util as { isDeepStrictEqual: (a: unknown, b: unknown) => boolean }).isDeepStrictEqual = () => true;
syncBuiltinESMExports();

export const providers = [MISPRICED_ALERTS];
