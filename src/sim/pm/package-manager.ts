/**
 * The simulated PackageManager: installed packages, their UIDs, signing identities, permissions,
 * components and package visibility — one facade over the concerns in `pm/`, each with the model
 * it follows and its sources:
 *
 * - pm/table.ts — the installed packages, the by-UID index, the generation counter;
 * - pm/installs.ts — installs, updates, re-signs, uninstalls, reboots, shared users;
 * - pm/uids.ts — application UID allocation (freed UIDs are reused only after a reboot, so
 *   UID-keyed caches must be invalidated on uninstall);
 * - pm/permissions.ts — definitions ("first one in wins") and install-time / runtime grants;
 * - pm/visibility.ts — Android 11 package visibility (AppsFilter);
 * - pm/resolution.ts — intent and authority resolution;
 * - pm/signing-queries.ts — what an app may ask about another package's certificates;
 * - pm/types.ts — constants, result codes and the records the queries answer with.
 */

import { IllegalArgumentException, SimUsageError } from '../core/errors.ts';
import type { Trace } from '../core/trace.ts';
import { Installer } from './installs.ts';
import type { PackageSpec } from './manifest.ts';
import { Permissions } from './permissions.ts';
import { Resolver } from './resolution.ts';
import type { SigningDetails } from './signing.ts';
import { hasSigningCertificate, hasSigningCertificateForPackage, signingInfo } from './signing-queries.ts';
import { PackageTable } from './table.ts';
import type {
  ActivityQuery,
  InstalledPackage,
  PackageListener,
  ResolvedActivity,
  ResolvedProvider,
  ResolvedService,
  ServiceQuery,
  SigningInfo,
} from './types.ts';
import { ROOT_UID, SYSTEM_UID } from './types.ts';
import { AppIds } from './uids.ts';
import { userIdOf } from './user-handle.ts';
import { Visibility } from './visibility.ts';

export type { PackageSpec } from './manifest.ts';
export * from './types.ts';

export class PackageManager {
  private readonly trace: Trace;
  private readonly table = new PackageTable();
  private readonly permissions = new Permissions(this.table);
  private readonly visibility = new Visibility(this.table);
  private readonly resolver = new Resolver(this.table, this.visibility);
  private readonly installer: Installer;
  private readonly listeners: PackageListener[] = [];

  constructor(trace: Trace) {
    this.trace = trace;
    this.installer = new Installer({
      trace,
      table: this.table,
      appIds: new AppIds(),
      permissions: this.permissions,
      visibility: this.visibility,
      resolver: this.resolver,
      notify: (event) => {
        for (const l of [...this.listeners]) event(l);
      },
    });
  }

  addListener(listener: PackageListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  // ---- install, update, uninstall (pm/installs.ts) ----

  install(spec: PackageSpec): InstalledPackage {
    return this.installer.install(spec);
  }

  /** Replaces an installed package (`adb install -r`): same UID, new manifest and signing. */
  update(spec: PackageSpec): InstalledPackage {
    return this.installer.replace('update', spec);
  }

  /**
   * Simulation verb: the package is re-signed in place with `signing` — an update with a rotated
   * key when compatible, else INSTALL_FAILED_UPDATE_INCOMPATIBLE.
   */
  resign(packageName: string, signing: SigningDetails): InstalledPackage {
    this.table.require(packageName);
    const spec = this.table.specOf(packageName) as PackageSpec;
    return this.installer.replace('resign', { manifest: spec.manifest, signing });
  }

  /** Uninstall, then install `spec` (typically under an unrelated key): a new UID in this boot. */
  reinstallWithNewKey(spec: PackageSpec): InstalledPackage {
    if (this.table.has(spec.manifest.packageName)) this.uninstall(spec.manifest.packageName);
    return this.install(spec);
  }

  uninstall(packageName: string): void {
    this.installer.uninstall(packageName);
  }

  /**
   * PackageManagerService installExistingPackageAsUser: an installed package installed for another
   * user too — same appId, its own UID there (user-handle.ts), its own data directory. Returns the UID.
   */
  installExistingPackageAsUser(packageName: string, userId: number): number {
    const uid = this.table.addUser(packageName, userId);
    this.permissions.evaluate(uid);
    this.trace.record('pm.install.user', { actor: 'system', package: packageName, userId, uid });
    return uid;
  }

  /**
   * PackageManager.deletePackageAsUser(packageName, userId) / `pm uninstall --user N`: the package
   * leaves that user only — its UID there loses its grants and visibility, listeners kill its
   * processes and remove its data directory — while its other users keep it (DeletePackageHelper
   * `deletePackageLIF`: `markPackageUninstalledForUserLPw` + RemovePackageHelper
   * `clearPackageStateForUserLIF` while another user has it installed). Its last user: a full
   * uninstall ("Not installed by other users, full delete"). Its first user while others keep it:
   * the next user's UID becomes the package's first (`getPackageUid`); process names do not change
   * (`homeUidOf`). Not modelled for a sharedUserId package (a SimUsageError).
   */
  deletePackageAsUser(packageName: string, userId: number): void {
    const pkg = this.table.require(packageName);
    const uids = this.table.uidsOf(pkg);
    if (!uids.some((u) => userIdOf(u) === userId)) return; // not installed for that user
    if (uids.length === 1) this.uninstall(packageName);
    if (uids.length === 1) return;
    const first = userIdOf(pkg.uid) === userId;
    if (first && pkg.sharedUserId !== null)
      throw new SimUsageError(
        `deletePackageAsUser of shared-user ${packageName}'s first user is not modelled`,
      );
    const next = userIdOf(uids[1] as number);
    const uid = first
      ? this.table.rehome(packageName, next)
      : (this.table.removeUser(packageName, userId) as number);
    if (this.table.ofUid(uid).length === 0) this.permissions.forgetUid(uid);
    this.visibility.forget(uid);
    this.trace.record('pm.uninstall.user', { actor: 'system', package: packageName, userId, uid });
    for (const l of [...this.listeners]) l.onPackageRemovedForUser?.(packageName, uid);
  }

  /** The UID the package was first installed under: its processes in that user carry no `@u<user>` suffix. */
  homeUidOf(packageName: string): number | null {
    return this.table.homeUidOf(packageName) ?? null;
  }

  /** The package's UID in `userId`, or null if it is not installed for that user. */
  getPackageUidAsUser(packageName: string, userId: number): number | null {
    const pkg = this.table.get(packageName);
    return (pkg && this.table.uidsOf(pkg).find((u) => userIdOf(u) === userId)) ?? null;
  }

  /** A device reboot (see Installer.reboot). */
  reboot(): void {
    this.installer.reboot();
  }

  // ---- queries ----

  /**
   * A counter that moves whenever anything a UID's packages, signing or visibility depend on
   * changes (install, update, re-sign, uninstall, reboot, implicit visibility): answers derived from
   * those queries may be reused while it stays the same.
   */
  get generation(): number {
    return this.table.generation;
  }

  getPackageInfo(packageName: string): InstalledPackage | null {
    return this.table.get(packageName) ?? null;
  }

  getPackageUid(packageName: string): number | null {
    return this.table.get(packageName)?.uid ?? null;
  }

  /** Every package of the UID (several for a shared UID), in install order; null if none. */
  getPackagesForUid(uid: number): string[] | null {
    const names = this.table.ofUid(uid).map((p) => p.packageName);
    return names.length > 0 ? names : null;
  }

  /** The package name, or "sharedUserName:uid" for a shared UID; null if the UID has no package. */
  getNameForUid(uid: number): string | null {
    const [first] = this.table.ofUid(uid);
    if (!first) return null;
    return first.sharedUserId !== null ? `${first.sharedUserId}:${uid}` : first.packageName;
  }

  getInstalledPackages(): InstalledPackage[] {
    return [...this.table.values()];
  }

  // ---- signing (pm/signing-queries.ts) ----

  /**
   * hasSigningCertificate(uid, sha256, CERT_INPUT_SHA256): any package of the UID whose signing
   * history contains the certificate (any lineage certificate; never for a multi-signer package).
   */
  hasSigningCertificate(uid: number, sha256: string): boolean {
    return hasSigningCertificate(this.table, uid, sha256);
  }

  hasSigningCertificateForPackage(packageName: string, sha256: string): boolean {
    return hasSigningCertificateForPackage(this.table, packageName, sha256);
  }

  getSigningInfo(packageName: string): SigningInfo | null {
    return signingInfo(this.table, packageName);
  }

  // ---- permissions (pm/permissions.ts) ----

  /**
   * PackageManager.checkPermission for a UID: root and system hold everything; otherwise the
   * permission must be defined and granted to the UID (see pm/permissions.ts).
   */
  checkPermission(permission: string, uid: number): boolean {
    return this.permissions.check(permission, uid);
  }

  /**
   * ActivityManager.checkComponentPermission: root/system pass; the component's own UID passes;
   * an unexported component refuses everyone else; no permission ⇒ granted; else checkPermission.
   */
  checkComponentPermission(
    permission: string | null,
    uid: number,
    owningUid: number,
    exported: boolean,
  ): boolean {
    if (uid === ROOT_UID || uid === SYSTEM_UID) return true;
    if (owningUid >= 0 && uid === owningUid) return true;
    if (!exported) return false;
    if (permission === null) return true;
    return this.checkPermission(permission, uid);
  }

  /**
   * `pm grant --user N` / the user allowing a dangerous (runtime) permission: granted to the
   * package's UID in `userId` (default: its first user's) — runtime grants are per user
   * (PermissionManagerServiceImpl `grantRuntimePermissionInternal(packageName, permName, …, userId)`:
   * the package's UID in that user; "Unknown package" if it is not installed there).
   */
  grantRuntimePermission(packageName: string, permission: string, userId?: number): void {
    const pkg = this.table.require(packageName);
    const uid = this.uidForGrant(pkg, userId);
    if (!this.permissions.grantRuntime(pkg, permission, uid)) return;
    this.trace.record('pm.grant', { actor: 'system', package: packageName, uid, permission });
  }

  /** `pm revoke [--user N]` / the user denying it in Settings; listeners should kill the UID's processes. */
  revokeRuntimePermission(packageName: string, permission: string, userId?: number): void {
    const pkg = this.table.require(packageName);
    const uid = this.uidForGrant(pkg, userId);
    if (!this.permissions.revokeRuntime(pkg, permission, uid)) return;
    this.trace.record('pm.revoke', { actor: 'system', package: packageName, uid, permission });
    for (const l of [...this.listeners]) l.onRuntimePermissionRevoked?.(uid, permission);
  }

  private uidForGrant(pkg: InstalledPackage, userId: number | undefined): number {
    if (userId === undefined) return pkg.uid;
    const uid = this.getPackageUidAsUser(pkg.packageName, userId);
    if (uid === null) throw new IllegalArgumentException(`Unknown package: ${pkg.packageName}`);
    return uid;
  }

  // ---- package visibility (pm/visibility.ts) ----

  /** Whether `callerUid` may see `targetPackage` (AppsFilter; see Visibility.canSee). */
  canSeePackage(callerUid: number, targetPackage: string): boolean {
    const target = this.table.get(targetPackage);
    return target !== undefined && this.visibility.canSee(callerUid, target.uid);
  }

  /**
   * AppsFilter.grantImplicitAccess: `actorUid` becomes visible to `observerUid` (an app that binds
   * to your service or accesses your provider becomes visible to you). Dropped when either side's
   * package is removed or updated, and on reboot.
   */
  recordInteraction(observerUid: number, actorUid: number): void {
    if (!this.visibility.grantImplicitAccess(observerUid, actorUid)) return;
    this.trace.record('pm.visibility', { actor: 'system', observerUid, actorUid });
  }

  // ---- component resolution (pm/resolution.ts) ----

  /**
   * queryIntentServices as `callerUid`: services of visible packages, exported or of the caller's
   * own UID, with a filter matching the intent; by priority (highest first), then install order.
   */
  queryIntentServices(callerUid: number, intent: string | ServiceQuery): ResolvedService[] {
    return this.resolver.queryIntentServices(callerUid, intent);
  }

  /**
   * queryIntentActivities as `callerUid`. Explicit component: that activity, if it exists, is
   * exported or of the caller's UID, and its package is visible. Implicit: as for services.
   */
  queryIntentActivities(callerUid: number, intent: ActivityQuery): ResolvedActivity[] {
    return this.resolver.queryIntentActivities(callerUid, intent);
  }

  /** resolveContentProvider as `callerUid` in `userId` (default: the caller's): null if unknown or invisible. */
  resolveContentProvider(callerUid: number, authority: string, userId?: number): ResolvedProvider | null {
    return this.resolver.resolveContentProvider(callerUid, authority, userId);
  }

  /** The provider owning `authority`, unfiltered (for the system itself). */
  providerForAuthority(authority: string): ResolvedProvider | null {
    return this.resolver.providerForAuthority(authority);
  }
}
