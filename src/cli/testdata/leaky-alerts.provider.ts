/**
 * A `--provider` module with a bug of its own (used by the CLI tests): the alerts app whose v1
 * list_tools also lists its write tools, whatever variant the fuzzer asks for.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export default {
  providers: [
    {
      ...ALERTS,
      name: 'leaky',
      install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) =>
        ALERTS.install(world, {
          ...variant,
          providerBugs: [...variant.providerBugs, 'v1-lists-write-tools'],
        }),
    },
  ],
};
