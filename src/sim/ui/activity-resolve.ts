/**
 * Which Activity an Intent starts (activity.ts): an explicit component if it exists; otherwise the
 * exported activities whose filters match, highest priority first, a tie being a chooser the user
 * picks from — how an implicit or mutable PendingIntent gets hijacked by another installed app.
 */

import type { ActivityInfo } from '../pm/manifest.ts';
import { type PackageManager, SYSTEM_UID } from '../pm/package-manager.ts';
import { userIdOf } from '../pm/user-handle.ts';
import {
  type ActivityHost,
  ActivityNotFoundException,
  type ActivityResult,
  RESULT_CANCELED,
} from './activity-types.ts';
import type { ComponentName, Intent } from './intent.ts';

/**
 * Components an Intent resolves to (explicit: the component if it exists). Starting an Activity
 * with an implicit Intent is not subject to package visibility (the package-visibility guide:
 * <queries> governs what an app can *query*, not what startActivity can reach), so resolution
 * runs with the system's view.
 */
export function resolveActivities(pm: PackageManager, intent: Intent): ComponentName[] {
  if (intent.component) {
    const pkg = pm.getPackageInfo(intent.component.packageName);
    const a = pkg?.manifest.activities?.find((x) => x.name === intent.component?.className);
    return a ? [intent.component] : [];
  }
  // IntentFilter.match: an Intent with a data URI or MIME type matches only filters that declare
  // <data>; simulated intent filters declare none, so such an implicit Intent resolves to nothing.
  if (intent.data !== null || intent.type !== null) return [];
  const query: { action?: string; categories?: readonly string[] } = {};
  if (intent.action !== null) query.action = intent.action;
  if (intent.categories !== null) query.categories = intent.categories;
  const found = pm.queryIntentActivities(SYSTEM_UID, query);
  return found
    .filter((r) => intent.package === null || r.packageName === intent.package)
    .map((r) => ({ packageName: r.packageName, className: r.name }));
}

/** The component a launch starts; the user picks among the top-priority ties. */
export function pickActivity(world: Pick<ActivityHost, 'pm' | 'user'>, intent: Intent): ComponentName {
  const candidates = resolveActivities(world.pm, intent);
  if (candidates.length === 0) throw new ActivityNotFoundException(`No Activity found to handle ${intent}`);
  if (intent.component || candidates.length === 1) return candidates[0] as ComponentName;
  const top = topPriority(world.pm, candidates, intent);
  return top.length === 1 ? (top[0] as ComponentName) : world.user.chooseActivity(top);
}

/**
 * The component a launch by `senderUid` starts, its declaration, and the UID it runs under: the
 * package's UID in the sender's user. A PendingIntent fires as its creator, in the creator's user
 * (services/core/java/com/android/server/am/PendingIntentRecord.java `sendInner`: `key.userId` →
 * `startActivityInPackage(…, userId, …)`); an app's own start in its own user
 * (ActivityTaskManagerService `startActivityAsUser` → `handleIncomingUser`, resolved in that
 * userId). So user 10's provider's confirmation runs in user 10's process of the package
 * (`<package>@u10`); a package not installed for that user has no Activity to start there.
 */
export function launchTarget(
  world: Pick<ActivityHost, 'pm' | 'user'>,
  intent: Intent,
  senderUid: number,
): { component: ComponentName; info: ActivityInfo | undefined; targetUid: number } {
  const component = pickActivity(world, intent);
  const targetUid = world.pm.getPackageUidAsUser(component.packageName, userIdOf(senderUid));
  if (targetUid === null) throw new ActivityNotFoundException(`No Activity found to handle ${intent}`);
  const pkg = world.pm.getPackageInfo(component.packageName);
  const info = pkg?.manifest.activities?.find((a) => a.name === component.className);
  return { component, info, targetUid };
}

function topPriority(pm: PackageManager, candidates: ComponentName[], intent: Intent): ComponentName[] {
  const withPriority = pm
    .queryIntentActivities(SYSTEM_UID, intent.action !== null ? { action: intent.action } : {})
    .filter((r) => candidates.some((c) => c.packageName === r.packageName && c.className === r.name));
  const max = Math.max(...withPriority.map((r) => r.priority ?? 0));
  return withPriority
    .filter((r) => (r.priority ?? 0) === max)
    .map((r) => ({ packageName: r.packageName, className: r.name }));
}

/**
 * A launch that failed before its Activity existed — its process did not start (a crash in
 * onCreate, killed while starting, the publish timeout of a provider in it) or the launch
 * transaction did not reach it: the ActivityRecord is removed and its launcher gets RESULT_CANCELED
 * (ActivityRecord `finishActivityResults` → `resultTo.addResultLocked`), recorded as any other
 * result (`activity.result`, from the system), so an oracle sees why the launcher resumed.
 */
export function cancelledLaunch(
  world: Pick<ActivityHost, 'trace'>,
  launcher: { readonly process: { readonly name: string } },
  component: ComponentName,
  reason: string,
): ActivityResult {
  world.trace.record('activity.result', {
    from: 'system',
    to: launcher.process.name,
    activity: component.className,
    resultCode: RESULT_CANCELED,
    reason,
  });
  return { resultCode: RESULT_CANCELED, data: null };
}
