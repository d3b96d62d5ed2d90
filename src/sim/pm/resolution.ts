/**
 * Intent and authority resolution: which services, activities and providers a caller may reach,
 * filtered by package visibility and exportedness, ordered by filter priority then install order.
 */
import {
  type ActivityInfo,
  type IntentQuery,
  matchPriority,
  type ProviderInfo,
  type ServiceInfo,
} from './manifest.ts';
import type { PackageTable } from './table.ts';
import type {
  ActivityQuery,
  InstalledPackage,
  ResolvedActivity,
  ResolvedProvider,
  ResolvedService,
  ServiceQuery,
} from './types.ts';
import { userIdOf } from './user-handle.ts';
import type { Visibility } from './visibility.ts';

export class Resolver {
  constructor(
    private readonly table: PackageTable,
    private readonly visibility: Visibility,
  ) {}

  /**
   * queryIntentServices as `callerUid`: services of visible packages, exported or of the caller's
   * own UID, with a filter matching the intent; by priority (highest first), then install order.
   */
  queryIntentServices(callerUid: number, intent: string | ServiceQuery): ResolvedService[] {
    const query: ServiceQuery = typeof intent === 'string' ? { action: intent } : intent;
    return this.matching(callerUid, query, (pkg) => pkg.manifest.services, toResolvedService);
  }

  /**
   * queryIntentActivities as `callerUid`. Explicit component: that activity, if it exists, is
   * exported or of the caller's UID, and its package is visible. Implicit: as for services.
   */
  queryIntentActivities(callerUid: number, intent: ActivityQuery): ResolvedActivity[] {
    if (intent.component) {
      const { packageName, className } = intent.component;
      const pkg = this.table.get(packageName);
      const activity = pkg?.manifest.activities.find((a) => a.name === className);
      if (!pkg || !activity || !this.visibility.canSee(callerUid, pkg.uid)) return [];
      if (!activity.exported && pkg.uid !== callerUid) return [];
      return [toResolvedActivity(pkg, activity, 0)];
    }
    return this.matching(callerUid, intent, (pkg) => pkg.manifest.activities, toResolvedActivity);
  }

  /**
   * resolveContentProvider as `callerUid` in `userId` (the caller's own by default): null for an
   * unknown authority or an invisible package; the package's first user's if it is not installed for `userId`.
   */
  resolveContentProvider(
    callerUid: number,
    authority: string,
    userId: number = userIdOf(callerUid),
  ): ResolvedProvider | null {
    const owner = this.providerForAuthority(authority);
    if (!owner) return null;
    // The provider of that user, if the package is installed for it (its UID there).
    const uids = this.table.uidsOf(this.table.require(owner.packageName));
    const uid = uids.find((u) => userIdOf(u) === userId) ?? owner.uid;
    const found = uid === owner.uid ? owner : { ...owner, uid };
    return found && this.visibility.canSee(callerUid, found.uid) ? found : null;
  }

  /** The provider owning `authority`, unfiltered (for the system itself). */
  providerForAuthority(authority: string): ResolvedProvider | null {
    for (const pkg of this.table.values()) {
      const p = pkg.manifest.providers.find((x) => x.authorities.includes(authority));
      if (p) return toResolvedProvider(pkg, p, authority);
    }
    return null;
  }

  /**
   * The components (`of` each candidate package) that match `query` as `callerUid`, resolved: by
   * priority (highest first), then install order.
   */
  private matching<C extends ServiceInfo | ActivityInfo, R extends { readonly priority: number }>(
    callerUid: number,
    query: IntentQuery & { readonly packageName?: string | undefined },
    of: (pkg: InstalledPackage) => readonly C[],
    resolved: (pkg: InstalledPackage, component: C, priority: number) => R,
  ): R[] {
    const found: R[] = [];
    for (const pkg of this.candidates(callerUid, query.packageName)) {
      for (const c of of(pkg)) {
        const priority = componentPriority(callerUid, pkg, c, query);
        if (priority !== null) found.push(resolved(pkg, c, priority));
      }
    }
    return found.sort((a, b) => b.priority - a.priority);
  }

  /** Packages whose components a query may return: visible, and the one named if any. */
  private candidates(callerUid: number, packageName: string | undefined): InstalledPackage[] {
    return [...this.table.values()]
      .filter((p) => packageName === undefined || p.packageName === packageName)
      .filter((p) => this.visibility.canSee(callerUid, p.uid))
      .sort((a, b) => a.installSeq - b.installSeq);
  }
}

function componentPriority(
  callerUid: number,
  pkg: InstalledPackage,
  component: ServiceInfo | ActivityInfo,
  intent: IntentQuery,
): number | null {
  if (!component.exported && pkg.uid !== callerUid) return null;
  return matchPriority(component.intentFilters, intent);
}

function toResolvedService(pkg: InstalledPackage, s: ServiceInfo, priority: number): ResolvedService {
  return {
    packageName: pkg.packageName,
    name: s.name,
    uid: pkg.uid,
    exported: s.exported,
    permission: s.permission,
    metaData: s.metaData,
    priority,
  };
}

function toResolvedActivity(pkg: InstalledPackage, a: ActivityInfo, priority: number): ResolvedActivity {
  return { packageName: pkg.packageName, name: a.name, uid: pkg.uid, exported: a.exported, priority };
}

function toResolvedProvider(pkg: InstalledPackage, p: ProviderInfo, authority: string): ResolvedProvider {
  return {
    packageName: pkg.packageName,
    name: p.name,
    uid: pkg.uid,
    authority,
    authorities: p.authorities,
    exported: p.exported,
    readPermission: p.readPermission,
    writePermission: p.writePermission,
    pathPermissions: p.pathPermissions,
    grantUriPermissions: p.grantUriPermissions,
    processName: p.processName,
    metaData: p.metaData,
  };
}
