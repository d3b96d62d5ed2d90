/**
 * Driving a second Android user from a harness (FIDELITY.md row 35.8c): what a scenario needs to
 * run app code as user 10 of a package installed for several users. The simulation's multi-user
 * API, in one place:
 *
 * - `world.install({ ...spec, userId: 10 })` installs a package for user 10 only (UID 10 × 100000 + appId);
 *   `world.pm.installExistingPackageAsUser(pkg, 10)` adds user 10 to an installed package (returns its UID);
 *   `world.pm.deletePackageAsUser(pkg, 10)` removes it from user 10 only (`pm uninstall --user 10`);
 * - `world.pm.getPackageUidAsUser(pkg, 10)`; `world.pm.grantRuntimePermission(pkg, perm, 10)`;
 * - `authorityForUser(10, authority)` (pm/user-handle.ts) names user 10's provider from another user:
 *   the caller needs INTERACT_ACROSS_USERS(_FULL) (platform-signed apps) or a URI grant there;
 * - `world.launchApp(pkg, uid)` and `spawnInAsUser` below start the package's process in the user of `uid`
 *   (`<pkg>@u10` when the package's first user is another); `world.process(pkg, pkg, uid)` is its record.
 */
import type { AppContext } from './app/context.ts';
import type { Task } from './core/scheduler.ts';
import type { World } from './world.ts';

/**
 * World.spawnIn in the user of `uid`: the user opens the app there (its process in that user is
 * started if needed), then `body` runs as a thread of that process. Nothing runs if the package is
 * not installed for that user or its start fails (`launch.failed`, as spawnIn).
 */
export function spawnInAsUser(
  world: World,
  packageName: string,
  uid: number,
  name: string,
  body: (context: AppContext) => Promise<void>,
): Task {
  return world.spawn(`launch:${packageName}:${name}`, async () => {
    if (!(await world.launchApp(packageName, uid))) {
      world.trace.record('launch.failed', { actor: packageName, uid, task: name });
      return;
    }
    const context = world.process(packageName, packageName, uid).context as AppContext;
    context.spawn(name, () => body(context));
  });
}
