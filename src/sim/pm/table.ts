/**
 * The installed packages themselves, shared by every concern of the PackageManager: the packages in
 * install order, the spec each came from, a by-UID index derived from them, and the generation
 * counter that moves whenever anything derived from them may have changed.
 */
import { SimUsageError } from '../core/errors.ts';
import type { PackageSpec } from './manifest.ts';
import type { InstalledPackage } from './types.ts';

const NO_PACKAGES: readonly InstalledPackage[] = Object.freeze([]);

export class PackageTable {
  /** Installed packages; Map order is install order (an update keeps its place). */
  private readonly packages = new Map<string, InstalledPackage>();
  /** The spec each installed package was last installed or updated from. */
  private readonly specs = new Map<string, PackageSpec>();
  /** Packages by UID, in install order: derived from `packages`, dropped whenever it changes. */
  private byUid: Map<number, InstalledPackage[]> | null = null;
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
    this.packages.set(pkg.packageName, pkg);
    this.changed();
    this.specs.set(pkg.packageName, spec);
  }

  remove(packageName: string): void {
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
        const list = this.byUid.get(p.uid);
        if (list) list.push(p);
        else this.byUid.set(p.uid, [p]);
      }
    }
    return this.byUid.get(uid) ?? NO_PACKAGES;
  }
}
