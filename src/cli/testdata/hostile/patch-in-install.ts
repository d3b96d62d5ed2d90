/**
 * The reference alerts app under another name, whose install() runs `patch` (with the world it is
 * given) once the runs have begun (not while the module is checked: its first installs). For the
 * `*-in-install` modules here.
 */
import { ALERTS } from './alerts.ts';

type Install = typeof ALERTS.install;

export function patchingDuringRuns(name: string, patch: (world: Parameters<Install>[0]) => void) {
  let installs = 0;
  return {
    ...ALERTS,
    name,
    install: (world: Parameters<Install>[0], variant: Parameters<Install>[1]) => {
      if (++installs > 3) patch(world);
      ALERTS.install(world, variant);
    },
  };
}
