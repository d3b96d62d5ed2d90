/**
 * Package visibility (Android 11, AppsFilter; developer.android.com/training/package-visibility).
 */
import { matchPriority, type ResolvedManifest } from './manifest.ts';
import type { PackageTable } from './table.ts';
import { FIRST_APPLICATION_UID, PACKAGE_VISIBILITY_SDK, QUERY_ALL_PACKAGES } from './types.ts';

export class Visibility {
  /** AppsFilter.mImplicitlyQueryable: observer UID → UIDs made visible to it. */
  private readonly implicitlyVisible = new Map<number, Set<number>>();

  constructor(private readonly table: PackageTable) {}

  /**
   * AppsFilter.shouldFilterApplication, inverted. A caller sees the target if: it is a system UID
   * (< 10000); any package of its UID targets < 30 (filtering is off for it); it is the same UID;
   * any of its packages requests QUERY_ALL_PACKAGES; or, keyed by the target's UID: the target UID
   * is force-queryable, is named in its `<queries><package>`, has an EXPORTED component whose
   * intent filter matches one of its `<queries><intent>`, or an EXPORTED provider with an authority
   * in its `<queries><provider>`; or the target UID interacted with it (`recordInteraction`).
   */
  canSee(callerUid: number, targetUid: number): boolean {
    if (callerUid < FIRST_APPLICATION_UID || callerUid === targetUid) return true;
    const callers = this.table.ofUid(callerUid);
    if (callers.length === 0) return false;
    // FeatureConfig.packageIsEnabled: a single member below Android 11 turns filtering off.
    if (callers.some((c) => c.targetSdk < PACKAGE_VISIBILITY_SDK)) return true;
    if (callers.some((c) => c.manifest.usesPermissions.includes(QUERY_ALL_PACKAGES))) return true;
    const targets = this.table.ofUid(targetUid);
    if (targets.length === 0) return false;
    if (targets.some((t) => t.manifest.forceQueryable)) return true;
    for (const c of callers) {
      if (targets.some((t) => c.manifest.queries.packages.includes(t.packageName))) return true;
      if (targets.some((t) => canQueryViaComponents(c.manifest, t.manifest))) return true;
    }
    return this.implicitlyVisible.get(callerUid)?.has(targetUid) ?? false;
  }

  /**
   * AppsFilter.grantImplicitAccess: `actorUid` becomes visible to `observerUid`; false if it
   * already was (or is the same UID).
   */
  grantImplicitAccess(observerUid: number, actorUid: number): boolean {
    if (observerUid === actorUid) return false;
    const set = this.implicitlyVisible.get(observerUid) ?? new Set<number>();
    this.implicitlyVisible.set(observerUid, set);
    if (set.has(actorUid)) return false;
    set.add(actorUid);
    this.table.changed();
    return true;
  }

  /** The UID's package was removed or updated: implicit visibility either way is dropped. */
  forget(uid: number): void {
    this.implicitlyVisible.delete(uid);
    for (const set of this.implicitlyVisible.values()) set.delete(uid);
    this.table.changed();
  }

  /** A reboot: AppsFilter keeps implicit visibility in memory only (inference). */
  reboot(): void {
    this.implicitlyVisible.clear();
  }
}

/**
 * AppsFilterUtils.canQueryViaComponents: one of the querying package's `<queries><intent>` matches
 * an intent filter of an EXPORTED service or activity of the target, or one of its
 * `<queries><provider>` authorities belongs to an EXPORTED provider of the target.
 */
function canQueryViaComponents(querying: ResolvedManifest, target: ResolvedManifest): boolean {
  for (const q of querying.queries.intents) {
    const components = [...target.services, ...target.activities];
    if (components.some((c) => c.exported && matchPriority(c.intentFilters, { action: q.action }) !== null)) {
      return true;
    }
  }
  const authorities = querying.queries.providers;
  return target.providers.some((p) => p.exported && p.authorities.some((a) => authorities.includes(a)));
}
