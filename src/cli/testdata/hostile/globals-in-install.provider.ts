/** A `--provider` module whose install() replaces Math.random during the runs (used by the tests). */
import { ALERTS } from '../../../../properties/scenario/fixtures.ts';

let installs = 0;

export const providers = [
  {
    ...ALERTS,
    name: 'patcher',
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      // Not while the module is checked (the first installs), only once the runs have begun.
      if (++installs > 3) Math.random = () => 0.25;
      ALERTS.install(world, variant);
    },
  },
];
