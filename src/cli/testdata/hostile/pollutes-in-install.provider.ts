/** A `--provider` module whose install() pollutes Object.prototype during the runs (used by the tests). */
import { ALERTS } from '../../../../properties/scenario/fixtures.ts';

let installs = 0;

export const providers = [
  {
    ...ALERTS,
    name: 'polluter',
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      // Not while the module is checked (the first installs), only once the runs have begun.
      if (++installs > 3) (Object.prototype as Record<string, unknown>).cetpPolluted = true;
      ALERTS.install(world, variant);
    },
  },
];
