/**
 * The installed packages themselves, shared by every concern of the PackageManager: the packages in
 * install order, the spec each came from, a by-UID index derived from them, and the generation
 * counter that moves whenever anything derived from them may have changed.
 */
import { SimUsageError } from '../core/errors.ts';
import type { PackageSpec } from './manifest.ts';
import type { InstalledPackage } from './types.ts';
import { appIdOf, uidOf } from './user-handle.ts';

const NO_PACKAGES: readonly InstalledPackage[] = Object.freeze([]);

export class PackageTable {
  /** Installed packages; Map order is install order (an update keeps its place). */
  private readonly packages = new Map<string, InstalledPackage>();
  /** The spec each installed package was last installed or updated from. */
  private readonly specs = new Map<string, PackageSpec>();
  /** Packages by UID, in install order: derived from `packages`, dropped whenever it changes. */
  private byUid: Map<number, InstalledPackage[]> | null = null;
  /** Further users a package is installed for (installExistingPackageAsUser), each with its own UID. */
  private readonly otherUsers = new Map<string, number[]>();
  /** Each package's UID in the user it was first installed for: process and data directory names are relative to it. */
  private readonly home = new Map<string, number>();
  private changes = 0;
  private nextInstallSeq = 0;

  /** See PackageManager.generation. */
  get generation(): number {
    return this.changes;
  }

  get size(): number {
    return this.packages.size;
  }

  /** Something the UID index, signing or visibility depend on changed. */
  changed(): void {
    this.byUid = null;
    this.changes++;
  }

  /** A fresh install order number (an update keeps its package's). */
  takeInstallSeq(): number {
    return this.nextInstallSeq++;
  }

  get(packageName: string): InstalledPackage | undefined {
    return this.packages.get(packageName);
  }

  has(packageName: string): boolean {
    return this.packages.has(packageName);
  }

  specOf(packageName: string): PackageSpec | undefined {
    return this.specs.get(packageName);
  }

  /** Installed packages in install order. */
  values(): IterableIterator<InstalledPackage> {
    return this.packages.values();
  }

  put(pkg: InstalledPackage, spec: PackageSpec): void {
    if (!this.home.has(pkg.packageName)) this.home.set(pkg.packageName, pkg.uid);
    this.packages.set(pkg.packageName, pkg);
    this.changed();
    this.specs.set(pkg.packageName, spec);
  }

  /** The package is installed for `userId` too (same appId, UID userId × 100000 + appId). */
  addUser(packageName: string, userId: number): number {
    const pkg = this.require(packageName);
    const users = this.otherUsers.get(packageName) ?? [];
    if (!users.includes(userId)) users.push(userId);
    this.otherUsers.set(packageName, users);
    this.changed();
    return uidOf(userId, appIdOf(pkg.uid));
  }

  /** The package leaves `userId`, one of its further users; its UID there, or null if it was not installed for it. */
  removeUser(packageName: string, userId: number): number | null {
    const users = this.otherUsers.get(packageName) ?? [];
    const at = users.indexOf(userId);
    if (at < 0) return null;
    users.splice(at, 1);
    this.changed();
    return uidOf(userId, appIdOf(this.require(packageName).uid));
  }

  /**
   * The package leaves its first user while `nextUser`, one of its further users, keeps it: that
   * user's UID becomes the package's first (same appId, install order and spec). Returns the UID removed.
   */
  rehome(packageName: string, nextUser: number): number {
    const pkg = this.require(packageName);
    const users = this.otherUsers.get(packageName) ?? [];
    users.splice(users.indexOf(nextUser), 1);
    this.packages.set(packageName, { ...pkg, uid: uidOf(nextUser, appIdOf(pkg.uid)) });
    this.changed();
    return pkg.uid;
  }

  /** The UID the package was first installed under (its user's processes carry no `@u` suffix). */
  homeUidOf(packageName: string): number | undefined {
    return this.home.get(packageName);
  }

  /** The package's UIDs: its own (first) and one per further user. */
  uidsOf(pkg: InstalledPackage): number[] {
    return [pkg.uid, ...(this.otherUsers.get(pkg.packageName) ?? []).map((u) => uidOf(u, appIdOf(pkg.uid)))];
  }

  remove(packageName: string): void {
    this.otherUsers.delete(packageName);
    this.home.delete(packageName);
    this.packages.delete(packageName);
    this.changed();
    this.specs.delete(packageName);
  }

  require(packageName: string): InstalledPackage {
    const pkg = this.packages.get(packageName);
    if (!pkg) throw new SimUsageError(`package ${packageName} is not installed`);
    return pkg;
  }

  /** Every package of the UID, in install order (a shared array: never mutate it). */
  ofUid(uid: number): readonly InstalledPackage[] {
    if (this.byUid === null) {
      this.byUid = new Map();
      for (const p of this.packages.values()) {
        for (const uid of this.uidsOf(p)) {
          const list = this.byUid.get(uid);
          if (list) list.push(p);
          else this.byUid.set(uid, [p]);
        }
      }
    }
    return this.byUid.get(uid) ?? NO_PACKAGES;
  }
}
