/**
 * Installs, updates, re-signs, uninstalls and reboots: the only writers of the package table.
 *
 * - Shared UIDs (`sharedUserId`, deprecated API 29): all members share one UID; joining needs a
 *   signer compatible with the shared user's (checkCapability SHARED_USER_ID either way, else
 *   INSTALL_FAILED_SHARED_USER_INCOMPATIBLE); the UID is freed when the last member goes; an update
 *   may not move a package to another shared user (INSTALL_FAILED_UID_CHANGED).
 * - Updates (InstallPackageHelper.preparePackageLI): allowed when the new signing vouches for the
 *   old one with installed-data, or the old vouches for the new one with rollback (signing.ts
 *   `canUpdateTo`), else INSTALL_FAILED_UPDATE_INCOMPATIBLE; no downgrade of versionCode.
 * - Providers: an authority belongs to one package (INSTALL_FAILED_CONFLICTING_PROVIDER).
 */
import { SimUsageError } from '../core/errors.ts';
import type { Trace } from '../core/trace.ts';
import { type PackageSpec, type ResolvedManifest, resolveManifest, validateManifest } from './manifest.ts';
import type { Permissions } from './permissions.ts';
import type { Resolver } from './resolution.ts';
import {
  canUpdateTo,
  checkCapability,
  describeSigning,
  hasAncestor,
  type SigningDetails,
  signingProblems,
} from './signing.ts';
import type { PackageTable } from './table.ts';
import { type InstalledPackage, PackageInstallError, type PackageListener, refuse } from './types.ts';
import type { AppIds } from './uids.ts';
import { appIdOf, USER_SYSTEM, uidOf } from './user-handle.ts';
import type { Visibility } from './visibility.ts';

interface SharedUser {
  readonly name: string;
  readonly uid: number;
  signing: SigningDetails;
  /** Member package names in install order. */
  readonly members: string[];
}

type Op = 'install' | 'update' | 'resign';

/** What the installer works on: the table and every concern derived from it. */
export interface InstallerParts {
  readonly trace: Trace;
  readonly table: PackageTable;
  readonly appIds: AppIds;
  readonly permissions: Permissions;
  readonly visibility: Visibility;
  readonly resolver: Resolver;
  /** The listeners to tell, called with each one in registration order. */
  readonly notify: (event: (listener: PackageListener) => void) => void;
}

export class Installer {
  private readonly sharedUsers = new Map<string, SharedUser>();

  constructor(private readonly parts: InstallerParts) {}

  install(spec: PackageSpec): InstalledPackage {
    const { table, permissions } = this.parts;
    const name = spec.manifest.packageName;
    return this.attempt('install', name, () => {
      const manifest = parse(spec);
      if (table.has(name)) {
        refuse(
          'INSTALL_FAILED_ALREADY_EXISTS',
          name,
          `Attempt to re-install ${name} without first uninstalling.`,
        );
      }
      this.checkProviders(manifest);
      const newDefinitions = permissions.newDeclarations(manifest, spec.signing);
      let shared: SharedUser | null = null;
      if (manifest.sharedUserId !== null) {
        shared = this.sharedUsers.get(manifest.sharedUserId) ?? null;
        if (shared) checkSharedUserSignature(shared, name, spec.signing);
      }
      const appId = shared ? shared.uid : this.parts.appIds.acquire(manifest.sharedUserId ?? name, name);
      const uid = shared ? shared.uid : uidOf(spec.userId ?? USER_SYSTEM, appId);
      if (manifest.sharedUserId !== null) {
        if (!shared) {
          shared = { name: manifest.sharedUserId, uid, signing: spec.signing, members: [] };
          this.sharedUsers.set(shared.name, shared);
        }
        shared.members.push(name);
        if (hasAncestor(spec.signing, shared.signing)) shared.signing = spec.signing;
      }
      const pkg = record(manifest, spec.signing, uid, manifest.sharedUserId, table.takeInstallSeq());
      table.put(pkg, spec);
      permissions.define(newDefinitions, name);
      permissions.evaluate(uid);
      this.parts.trace.record('pm.install', {
        actor: 'system',
        package: name,
        uid,
        versionCode: pkg.versionCode,
        ...(pkg.sharedUserId !== null ? { sharedUserId: pkg.sharedUserId } : {}),
        signing: describeSigning(pkg.signing),
      });
      this.parts.notify((l) => l.onPackageAdded?.(pkg));
      return pkg;
    });
  }

  /** An update (`adb install -r`) or a re-sign: same UID, new manifest and signing. */
  replace(op: 'update' | 'resign', spec: PackageSpec): InstalledPackage {
    const { table, permissions } = this.parts;
    const name = spec.manifest.packageName;
    const old = table.require(name);
    return this.attempt(op, name, () => {
      const manifest = parse(spec);
      if (!canUpdateTo(old.signing, spec.signing)) {
        refuse(
          'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
          name,
          `Package ${name} signatures do not match previously installed version; ignoring!`,
        );
      }
      // An app may drop its sharedUserId (sharedUserMaxSdkVersion) but stays in the shared user.
      if (manifest.sharedUserId !== null && manifest.sharedUserId !== old.sharedUserId) {
        refuse(
          'INSTALL_FAILED_UID_CHANGED',
          name,
          `Package ${name} shared user changed from ${old.sharedUserId ?? '<nothing>'} to ${manifest.sharedUserId}`,
        );
      }
      if (manifest.versionCode < old.versionCode) {
        refuse(
          'INSTALL_FAILED_VERSION_DOWNGRADE',
          name,
          `Downgrade detected: Update version code ${manifest.versionCode} is older than current ${old.versionCode}`,
        );
      }
      const shared = old.sharedUserId !== null ? (this.sharedUsers.get(old.sharedUserId) ?? null) : null;
      if (shared) checkSharedUserSignature(shared, name, spec.signing);
      this.checkProviders(manifest);
      const newDefinitions = permissions.newDeclarations(manifest, spec.signing);

      const pkg = record(manifest, spec.signing, old.uid, old.sharedUserId, old.installSeq);
      table.put(pkg, spec);
      if (shared && hasAncestor(spec.signing, shared.signing)) shared.signing = spec.signing;
      const removed = permissions.dropOwnedBy(name, manifest.permissions);
      permissions.define(newDefinitions, name);
      // AppsFilter.removePackage(isReplace): implicit visibility does not survive an update.
      this.parts.visibility.forget(old.uid);
      if (removed) permissions.evaluateAll();
      else permissions.evaluate(old.uid);
      this.parts.trace.record(op === 'update' ? 'pm.update' : 'pm.resign', {
        actor: 'system',
        package: name,
        uid: pkg.uid,
        fromVersionCode: old.versionCode,
        versionCode: pkg.versionCode,
        signing: describeSigning(pkg.signing),
      });
      this.parts.notify((l) => l.onPackageUpdated?.(pkg, old));
      return pkg;
    });
  }

  uninstall(packageName: string): void {
    const { table, permissions } = this.parts;
    const pkg = table.require(packageName);
    table.remove(packageName);
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
      this.parts.appIds.release(appIdOf(pkg.uid));
      permissions.forgetUid(pkg.uid);
    }
    this.parts.visibility.forget(pkg.uid);
    const removedDefinitions = permissions.dropOwnedBy(packageName, []);
    if (removedDefinitions) permissions.evaluateAll();
    else if (!uidFreed) permissions.evaluate(pkg.uid);
    this.parts.trace.record('pm.uninstall', {
      actor: 'system',
      package: packageName,
      uid: pkg.uid,
      uidFreed,
    });
    this.parts.notify((l) => l.onPackageRemoved?.(packageName, pkg.uid));
  }

  /**
   * A device reboot: UID allocation restarts from 10000 (freed UIDs become reusable — inference,
   * AIM), implicit visibility is forgotten (AppsFilter keeps it in memory only — inference), and
   * permission definitions and grants are recomputed for every package (boot scan — inference).
   */
  reboot(): void {
    const { table } = this.parts;
    this.parts.appIds.reboot();
    this.parts.visibility.reboot();
    table.changed();
    this.parts.permissions.reboot();
    this.parts.trace.record('pm.reboot', { actor: 'system', packages: table.size });
    this.parts.notify((l) => l.onReboot?.());
  }

  private attempt<T>(op: Op, packageName: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof PackageInstallError) {
        this.parts.trace.record('pm.refused', {
          actor: 'system',
          op,
          package: packageName,
          code: error.code,
        });
      }
      throw error;
    }
  }

  /** INSTALL_FAILED_CONFLICTING_PROVIDER if another package owns one of the authorities. */
  private checkProviders(manifest: ResolvedManifest): void {
    for (const p of manifest.providers) {
      for (const authority of p.authorities) {
        const owner = this.parts.resolver.providerForAuthority(authority);
        if (owner && owner.packageName !== manifest.packageName) {
          refuse(
            'INSTALL_FAILED_CONFLICTING_PROVIDER',
            manifest.packageName,
            `Can't install because provider name ${authority} (in package ${manifest.packageName}) is already used by ${owner.packageName}`,
          );
        }
      }
    }
  }
}

function parse(spec: PackageSpec): ResolvedManifest {
  const name = spec.manifest.packageName;
  const [issue] = validateManifest(spec.manifest);
  if (issue) refuse(issue.installError, name, `${issue.path}: ${issue.message}`);
  const problems = signingProblems(spec.signing);
  if (spec.signing.signers.length === 0) {
    refuse('INSTALL_PARSE_FAILED_NO_CERTIFICATES', name, `Package ${name} has no certificates`);
  }
  if (problems.length > 0)
    throw new SimUsageError(`impossible signing details for ${name}: ${problems.join('; ')}`);
  return resolveManifest(spec.manifest);
}

/**
 * Joining (or updating inside) a shared user: either side's lineage must vouch for the other with
 * the shared-uid capability; the shared user's only member may always update itself.
 */
function checkSharedUserSignature(shared: SharedUser, packageName: string, signing: SigningDetails): void {
  const match =
    checkCapability(signing, shared.signing, 'sharedUid') ||
    checkCapability(shared.signing, signing, 'sharedUid') ||
    (shared.members.length === 1 && shared.members[0] === packageName);
  if (!match) {
    refuse(
      'INSTALL_FAILED_SHARED_USER_INCOMPATIBLE',
      packageName,
      `Package ${packageName} has no signatures that match those in shared user ${shared.name}; ignoring!`,
    );
  }
}

function record(
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

function copySigning(signing: SigningDetails): SigningDetails {
  return {
    signers: [...signing.signers],
    ...(signing.lineage ? { lineage: signing.lineage.map((e) => ({ ...e })) } : {}),
  };
}
