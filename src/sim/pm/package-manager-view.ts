/**
 * android.content.pm.PackageManager as one app sees it: every query is made as the app's UID, so
 * package visibility (Android 11+) filters what it can see — an invisible package has no services,
 * no providers, no packages-for-uid and no signing certificates, as far as this caller knows.
 */
import type {
  InstalledPackage,
  PackageManager,
  ResolvedProvider,
  ResolvedService,
} from './package-manager.ts';
import { apkContentsSigners } from './signing.ts';

export class PackageManagerView {
  constructor(
    private readonly pm: PackageManager,
    readonly callerUid: number,
  ) {}

  /** PackageManager.generation: moves whenever packages, signing or visibility change. */
  get generation(): number {
    return this.pm.generation;
  }

  queryIntentServices(action: string): ResolvedService[] {
    return this.pm.queryIntentServices(this.callerUid, action);
  }

  resolveContentProvider(authority: string): ResolvedProvider | null {
    return this.pm.resolveContentProvider(this.callerUid, authority);
  }

  getPackageInfo(packageName: string): InstalledPackage | null {
    if (!this.pm.canSeePackage(this.callerUid, packageName)) return null;
    return this.pm.getPackageInfo(packageName) ?? null;
  }

  /** Every package of `uid` this caller can see, or null. */
  getPackagesForUid(uid: number): string[] | null {
    const all = this.pm.getPackagesForUid(uid);
    if (!all) return null;
    const visible = all.filter((p) => this.pm.canSeePackage(this.callerUid, p));
    return visible.length > 0 ? visible : null;
  }

  getNameForUid(uid: number): string | null {
    return this.getPackagesForUid(uid) ? this.pm.getNameForUid(uid) : null;
  }

  /** hasSigningCertificate(uid, sha256, CERT_INPUT_SHA256) — false for invisible UIDs. */
  hasSigningCertificate(uid: number, sha256: string): boolean {
    return this.getPackagesForUid(uid) !== null && this.pm.hasSigningCertificate(uid, sha256);
  }

  /** The current signers' SHA-256 digests (SigningInfo.getApkContentsSigners), or [] if invisible. */
  getSigningCertificateDigests(packageName: string): string[] {
    if (!this.pm.canSeePackage(this.callerUid, packageName)) return [];
    const pkg = this.pm.getPackageInfo(packageName);
    return pkg ? apkContentsSigners(pkg.signing).map((c) => c.sha256) : [];
  }

  checkPermission(permission: string, uid: number): boolean {
    return this.pm.checkPermission(permission, uid);
  }
}
