/**
 * A `--provider` module that reaches the judgement of its vectors in its own thread: the vector
 * matchers compare values with node:util's isDeepStrictEqual, a built-in module every module may
 * import; the module makes it answer "equal" to everything and syncs the ESM view, so that in the
 * worker that runs it the mispriced app's failing vectors would "pass". Node's built-in modules'
 * exports are watched (src/harness/builtin-modules.ts): it is refused at load, naming
 * `node:util.isDeepStrictEqual` (used by the tests; forges-vector-judge-in-install.provider.ts makes
 * the same patch later, where the judge in the CLI's thread must fail it).
 */
import { syncBuiltinESMExports } from 'node:module';
import util from 'node:util';
import { MISPRICED_ALERTS } from './mispriced-alerts.ts';

(util as { isDeepStrictEqual: (a: unknown, b: unknown) => boolean }).isDeepStrictEqual = () => true;
syncBuiltinESMExports();

export const providers = [MISPRICED_ALERTS];
