/**
 * A `--provider` module with module-level state (used by the CLI tests): it counts installs at its
 * top level and, from the 20th World it is installed into, plants a bug (v1 list_tools also lists
 * write tools). Its failures depend on the runs before them — a fresh instance of the module (what
 * `cetp-sim replay` loads) passes the same scenario.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

let installs = 0;

export const providers = [
  {
    ...ALERTS,
    name: 'stateful',
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      installs++;
      ALERTS.install(
        world,
        installs >= 20
          ? { ...variant, providerBugs: [...variant.providerBugs, 'v1-lists-write-tools'] }
          : variant,
      );
    },
  },
];
