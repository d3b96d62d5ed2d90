/**
 * A `--provider` module with module-level state (used by the CLI tests): the alerts app with a bug
 * (v1 list_tools also lists write tools) in the first four Worlds it is installed into only — the
 * two of loading it (the fixture checks: a preflight and a probe) and the two of its first run —
 * and never again. A fresh instance of the module fails the
 * first scenario it runs; the same instance, running that scenario again, passes it.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

let installs = 0;

export const providers = [
  {
    ...ALERTS,
    name: 'firstleaky',
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      installs++;
      ALERTS.install(
        world,
        installs <= 3
          ? { ...variant, providerBugs: [...variant.providerBugs, 'v1-lists-write-tools'] }
          : variant,
      );
    },
  },
];
