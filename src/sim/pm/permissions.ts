/**
 * Permissions ("first one in wins", Android 5+): a permission is defined by the first installed
 * package declaring it; another package may redeclare it only if signed compatibly
 * (INSTALL_FAILED_DUPLICATE_PERMISSION), and platform permissions cannot be redefined (the
 * declaration is ignored). Install-time grants are decided when the REQUESTING package is
 * installed or updated: normal ⇒ granted; signature ⇒ granted if the requester shares a signer
 * with the definer (SigningDetails.hasCommonSignerWithCapability PERMISSION, AppIdPermissionPolicy);
 * dangerous ⇒ only through a runtime grant. So an app installed BEFORE the app that defines its
 * permission does not get it (CommonsWare "The Custom Permission Problem"); removing the definer
 * revokes it everywhere. Inference: a reboot re-evaluates every package, as the boot scan's
 * updateAllPermissions does.
 */
import { SimUsageError } from '../core/errors.ts';
import type { PermissionSpec, ProtectionLevel, ResolvedManifest } from './manifest.ts';
import { checkCapability, hasCommonSignerWithCapability, type SigningDetails } from './signing.ts';
import type { PackageTable } from './table.ts';
import {
  type InstalledPackage,
  PLATFORM_CERTIFICATE,
  PLATFORM_PACKAGE,
  PLATFORM_PERMISSIONS,
  ROOT_UID,
  refuse,
  SYSTEM_UID,
} from './types.ts';

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
const PLATFORM_DEFINITIONS: readonly PermissionDefinition[] = Object.freeze(
  PLATFORM_PERMISSIONS.map((p) => Object.freeze(definedBy(p, PLATFORM_PACKAGE))),
);

export class Permissions {
  private readonly definitions = new Map<string, PermissionDefinition>();
  private readonly installGrants = new Map<number, Set<string>>();
  private readonly runtimeGrants = new Map<number, Set<string>>();

  constructor(private readonly table: PackageTable) {
    this.definePlatformPermissions();
  }

  /**
   * PackageManager.checkPermission for a UID: root and system hold everything; otherwise the
   * permission must be defined and granted to the UID. A UID that defines the permission itself
   * also passes (the simulation's stand-in for the owner shortcut of checkComponentPermission when
   * the definer owns the protected component).
   */
  check(permission: string, uid: number): boolean {
    if (uid === ROOT_UID || uid === SYSTEM_UID) return true;
    const definition = this.definitions.get(permission);
    if (!definition) return false;
    if (definition.owner !== PLATFORM_PACKAGE && this.table.get(definition.owner)?.uid === uid) return true;
    return (
      (this.installGrants.get(uid)?.has(permission) ?? false) ||
      (this.runtimeGrants.get(uid)?.has(permission) ?? false)
    );
  }

  /** Grants a dangerous permission to the package's UID `uid` (in one user); false if it already held it. */
  grantRuntime(pkg: InstalledPackage, permission: string, uid: number = pkg.uid): boolean {
    this.requireRuntimePermission(pkg, permission);
    const set = this.runtimeGrants.get(uid) ?? new Set<string>();
    this.runtimeGrants.set(uid, set);
    if (set.has(permission)) return false;
    set.add(permission);
    return true;
  }

  /** Revokes a dangerous permission from the package's UID `uid`; false if it did not hold it. */
  revokeRuntime(pkg: InstalledPackage, permission: string, uid: number = pkg.uid): boolean {
    this.requireRuntimePermission(pkg, permission);
    return this.runtimeGrants.get(uid)?.delete(permission) ?? false;
  }

  /**
   * The permissions this package would newly define. A permission defined by another package may
   * be redeclared only by a compatibly signed package (checkCapability PERMISSION either way), and
   * then the first definition stays; a platform permission's redeclaration is ignored.
   */
  newDeclarations(manifest: ResolvedManifest, signing: SigningDetails): PermissionSpec[] {
    const fresh: PermissionSpec[] = [];
    for (const p of manifest.permissions) {
      const existing = this.definitions.get(p.name);
      if (!existing || existing.owner === manifest.packageName) {
        fresh.push(p);
        continue;
      }
      if (existing.owner === PLATFORM_PACKAGE) continue;
      const ownerSigning = this.table.get(existing.owner)?.signing;
      if (!ownerSigning) continue;
      const compatible =
        checkCapability(ownerSigning, signing, 'permission') ||
        checkCapability(signing, ownerSigning, 'permission');
      if (!compatible) {
        refuse(
          'INSTALL_FAILED_DUPLICATE_PERMISSION',
          manifest.packageName,
          `Package ${manifest.packageName} attempting to redeclare permission ${p.name} already owned by ${existing.owner}`,
        );
      }
    }
    return fresh;
  }

  /** Records `owner` as the definer of `specs`. */
  define(specs: readonly PermissionSpec[], owner: string): void {
    for (const p of specs) this.definitions.set(p.name, definedBy(p, owner));
  }

  /** Removes the definitions `owner` made that it no longer declares; true if any was removed. */
  dropOwnedBy(owner: string, stillDeclared: readonly PermissionSpec[]): boolean {
    let removed = false;
    for (const [name, d] of [...this.definitions]) {
      if (d.owner === owner && !stillDeclared.some((p) => p.name === name)) {
        this.definitions.delete(name);
        removed = true;
      }
    }
    return removed;
  }

  /** The UID is gone: its grants go with it. */
  forgetUid(uid: number): void {
    this.installGrants.delete(uid);
    this.runtimeGrants.delete(uid);
  }

  /** Recomputes the install-time grants of one UID; prunes runtime grants no longer valid. */
  evaluate(uid: number): void {
    const members = this.table.ofUid(uid);
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

  evaluateAll(): void {
    const uids = new Set([...this.table.values()].flatMap((p) => this.table.uidsOf(p)));
    for (const uid of uids) this.evaluate(uid);
  }

  /** A reboot: definitions rebuilt from the platform and every installed package, grants recomputed. */
  reboot(): void {
    this.definitions.clear();
    this.definePlatformPermissions();
    for (const pkg of this.table.values()) {
      for (const p of pkg.manifest.permissions) {
        if (!this.definitions.has(p.name)) this.definitions.set(p.name, definedBy(p, pkg.packageName));
      }
    }
    this.evaluateAll();
  }

  private definePlatformPermissions(): void {
    for (const d of PLATFORM_DEFINITIONS) this.definitions.set(d.name, d);
  }

  private signingOfDefiner(definition: PermissionDefinition): SigningDetails | null {
    if (definition.owner === PLATFORM_PACKAGE) return { signers: [PLATFORM_CERTIFICATE] };
    return this.table.get(definition.owner)?.signing ?? null;
  }

  private requireRuntimePermission(pkg: InstalledPackage, permission: string): void {
    const members = this.table.ofUid(pkg.uid);
    if (!members.some((p) => p.manifest.usesPermissions.includes(permission))) {
      throw new SimUsageError(`Package ${pkg.packageName} has not requested permission ${permission}`);
    }
    if (this.definitions.get(permission)?.protectionLevel !== 'dangerous') {
      throw new SimUsageError(
        `Permission ${permission} requested by ${pkg.packageName} is not a changeable permission type`,
      );
    }
  }
}
