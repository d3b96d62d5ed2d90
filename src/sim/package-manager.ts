/**
 * The simulated PackageManager: installed packages, their UIDs, signing identities, permissions,
 * components and package visibility. What it models, and where that comes from:
 *
 * - UIDs (AppIdSettingMap, AIM): application UIDs 10000–19999; a new one takes the first free slot
 *   ≥ `firstAvailableAppId`; removing a package frees its slot but raises that counter (in memory
 *   only), so a freed UID is not reused in the same boot. Inference: after a reboot the counter
 *   starts again at 10000 and freed UIDs are handed out again — so UID-keyed caches must be
 *   invalidated on uninstall.
 * - Shared UIDs (`sharedUserId`, deprecated API 29): all members share one UID; joining needs a
 *   signer compatible with the shared user's (checkCapability SHARED_USER_ID either way, else
 *   INSTALL_FAILED_SHARED_USER_INCOMPATIBLE); the UID is freed when the last member goes; an update
 *   may not move a package to another shared user (INSTALL_FAILED_UID_CHANGED).
 * - Updates (InstallPackageHelper.preparePackageLI): allowed when the new signing vouches for the
 *   old one with installed-data, or the old vouches for the new one with rollback (signing.ts
 *   `canUpdateTo`), else INSTALL_FAILED_UPDATE_INCOMPATIBLE; no downgrade of versionCode.
 * - Providers: an authority belongs to one package (INSTALL_FAILED_CONFLICTING_PROVIDER).
 * - Permissions ("first one in wins", Android 5+): a permission is defined by the first installed
 *   package declaring it; another package may redeclare it only if signed compatibly
 *   (INSTALL_FAILED_DUPLICATE_PERMISSION), and platform permissions cannot be redefined (the
 *   declaration is ignored). Install-time grants are decided when the REQUESTING package is
 *   installed or updated: normal ⇒ granted; signature ⇒ granted if the requester shares a signer
 *   with the definer (SigningDetails.hasCommonSignerWithCapability PERMISSION, AppIdPermissionPolicy);
 *   dangerous ⇒ only through `grantRuntimePermission`. So an app installed BEFORE the app that
 *   defines its permission does not get it (CommonsWare "The Custom Permission Problem"); removing
 *   the definer revokes it everywhere. Inference: a reboot re-evaluates every package, as the boot
 *   scan's updateAllPermissions does.
 * - Package visibility (Android 11, AppsFilter; developer.android.com/training/package-visibility):
 *   see `canSeePackage`.
 */
import { AndroidException, SimUsageError } from './errors.ts';
import {
  type ActivityInfo,
  type IntentQuery,
  matchPriority,
  type PackageSpec,
  type PermissionSpec,
  type ProtectionLevel,
  type ProviderInfo,
  type ResolvedManifest,
  resolveManifest,
  type ServiceInfo,
  validateManifest,
} from './manifest.ts';
import {
  apkContentsSigners,
  type Certificate,
  canUpdateTo,
  certificate,
  checkCapability,
  describeSigning,
  hasAncestor,
  hasCommonSignerWithCapability,
  hasMultipleSigners,
  hasPastSigningCertificates,
  hasSha256Certificate,
  type SigningDetails,
  signingCertificateHistory,
  signingProblems,
} from './signing.ts';
import type { Trace } from './trace.ts';

export type { PackageSpec } from './manifest.ts';

export const ROOT_UID = 0;
export const SYSTEM_UID = 1000;
/** Process.FIRST_APPLICATION_UID / LAST_APPLICATION_UID. */
export const FIRST_APPLICATION_UID = 10_000;
export const LAST_APPLICATION_UID = 19_999;
/** Android 11 (R): package visibility filtering applies to callers targeting it or later. */
export const PACKAGE_VISIBILITY_SDK = 30;
export const QUERY_ALL_PACKAGES = 'android.permission.QUERY_ALL_PACKAGES';
/** The platform package, which defines the `android.permission.*` permissions. */
export const PLATFORM_PACKAGE = 'android';
export const PLATFORM_CERTIFICATE: Certificate = certificate('android-platform');

/** A few platform permissions with their AOSP protection levels. */
export const PLATFORM_PERMISSIONS: readonly PermissionSpec[] = [
  { name: 'android.permission.INTERNET', protectionLevel: 'normal' },
  { name: 'android.permission.ACCESS_NETWORK_STATE', protectionLevel: 'normal' },
  { name: 'android.permission.FOREGROUND_SERVICE', protectionLevel: 'normal' },
  { name: QUERY_ALL_PACKAGES, protectionLevel: 'normal' },
  { name: 'android.permission.POST_NOTIFICATIONS', protectionLevel: 'dangerous' },
  { name: 'android.permission.READ_CONTACTS', protectionLevel: 'dangerous' },
  { name: 'android.permission.CAMERA', protectionLevel: 'dangerous' },
];

/** PackageManager.INSTALL_* result codes the simulation can produce, with their AOSP values. */
export const INSTALL_ERROR_CODES = {
  INSTALL_FAILED_ALREADY_EXISTS: -1,
  INSTALL_FAILED_INSUFFICIENT_STORAGE: -4,
  INSTALL_FAILED_UPDATE_INCOMPATIBLE: -7,
  INSTALL_FAILED_SHARED_USER_INCOMPATIBLE: -8,
  INSTALL_FAILED_CONFLICTING_PROVIDER: -13,
  INSTALL_FAILED_UID_CHANGED: -24,
  INSTALL_FAILED_VERSION_DOWNGRADE: -25,
  INSTALL_PARSE_FAILED_NO_CERTIFICATES: -103,
  INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME: -106,
  INSTALL_PARSE_FAILED_BAD_SHARED_USER_ID: -107,
  INSTALL_PARSE_FAILED_MANIFEST_MALFORMED: -108,
  INSTALL_FAILED_DUPLICATE_PERMISSION: -112,
} as const;

export type InstallErrorCode = keyof typeof INSTALL_ERROR_CODES;

/** An install, update or re-sign refused by the system (PackageManagerException). */
export class PackageInstallError extends AndroidException {
  override readonly javaClass: string = 'com.android.server.pm.PackageManagerException';
  /** The numeric PackageManager result code. */
  readonly error: number;

  constructor(
    readonly code: InstallErrorCode,
    readonly packageName: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.error = INSTALL_ERROR_CODES[code];
  }
}

export interface InstalledPackage {
  readonly packageName: string;
  readonly uid: number;
  readonly versionCode: number;
  readonly targetSdk: number;
  /** The shared user the package belongs to (fixed by its first install), or null. */
  readonly sharedUserId: string | null;
  readonly manifest: ResolvedManifest;
  readonly signing: SigningDetails;
  /** Install order: kept by updates, new for a (re)install. */
  readonly installSeq: number;
}

/** android.content.pm.SigningInfo. */
export interface SigningInfo {
  readonly hasMultipleSigners: boolean;
  readonly hasPastSigningCertificates: boolean;
  /** Oldest → current; null for a multi-signer package. */
  readonly signingCertificateHistory: Certificate[] | null;
  readonly apkContentsSigners: Certificate[];
}

export interface ResolvedService {
  readonly packageName: string;
  readonly name: string;
  readonly uid: number;
  readonly exported: boolean;
  readonly permission: string | null;
  readonly metaData: Readonly<Record<string, string>>;
  readonly priority: number;
}

export interface ResolvedActivity {
  readonly packageName: string;
  readonly name: string;
  readonly uid: number;
  readonly exported: boolean;
  readonly priority: number;
}

export interface ResolvedProvider {
  readonly packageName: string;
  readonly name: string;
  readonly uid: number;
  /** The authority asked for. */
  readonly authority: string;
  readonly authorities: readonly string[];
  readonly exported: boolean;
  readonly readPermission: string | null;
  readonly writePermission: string | null;
  readonly metaData: Readonly<Record<string, string>>;
}

export interface ServiceQuery extends IntentQuery {
  /** Intent.setPackage: only this package's components. */
  readonly packageName?: string;
}

export interface ActivityQuery extends ServiceQuery {
  readonly component?: { readonly packageName: string; readonly className: string };
}

export interface PackageListener {
  onPackageAdded?(pkg: InstalledPackage): void;
  onPackageRemoved?(name: string, uid: number): void;
  onPackageUpdated?(pkg: InstalledPackage, previous: InstalledPackage): void;
  /** A runtime permission was revoked; Android kills the UID's processes. */
  onRuntimePermissionRevoked?(uid: number, permission: string): void;
  onReboot?(): void;
}

interface SharedUser {
  readonly name: string;
  readonly uid: number;
  signing: SigningDetails;
  /** Member package names in install order. */
  readonly members: string[];
}

interface PermissionDefinition {
  readonly name: string;
  readonly protectionLevel: ProtectionLevel;
  /** The defining package, or PLATFORM_PACKAGE. */
  readonly owner: string;
}

function definedBy(p: PermissionSpec, owner: string): PermissionDefinition {
  return { name: p.name, protectionLevel: p.protectionLevel, owner };
}

/** The platform's definitions, shared by every PackageManager (never mutated). */
const PLATFORM_DEFINITIONS: readonly PermissionDefinition[] = PLATFORM_PERMISSIONS.map((p) =>
  Object.freeze(definedBy(p, PLATFORM_PACKAGE)),
);

type Op = 'install' | 'update' | 'resign';

const NO_PACKAGES: readonly InstalledPackage[] = Object.freeze([]);

export class PackageManager {
  private readonly trace: Trace;
  /** Installed packages; Map order is install order (an update keeps its place). */
  private readonly packages = new Map<string, InstalledPackage>();
  /** Packages by UID, in install order: derived from `packages`, dropped whenever it changes. */
  private byUid: Map<number, InstalledPackage[]> | null = null;
  private changes = 0;
  /** The spec each installed package was last installed or updated from. */
  private readonly specs = new Map<string, PackageSpec>();
  private readonly sharedUsers = new Map<string, SharedUser>();
  /** AppIdSettingMap.mNonSystemSettings: index = uid − 10000, the holder's label or null. */
  private readonly appIds: (string | null)[] = [];
  private firstAvailableAppId = FIRST_APPLICATION_UID;
  private nextInstallSeq = 0;
  private readonly definitions = new Map<string, PermissionDefinition>();
  private readonly installGrants = new Map<number, Set<string>>();
  private readonly runtimeGrants = new Map<number, Set<string>>();
  /** AppsFilter.mImplicitlyQueryable: observer UID → UIDs made visible to it. */
  private readonly implicitlyVisible = new Map<number, Set<number>>();
  private readonly listeners: PackageListener[] = [];

  constructor(trace: Trace) {
    this.trace = trace;
    this.definePlatformPermissions();
  }

  addListener(listener: PackageListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  // ---- install, update, uninstall ----

  install(spec: PackageSpec): InstalledPackage {
    const name = spec.manifest.packageName;
    return this.attempt('install', name, () => {
      const manifest = this.parse(spec);
      if (this.packages.has(name)) {
        this.fail(
          'INSTALL_FAILED_ALREADY_EXISTS',
          name,
          `Attempt to re-install ${name} without first uninstalling.`,
        );
      }
      this.checkProviders(manifest);
      const newDefinitions = this.checkPermissionDeclarations(manifest, spec.signing);
      let shared: SharedUser | null = null;
      if (manifest.sharedUserId !== null) {
        shared = this.sharedUsers.get(manifest.sharedUserId) ?? null;
        if (shared) this.checkSharedUserSignature(shared, name, spec.signing);
      }
      const uid = shared ? shared.uid : this.acquireAppId(manifest.sharedUserId ?? name, name);
      if (manifest.sharedUserId !== null) {
        if (!shared) {
          shared = { name: manifest.sharedUserId, uid, signing: spec.signing, members: [] };
          this.sharedUsers.set(shared.name, shared);
        }
        shared.members.push(name);
        if (hasAncestor(spec.signing, shared.signing)) shared.signing = spec.signing;
      }
      const pkg = this.record(manifest, spec.signing, uid, manifest.sharedUserId, this.nextInstallSeq++);
      this.packages.set(name, pkg);
      this.changed();
      this.specs.set(name, spec);
      for (const p of newDefinitions) this.definitions.set(p.name, definedBy(p, name));
      this.evaluateGrants(uid);
      this.trace.record('pm.install', {
        actor: 'system',
        package: name,
        uid,
        versionCode: pkg.versionCode,
        ...(pkg.sharedUserId !== null ? { sharedUserId: pkg.sharedUserId } : {}),
        signing: describeSigning(pkg.signing),
      });
      for (const l of [...this.listeners]) l.onPackageAdded?.(pkg);
      return pkg;
    });
  }

  /** Replaces an installed package (`adb install -r`): same UID, new manifest and signing. */
  update(spec: PackageSpec): InstalledPackage {
    return this.replace('update', spec);
  }

  /**
   * Simulation verb: the package is re-signed in place with `signing` — an update with a rotated
   * key when compatible, else INSTALL_FAILED_UPDATE_INCOMPATIBLE.
   */
  resign(packageName: string, signing: SigningDetails): InstalledPackage {
    this.requirePackage(packageName);
    const spec = this.specs.get(packageName) as PackageSpec;
    return this.replace('resign', { manifest: spec.manifest, signing });
  }

  /** Uninstall, then install `spec` (typically under an unrelated key): a new UID in this boot. */
  reinstallWithNewKey(spec: PackageSpec): InstalledPackage {
    if (this.packages.has(spec.manifest.packageName)) this.uninstall(spec.manifest.packageName);
    return this.install(spec);
  }

  uninstall(packageName: string): void {
    const pkg = this.requirePackage(packageName);
    this.packages.delete(packageName);
    this.changed();
    this.specs.delete(packageName);
    let uidFreed = true;
    if (pkg.sharedUserId !== null) {
      const shared = this.sharedUsers.get(pkg.sharedUserId);
      if (shared) {
        shared.members.splice(shared.members.indexOf(packageName), 1);
        uidFreed = shared.members.length === 0;
        if (uidFreed) this.sharedUsers.delete(shared.name);
      }
    }
    if (uidFreed) {
      this.releaseAppId(pkg.uid);
      this.installGrants.delete(pkg.uid);
      this.runtimeGrants.delete(pkg.uid);
    }
    this.forgetImplicitVisibility(pkg.uid);
    const removedDefinitions = this.dropDefinitionsOwnedBy(packageName, []);
    if (removedDefinitions) this.evaluateAllGrants();
    else if (!uidFreed) this.evaluateGrants(pkg.uid);
    this.trace.record('pm.uninstall', { actor: 'system', package: packageName, uid: pkg.uid, uidFreed });
    for (const l of [...this.listeners]) l.onPackageRemoved?.(packageName, pkg.uid);
  }

  /**
   * A device reboot: UID allocation restarts from 10000 (freed UIDs become reusable — inference,
   * AIM), implicit visibility is forgotten (AppsFilter keeps it in memory only — inference), and
   * permission definitions and grants are recomputed for every package (boot scan — inference).
   */
  reboot(): void {
    this.firstAvailableAppId = FIRST_APPLICATION_UID;
    this.implicitlyVisible.clear();
    this.changed();
    this.definitions.clear();
    this.definePlatformPermissions();
    for (const pkg of this.packages.values()) {
      for (const p of pkg.manifest.permissions) {
        if (!this.definitions.has(p.name)) this.definitions.set(p.name, definedBy(p, pkg.packageName));
      }
    }
    this.evaluateAllGrants();
    this.trace.record('pm.reboot', { actor: 'system', packages: this.packages.size });
    for (const l of [...this.listeners]) l.onReboot?.();
  }

  // ---- queries ----

  /**
   * A counter that moves whenever anything a UID's packages, signing or visibility depend on
   * changes (install, update, re-sign, uninstall, reboot, implicit visibility): answers derived from
   * those queries may be reused while it stays the same.
   */
  get generation(): number {
    return this.changes;
  }

  getPackageInfo(packageName: string): InstalledPackage | null {
    return this.packages.get(packageName) ?? null;
  }

  getPackageUid(packageName: string): number | null {
    return this.packages.get(packageName)?.uid ?? null;
  }

  /** Every package of the UID (several for a shared UID), in install order; null if none. */
  getPackagesForUid(uid: number): string[] | null {
    const names = this.packagesOfUid(uid).map((p) => p.packageName);
    return names.length > 0 ? names : null;
  }

  /** The package name, or "sharedUserName:uid" for a shared UID; null if the UID has no package. */
  getNameForUid(uid: number): string | null {
    const [first] = this.packagesOfUid(uid);
    if (!first) return null;
    return first.sharedUserId !== null ? `${first.sharedUserId}:${uid}` : first.packageName;
  }

  getInstalledPackages(): InstalledPackage[] {
    return [...this.packages.values()];
  }

  /**
   * hasSigningCertificate(uid, sha256, CERT_INPUT_SHA256): any package of the UID whose signing
   * history contains the certificate (any lineage certificate; never for a multi-signer package).
   */
  hasSigningCertificate(uid: number, sha256: string): boolean {
    return this.packagesOfUid(uid).some((p) => hasSha256Certificate(p.signing, sha256.toLowerCase()));
  }

  hasSigningCertificateForPackage(packageName: string, sha256: string): boolean {
    const pkg = this.packages.get(packageName);
    return pkg !== undefined && hasSha256Certificate(pkg.signing, sha256.toLowerCase());
  }

  getSigningInfo(packageName: string): SigningInfo | null {
    const pkg = this.packages.get(packageName);
    if (!pkg) return null;
    return {
      hasMultipleSigners: hasMultipleSigners(pkg.signing),
      hasPastSigningCertificates: hasPastSigningCertificates(pkg.signing),
      signingCertificateHistory: signingCertificateHistory(pkg.signing),
      apkContentsSigners: apkContentsSigners(pkg.signing),
    };
  }

  // ---- permissions ----

  /**
   * PackageManager.checkPermission for a UID: root and system hold everything; otherwise the
   * permission must be defined and granted to the UID (see the module comment). A UID that defines
   * the permission itself also passes (the simulation's stand-in for the owner shortcut of
   * checkComponentPermission when the definer owns the protected component).
   */
  checkPermission(permission: string, uid: number): boolean {
    if (uid === ROOT_UID || uid === SYSTEM_UID) return true;
    const definition = this.definitions.get(permission);
    if (!definition) return false;
    if (definition.owner !== PLATFORM_PACKAGE && this.packages.get(definition.owner)?.uid === uid)
      return true;
    return (
      (this.installGrants.get(uid)?.has(permission) ?? false) ||
      (this.runtimeGrants.get(uid)?.has(permission) ?? false)
    );
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

  /** `pm grant` / the user allowing a dangerous (runtime) permission. */
  grantRuntimePermission(packageName: string, permission: string): void {
    const pkg = this.requirePackage(packageName);
    this.requireRuntimePermission(pkg, permission);
    const set = this.runtimeGrants.get(pkg.uid) ?? new Set<string>();
    this.runtimeGrants.set(pkg.uid, set);
    if (set.has(permission)) return;
    set.add(permission);
    this.trace.record('pm.grant', { actor: 'system', package: packageName, uid: pkg.uid, permission });
  }

  /** `pm revoke` / the user denying it in Settings; listeners should kill the UID's processes. */
  revokeRuntimePermission(packageName: string, permission: string): void {
    const pkg = this.requirePackage(packageName);
    this.requireRuntimePermission(pkg, permission);
    if (!this.runtimeGrants.get(pkg.uid)?.delete(permission)) return;
    this.trace.record('pm.revoke', { actor: 'system', package: packageName, uid: pkg.uid, permission });
    for (const l of [...this.listeners]) l.onRuntimePermissionRevoked?.(pkg.uid, permission);
  }

  // ---- package visibility ----

  /**
   * AppsFilter.shouldFilterApplication, inverted. A caller sees the target if: it is a system UID
   * (< 10000); any package of its UID targets < 30 (filtering is off for it); it is the same UID;
   * any of its packages requests QUERY_ALL_PACKAGES; or, keyed by the target's UID: the target UID
   * is force-queryable, is named in its `<queries><package>`, has an EXPORTED component whose
   * intent filter matches one of its `<queries><intent>`, or an EXPORTED provider with an authority
   * in its `<queries><provider>`; or the target UID interacted with it (`recordInteraction`).
   */
  canSeePackage(callerUid: number, targetPackage: string): boolean {
    const target = this.packages.get(targetPackage);
    return target !== undefined && this.canSee(callerUid, target.uid);
  }

  /**
   * AppsFilter.grantImplicitAccess: `actorUid` becomes visible to `observerUid` (an app that binds
   * to your service or accesses your provider becomes visible to you). Dropped when either side's
   * package is removed or updated, and on reboot.
   */
  recordInteraction(observerUid: number, actorUid: number): void {
    if (observerUid === actorUid) return;
    const set = this.implicitlyVisible.get(observerUid) ?? new Set<number>();
    this.implicitlyVisible.set(observerUid, set);
    if (set.has(actorUid)) return;
    set.add(actorUid);
    this.changed();
    this.trace.record('pm.visibility', { actor: 'system', observerUid, actorUid });
  }

  // ---- component resolution ----

  /**
   * queryIntentServices as `callerUid`: services of visible packages, exported or of the caller's
   * own UID, with a filter matching the intent; by priority (highest first), then install order.
   */
  queryIntentServices(callerUid: number, intent: string | ServiceQuery): ResolvedService[] {
    const query: ServiceQuery = typeof intent === 'string' ? { action: intent } : intent;
    const found: ResolvedService[] = [];
    for (const pkg of this.candidates(callerUid, query.packageName)) {
      for (const s of pkg.manifest.services) {
        const priority = this.componentPriority(callerUid, pkg, s, query);
        if (priority !== null) found.push(toResolvedService(pkg, s, priority));
      }
    }
    return found.sort((a, b) => b.priority - a.priority);
  }

  /**
   * queryIntentActivities as `callerUid`. Explicit component: that activity, if it exists, is
   * exported or of the caller's UID, and its package is visible. Implicit: as for services.
   */
  queryIntentActivities(callerUid: number, intent: ActivityQuery): ResolvedActivity[] {
    if (intent.component) {
      const { packageName, className } = intent.component;
      const pkg = this.packages.get(packageName);
      const activity = pkg?.manifest.activities.find((a) => a.name === className);
      if (!pkg || !activity || !this.canSee(callerUid, pkg.uid)) return [];
      if (!activity.exported && pkg.uid !== callerUid) return [];
      return [toResolvedActivity(pkg, activity, 0)];
    }
    const found: ResolvedActivity[] = [];
    for (const pkg of this.candidates(callerUid, intent.packageName)) {
      for (const a of pkg.manifest.activities) {
        const priority = this.componentPriority(callerUid, pkg, a, intent);
        if (priority !== null) found.push(toResolvedActivity(pkg, a, priority));
      }
    }
    return found.sort((a, b) => b.priority - a.priority);
  }

  /** resolveContentProvider as `callerUid`: null for an unknown authority or an invisible package. */
  resolveContentProvider(callerUid: number, authority: string): ResolvedProvider | null {
    const found = this.providerForAuthority(authority);
    return found && this.canSee(callerUid, found.uid) ? found : null;
  }

  /** The provider owning `authority`, unfiltered (for the system itself). */
  providerForAuthority(authority: string): ResolvedProvider | null {
    for (const pkg of this.packages.values()) {
      const p = pkg.manifest.providers.find((x) => x.authorities.includes(authority));
      if (p) return toResolvedProvider(pkg, p, authority);
    }
    return null;
  }

  // ---- internals: install pipeline ----

  private attempt<T>(op: Op, packageName: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof PackageInstallError) {
        this.trace.record('pm.refused', {
          actor: 'system',
          op,
          package: packageName,
          code: error.code,
        });
      }
      throw error;
    }
  }

  private fail(code: InstallErrorCode, packageName: string, message: string): never {
    throw new PackageInstallError(code, packageName, message);
  }

  private parse(spec: PackageSpec): ResolvedManifest {
    const name = spec.manifest.packageName;
    const [issue] = validateManifest(spec.manifest);
    if (issue) this.fail(issue.installError, name, `${issue.path}: ${issue.message}`);
    const problems = signingProblems(spec.signing);
    if (spec.signing.signers.length === 0) {
      this.fail('INSTALL_PARSE_FAILED_NO_CERTIFICATES', name, `Package ${name} has no certificates`);
    }
    if (problems.length > 0)
      throw new SimUsageError(`impossible signing details for ${name}: ${problems.join('; ')}`);
    return resolveManifest(spec.manifest);
  }

  private replace(op: 'update' | 'resign', spec: PackageSpec): InstalledPackage {
    const name = spec.manifest.packageName;
    const old = this.requirePackage(name);
    return this.attempt(op, name, () => {
      const manifest = this.parse(spec);
      if (!canUpdateTo(old.signing, spec.signing)) {
        this.fail(
          'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
          name,
          `Package ${name} signatures do not match previously installed version; ignoring!`,
        );
      }
      // An app may drop its sharedUserId (sharedUserMaxSdkVersion) but stays in the shared user.
      if (manifest.sharedUserId !== null && manifest.sharedUserId !== old.sharedUserId) {
        this.fail(
          'INSTALL_FAILED_UID_CHANGED',
          name,
          `Package ${name} shared user changed from ${old.sharedUserId ?? '<nothing>'} to ${manifest.sharedUserId}`,
        );
      }
      if (manifest.versionCode < old.versionCode) {
        this.fail(
          'INSTALL_FAILED_VERSION_DOWNGRADE',
          name,
          `Downgrade detected: Update version code ${manifest.versionCode} is older than current ${old.versionCode}`,
        );
      }
      const shared = old.sharedUserId !== null ? (this.sharedUsers.get(old.sharedUserId) ?? null) : null;
      if (shared) this.checkSharedUserSignature(shared, name, spec.signing);
      this.checkProviders(manifest);
      const newDefinitions = this.checkPermissionDeclarations(manifest, spec.signing);

      const pkg = this.record(manifest, spec.signing, old.uid, old.sharedUserId, old.installSeq);
      this.packages.set(name, pkg);
      this.changed();
      this.specs.set(name, spec);
      if (shared && hasAncestor(spec.signing, shared.signing)) shared.signing = spec.signing;
      const removed = this.dropDefinitionsOwnedBy(name, manifest.permissions);
      for (const p of newDefinitions) this.definitions.set(p.name, definedBy(p, name));
      // AppsFilter.removePackage(isReplace): implicit visibility does not survive an update.
      this.forgetImplicitVisibility(old.uid);
      if (removed) this.evaluateAllGrants();
      else this.evaluateGrants(old.uid);
      this.trace.record(op === 'update' ? 'pm.update' : 'pm.resign', {
        actor: 'system',
        package: name,
        uid: pkg.uid,
        fromVersionCode: old.versionCode,
        versionCode: pkg.versionCode,
        signing: describeSigning(pkg.signing),
      });
      for (const l of [...this.listeners]) l.onPackageUpdated?.(pkg, old);
      return pkg;
    });
  }

  private record(
    manifest: ResolvedManifest,
    signing: SigningDetails,
    uid: number,
    sharedUserId: string | null,
    installSeq: number,
  ): InstalledPackage {
    return {
      packageName: manifest.packageName,
      uid,
      versionCode: manifest.versionCode,
      targetSdk: manifest.targetSdk,
      sharedUserId,
      manifest,
      signing: copySigning(signing),
      installSeq,
    };
  }

  /** INSTALL_FAILED_CONFLICTING_PROVIDER if another package owns one of the authorities. */
  private checkProviders(manifest: ResolvedManifest): void {
    for (const p of manifest.providers) {
      for (const authority of p.authorities) {
        const owner = this.providerForAuthority(authority);
        if (owner && owner.packageName !== manifest.packageName) {
          this.fail(
            'INSTALL_FAILED_CONFLICTING_PROVIDER',
            manifest.packageName,
            `Can't install because provider name ${authority} (in package ${manifest.packageName}) is already used by ${owner.packageName}`,
          );
        }
      }
    }
  }

  /**
   * The permissions this package would newly define. A permission defined by another package may
   * be redeclared only by a compatibly signed package (checkCapability PERMISSION either way), and
   * then the first definition stays; a platform permission's redeclaration is ignored.
   */
  private checkPermissionDeclarations(manifest: ResolvedManifest, signing: SigningDetails): PermissionSpec[] {
    const fresh: PermissionSpec[] = [];
    for (const p of manifest.permissions) {
      const existing = this.definitions.get(p.name);
      if (!existing || existing.owner === manifest.packageName) {
        fresh.push(p);
        continue;
      }
      if (existing.owner === PLATFORM_PACKAGE) continue;
      const ownerSigning = this.packages.get(existing.owner)?.signing;
      if (!ownerSigning) continue;
      const compatible =
        checkCapability(ownerSigning, signing, 'permission') ||
        checkCapability(signing, ownerSigning, 'permission');
      if (!compatible) {
        this.fail(
          'INSTALL_FAILED_DUPLICATE_PERMISSION',
          manifest.packageName,
          `Package ${manifest.packageName} attempting to redeclare permission ${p.name} already owned by ${existing.owner}`,
        );
      }
    }
    return fresh;
  }

  /**
   * Joining (or updating inside) a shared user: either side's lineage must vouch for the other with
   * the shared-uid capability; the shared user's only member may always update itself.
   */
  private checkSharedUserSignature(shared: SharedUser, packageName: string, signing: SigningDetails): void {
    const match =
      checkCapability(signing, shared.signing, 'sharedUid') ||
      checkCapability(shared.signing, signing, 'sharedUid') ||
      (shared.members.length === 1 && shared.members[0] === packageName);
    if (!match) {
      this.fail(
        'INSTALL_FAILED_SHARED_USER_INCOMPATIBLE',
        packageName,
        `Package ${packageName} has no signatures that match those in shared user ${shared.name}; ignoring!`,
      );
    }
  }

  // ---- internals: UIDs ----

  /** AppIdSettingMap.acquireAndRegisterNewAppId. */
  private acquireAppId(label: string, packageName: string): number {
    for (let i = this.firstAvailableAppId - FIRST_APPLICATION_UID; i < this.appIds.length; i++) {
      if (this.appIds[i] === null) {
        this.appIds[i] = label;
        return FIRST_APPLICATION_UID + i;
      }
    }
    if (this.appIds.length > LAST_APPLICATION_UID - FIRST_APPLICATION_UID) {
      this.fail(
        'INSTALL_FAILED_INSUFFICIENT_STORAGE',
        packageName,
        `Creating application package ${packageName} failed`,
      );
    }
    this.appIds.push(label);
    return FIRST_APPLICATION_UID + this.appIds.length - 1;
  }

  /** AppIdSettingMap.removeSetting: frees the slot and raises the first-available counter. */
  private releaseAppId(uid: number): void {
    const index = uid - FIRST_APPLICATION_UID;
    if (index >= 0 && index < this.appIds.length) this.appIds[index] = null;
    this.firstAvailableAppId = Math.max(this.firstAvailableAppId, uid + 1);
  }

  private changed(): void {
    this.byUid = null;
    this.changes++;
  }

  /** Every package of the UID, in install order (a shared array: never mutate it). */
  private packagesOfUid(uid: number): readonly InstalledPackage[] {
    if (this.byUid === null) {
      this.byUid = new Map();
      for (const p of this.packages.values()) {
        const list = this.byUid.get(p.uid);
        if (list) list.push(p);
        else this.byUid.set(p.uid, [p]);
      }
    }
    return this.byUid.get(uid) ?? NO_PACKAGES;
  }

  // ---- internals: permissions ----

  private definePlatformPermissions(): void {
    for (const d of PLATFORM_DEFINITIONS) this.definitions.set(d.name, d);
  }

  private signingOfDefiner(definition: PermissionDefinition): SigningDetails | null {
    if (definition.owner === PLATFORM_PACKAGE) return { signers: [PLATFORM_CERTIFICATE] };
    return this.packages.get(definition.owner)?.signing ?? null;
  }

  /** Removes the definitions `owner` made that it no longer declares; true if any was removed. */
  private dropDefinitionsOwnedBy(owner: string, stillDeclared: readonly PermissionSpec[]): boolean {
    let removed = false;
    for (const [name, d] of [...this.definitions]) {
      if (d.owner === owner && !stillDeclared.some((p) => p.name === name)) {
        this.definitions.delete(name);
        removed = true;
      }
    }
    return removed;
  }

  /** Recomputes the install-time grants of one UID; prunes runtime grants no longer valid. */
  private evaluateGrants(uid: number): void {
    const members = this.packagesOfUid(uid);
    const granted = new Set<string>();
    const requested = new Set<string>();
    for (const pkg of members) {
      for (const name of pkg.manifest.usesPermissions) {
        requested.add(name);
        const d = this.definitions.get(name);
        if (!d) continue;
        if (d.protectionLevel === 'normal') granted.add(name);
        if (d.protectionLevel === 'signature') {
          const definer = this.signingOfDefiner(d);
          if (definer && hasCommonSignerWithCapability(definer, pkg.signing, 'permission')) granted.add(name);
        }
      }
    }
    this.installGrants.set(uid, granted);
    const runtime = this.runtimeGrants.get(uid);
    for (const name of runtime ?? []) {
      if (!requested.has(name) || this.definitions.get(name)?.protectionLevel !== 'dangerous')
        runtime?.delete(name);
    }
  }

  private evaluateAllGrants(): void {
    const uids = new Set([...this.packages.values()].map((p) => p.uid));
    for (const uid of uids) this.evaluateGrants(uid);
  }

  private requireRuntimePermission(pkg: InstalledPackage, permission: string): void {
    const members = this.packagesOfUid(pkg.uid);
    if (!members.some((p) => p.manifest.usesPermissions.includes(permission))) {
      throw new SimUsageError(`Package ${pkg.packageName} has not requested permission ${permission}`);
    }
    if (this.definitions.get(permission)?.protectionLevel !== 'dangerous') {
      throw new SimUsageError(
        `Permission ${permission} requested by ${pkg.packageName} is not a changeable permission type`,
      );
    }
  }

  // ---- internals: visibility ----

  private canSee(callerUid: number, targetUid: number): boolean {
    if (callerUid < FIRST_APPLICATION_UID || callerUid === targetUid) return true;
    const callers = this.packagesOfUid(callerUid);
    if (callers.length === 0) return false;
    // FeatureConfig.packageIsEnabled: a single member below Android 11 turns filtering off.
    if (callers.some((c) => c.targetSdk < PACKAGE_VISIBILITY_SDK)) return true;
    if (callers.some((c) => c.manifest.usesPermissions.includes(QUERY_ALL_PACKAGES))) return true;
    const targets = this.packagesOfUid(targetUid);
    if (targets.length === 0) return false;
    if (targets.some((t) => t.manifest.forceQueryable)) return true;
    for (const c of callers) {
      if (targets.some((t) => c.manifest.queries.packages.includes(t.packageName))) return true;
      if (targets.some((t) => canQueryViaComponents(c.manifest, t.manifest))) return true;
    }
    return this.implicitlyVisible.get(callerUid)?.has(targetUid) ?? false;
  }

  private forgetImplicitVisibility(uid: number): void {
    this.implicitlyVisible.delete(uid);
    for (const set of this.implicitlyVisible.values()) set.delete(uid);
    this.changed();
  }

  /** Packages whose components a query may return: visible, and the one named if any. */
  private candidates(callerUid: number, packageName: string | undefined): InstalledPackage[] {
    return [...this.packages.values()]
      .filter((p) => packageName === undefined || p.packageName === packageName)
      .filter((p) => this.canSee(callerUid, p.uid))
      .sort((a, b) => a.installSeq - b.installSeq);
  }

  private componentPriority(
    callerUid: number,
    pkg: InstalledPackage,
    component: ServiceInfo | ActivityInfo,
    intent: IntentQuery,
  ): number | null {
    if (!component.exported && pkg.uid !== callerUid) return null;
    return matchPriority(component.intentFilters, intent);
  }

  private requirePackage(packageName: string): InstalledPackage {
    const pkg = this.packages.get(packageName);
    if (!pkg) throw new SimUsageError(`package ${packageName} is not installed`);
    return pkg;
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

function copySigning(signing: SigningDetails): SigningDetails {
  return {
    signers: [...signing.signers],
    ...(signing.lineage ? { lineage: signing.lineage.map((e) => ({ ...e })) } : {}),
  };
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
    metaData: p.metaData,
  };
}
