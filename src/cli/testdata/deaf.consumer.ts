/**
 * A `--consumer` module that ignores the variant (used by the tests): the reference consumer app,
 * always installed without planted bugs or ablated rules — the mistake a hand-written install()
 * makes when it does not pass `variant.consumerBugs` through. `--mutant consumer-…` cannot reach it.
 */
import { referenceConsumer } from '../../consumer/index.ts';

const NO_BUGS = { providerBugs: [], consumerBugs: [], disabledRules: [] };

export const consumer = {
  ...referenceConsumer,
  name: 'deaf',
  install: (
    world: Parameters<typeof referenceConsumer.install>[0],
    options: Parameters<typeof referenceConsumer.install>[1],
  ) => referenceConsumer.install(world, { ...options, variant: NO_BUGS }),
};
