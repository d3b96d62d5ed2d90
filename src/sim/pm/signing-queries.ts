/**
 * The PackageManager's signing queries: what an app may ask about another package's certificates.
 */
import {
  apkContentsSigners,
  hasMultipleSigners,
  hasPastSigningCertificates,
  hasSha256Certificate,
  signingCertificateHistory,
} from './signing.ts';
import type { PackageTable } from './table.ts';
import type { SigningInfo } from './types.ts';

/**
 * hasSigningCertificate(uid, sha256, CERT_INPUT_SHA256): any package of the UID whose signing
 * history contains the certificate (any lineage certificate; never for a multi-signer package).
 */
export function hasSigningCertificate(table: PackageTable, uid: number, sha256: string): boolean {
  return table.ofUid(uid).some((p) => hasSha256Certificate(p.signing, sha256.toLowerCase()));
}

export function hasSigningCertificateForPackage(
  table: PackageTable,
  packageName: string,
  sha256: string,
): boolean {
  const pkg = table.get(packageName);
  return pkg !== undefined && hasSha256Certificate(pkg.signing, sha256.toLowerCase());
}

/** android.content.pm.SigningInfo of an installed package; null if it is not installed. */
export function signingInfo(table: PackageTable, packageName: string): SigningInfo | null {
  const pkg = table.get(packageName);
  if (!pkg) return null;
  return {
    hasMultipleSigners: hasMultipleSigners(pkg.signing),
    hasPastSigningCertificates: hasPastSigningCertificates(pkg.signing),
    signingCertificateHistory: signingCertificateHistory(pkg.signing),
    apkContentsSigners: apkContentsSigners(pkg.signing),
  };
}
