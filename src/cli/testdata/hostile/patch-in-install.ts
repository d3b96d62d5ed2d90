/**
 * The reference alerts app under another name, whose install() runs `patch` once the runs have
 * begun (not while the module is checked: its first installs). For the `*-in-install` modules here.
 */
import { ALERTS } from '../../../../properties/scenario/fixtures.ts';

export function patchingDuringRuns(name: string, patch: () => void) {
  let installs = 0;
  return {
    ...ALERTS,
    name,
    install: (world: Parameters<typeof ALERTS.install>[0], variant: Parameters<typeof ALERTS.install>[1]) => {
      if (++installs > 3) patch();
      ALERTS.install(world, variant);
    },
  };
}
