/**
 * A `--provider` module whose provider declares no business effects (used by the CLI tests): the
 * alerts app as if written without the effect API — its declarations are dropped at the world — so
 * the effect oracles have nothing to judge, and the summary must say so.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export default {
  providers: [
    {
      ...ALERTS,
      name: 'undeclared',
      install: (
        world: Parameters<typeof ALERTS.install>[0],
        variant: Parameters<typeof ALERTS.install>[1],
      ) => {
        ALERTS.install(world, variant);
        world.truth.declareEffect = () => {};
      },
    },
  ],
  propertyTools: { idempotency: ['undeclared.create_alert', 'undeclared.get_quote'], default: 'all' },
};
