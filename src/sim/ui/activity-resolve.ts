/**
 * Which Activity an Intent starts (activity.ts): an explicit component if it exists; otherwise the
 * exported activities whose filters match, highest priority first, a tie being a chooser the user
 * picks from — how an implicit or mutable PendingIntent gets hijacked by another installed app.
 */

import { type PackageManager, SYSTEM_UID } from '../pm/package-manager.ts';
import { type ActivityHost, ActivityNotFoundException } from './activity-types.ts';
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

function topPriority(pm: PackageManager, candidates: ComponentName[], intent: Intent): ComponentName[] {
  const withPriority = pm
    .queryIntentActivities(SYSTEM_UID, intent.action !== null ? { action: intent.action } : {})
    .filter((r) => candidates.some((c) => c.packageName === r.packageName && c.className === r.name));
  const max = Math.max(...withPriority.map((r) => r.priority ?? 0));
  return withPriority
    .filter((r) => (r.priority ?? 0) === max)
    .map((r) => ({ packageName: r.packageName, className: r.name }));
}
