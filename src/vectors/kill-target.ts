/**
 * The process a vector's or `serve`'s `kill` step kills (format.ts KILL_TARGETS): `main` (the
 * default, what a kill step always meant) is the provider app's main process, named after its
 * package; `provider` is the process its CETP provider runs in — `<package>:cetp` for a provider
 * declaring `android:process=":cetp"` (sim/pm/manifest.ts processNameOf), else the main process. So a
 * device team can say "the provider's process died" for an app whose confirmation screen lives on
 * in the main process.
 */
import type { World } from '../sim/world.ts';
import type { KillTarget } from './format.ts';

export function killTargetProcess(
  world: Pick<World, 'pm'>,
  fixture: { readonly packageName: string; readonly authority: string },
  target: KillTarget = 'main',
): string {
  if (target === 'main') return fixture.packageName;
  return world.pm.providerForAuthority(fixture.authority)?.processName ?? fixture.packageName;
}
