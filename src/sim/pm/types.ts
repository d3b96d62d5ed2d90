/**
 * The PackageManager's vocabulary: UIDs and platform constants, install result codes, and the
 * records its queries answer with. No behaviour beyond the install error itself.
 */

import { AndroidException } from '../core/errors.ts';
import type { IntentQuery, PermissionSpec, ProviderInfo, ResolvedManifest } from './manifest.ts';
import { type Certificate, certificate, type SigningDetails } from './signing.ts';

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
  // Cross-user access (content.ts acquireProvider): signature|privileged in AOSP, here signature.
  { name: 'android.permission.INTERACT_ACROSS_USERS', protectionLevel: 'signature' },
  { name: 'android.permission.INTERACT_ACROSS_USERS_FULL', protectionLevel: 'signature' },
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

/** A provider's manifest entry, with the package and uid it resolved in. */
export interface ResolvedProvider extends ProviderInfo {
  readonly packageName: string;
  readonly uid: number;
  /** The authority asked for. */
  readonly authority: string;
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
  /** Uninstalled for one user only (deletePackageAsUser): that user's UID `uid` is gone, the others stay. */
  onPackageRemovedForUser?(name: string, uid: number): void;
  onPackageUpdated?(pkg: InstalledPackage, previous: InstalledPackage): void;
  /** A runtime permission was revoked; Android kills the UID's processes. */
  onRuntimePermissionRevoked?(uid: number, permission: string): void;
  onReboot?(): void;
}

/** Throws the install error `code` for `packageName` (PackageManagerException). */
export function refuse(code: InstallErrorCode, packageName: string, message: string): never {
  throw new PackageInstallError(code, packageName, message);
}
