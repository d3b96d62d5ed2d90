/**
 * The vector-judge forger (forges-vector-judge.provider.ts) made late: instead of at load — now
 * refused, node:util being watched — its install() makes node:util's isDeepStrictEqual answer
 * "equal" to everything and syncs the ESM view, so that the vector matchers in its worker "pass" the
 * mispriced app's failing vectors (used by the tests: the judge in the CLI's thread must fail them).
 */
import { syncBuiltinESMExports } from 'node:module';
import util from 'node:util';
import { MISPRICED_ALERTS } from './mispriced-alerts.ts';

type Install = typeof MISPRICED_ALERTS.install;

export const providers = [
  {
    ...MISPRICED_ALERTS,
    install: (...args: Parameters<Install>) => {
      (util as { isDeepStrictEqual: (a: unknown, b: unknown) => boolean }).isDeepStrictEqual = () => true;
      syncBuiltinESMExports();
      return MISPRICED_ALERTS.install(...args);
    },
  },
];
