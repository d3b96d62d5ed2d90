/**
 * APK signing identity: certificates, multi-signer sets and v3 key-rotation lineages, with the
 * comparison rules of android.content.pm.SigningDetails (SD) that PackageManager applies.
 *
 * - A package is signed either by ONE signer, optionally with a proof-of-rotation lineage (APK
 *   Signature Scheme v3, Android 9: oldest → current, the last entry being the current signer), or
 *   by SEVERAL signers, which can never rotate and have no lineage.
 * - Each past certificate in a lineage carries capabilities granted to it by its successors
 *   (installed-data, shared-uid, permission, rollback, auth; `apksigner rotate`). The current
 *   signer implicitly has them all.
 * - `hasSha256Certificate(sha)` — what PackageManager.hasSigningCertificate(uid, sha,
 *   CERT_INPUT_SHA256) consults — uses PAST_CERT_EXISTS: ANY lineage certificate matches whatever
 *   its capabilities, and a multi-signer package NEVER matches (SD hasSha256CertificateInternal).
 *   Capabilities matter only through the flag-taking variants (`checkCapability`).
 *
 * Simulated certificates are named ('alerts-release-2024'); the "DER encoding" of a certificate is
 * its UTF-8 name, so its SHA-256 is reproducible anywhere.
 */

import { createHash } from 'node:crypto';
import { caches } from '../../base/caches.ts';

export interface Certificate {
  readonly name: string;
  /** Lowercase hex SHA-256 of the UTF-8 name (stands for the DER certificate's digest). */
  readonly sha256: string;
}

/** SigningDetails.CertCapabilities, one name per flag. */
export type CertCapability = 'installedData' | 'sharedUid' | 'permission' | 'rollback' | 'auth';

export type CertCapabilities = { readonly [K in CertCapability]?: boolean };

export interface LineageEntry {
  readonly cert: Certificate;
  /** Capabilities granted to this (past) certificate; each defaults to true. */
  readonly capabilities?: CertCapabilities;
}

export interface SigningDetails {
  /** The current signer(s). More than one ⇒ a multi-signer package (no lineage allowed). */
  readonly signers: readonly Certificate[];
  /** Single-signer key rotation, oldest → current; the last entry must be `signers[0]`. */
  readonly lineage?: readonly LineageEntry[];
}

const certificates = caches.memo<string, Certificate>('sim/signing: certificates by name', 4_096);

/** The certificate named `name` (a pure function of the name: one frozen object per name). */
export function certificate(name: string): Certificate {
  return certificates.get(name, makeCertificate);
}

function makeCertificate(name: string): Certificate {
  return Object.freeze({ name, sha256: createHash('sha256').update(name, 'utf8').digest('hex') });
}

/** Signed by one certificate, no rotation. */
export function signedWith(cert: Certificate): SigningDetails {
  return { signers: [cert] };
}

/** Signed by several certificates at once (no rotation possible). */
export function multiSigned(certs: readonly Certificate[]): SigningDetails {
  return { signers: [...certs] };
}

/**
 * Single signer with a rotation lineage (oldest → current); the current signer is the last entry.
 * Entries may be bare certificates (all capabilities granted).
 */
export function rotatedSigning(lineage: readonly (Certificate | LineageEntry)[]): SigningDetails {
  const entries = lineage.map((e): LineageEntry => ('cert' in e ? e : { cert: e }));
  const current = entries.at(-1);
  if (!current) throw new RangeError('rotatedSigning: empty lineage');
  return { signers: [current.cert], lineage: entries };
}

/** Structural problems that no real APK can have (empty when the details are well-formed). */
export function signingProblems(details: SigningDetails): string[] {
  const problems: string[] = [];
  if (details.signers.length === 0) problems.push('no signers');
  const lineage = details.lineage;
  if (lineage && lineage.length > 0) {
    if (details.signers.length > 1) problems.push('a multi-signer package cannot have a rotation lineage');
    const last = lineage.at(-1);
    const current = details.signers[0];
    if (last && current && last.cert.sha256 !== current.sha256) {
      problems.push(`lineage ends with ${last.cert.name}, not the current signer ${current.name}`);
    }
    const seen = new Set<string>();
    for (const e of lineage) {
      if (seen.has(e.cert.sha256)) problems.push(`lineage lists ${e.cert.name} twice`);
      seen.add(e.cert.sha256);
    }
  }
  return problems;
}

export function hasMultipleSigners(details: SigningDetails): boolean {
  return details.signers.length > 1;
}

export function hasPastSigningCertificates(details: SigningDetails): boolean {
  return (details.lineage?.length ?? 0) > 0;
}

function grants(entry: LineageEntry, capability: CertCapability): boolean {
  return entry.capabilities?.[capability] ?? true;
}

/**
 * SD hasSha256CertificateInternal / hasCertificateInternal. Without `capability` (PAST_CERT_EXISTS)
 * any past certificate matches; with one, a past certificate matches only if it was granted it.
 * The current signer matches only for a single-signer package.
 */
export function hasSha256Certificate(
  details: SigningDetails,
  sha256: string,
  capability?: CertCapability,
): boolean {
  const lineage = details.lineage ?? [];
  // The last lineage entry is the current signer, checked below with every capability.
  for (let i = 0; i < lineage.length - 1; i++) {
    const entry = lineage[i] as LineageEntry;
    if (entry.cert.sha256 === sha256 && (capability === undefined || grants(entry, capability))) return true;
  }
  const [only, ...others] = details.signers;
  return only !== undefined && others.length === 0 && only.sha256 === sha256;
}

/** SD hasCertificate(signature[, flags]). */
export function hasCertificate(
  details: SigningDetails,
  cert: Certificate,
  capability?: CertCapability,
): boolean {
  return hasSha256Certificate(details, cert.sha256, capability);
}

/** SD signaturesMatchExactly (Signature.areExactMatch): the same set of current signers. */
export function signaturesMatchExactly(a: SigningDetails, b: SigningDetails): boolean {
  const left = new Set(a.signers.map((c) => c.sha256));
  const right = new Set(b.signers.map((c) => c.sha256));
  return left.size === right.size && [...left].every((s) => right.has(s));
}

/**
 * SD checkCapability(oldDetails, flags): is `old` this package's own signer, or a past signer to
 * which this lineage grants `capability`? A multi-signer `old` needs the identical signer set.
 */
export function checkCapability(
  details: SigningDetails,
  old: SigningDetails,
  capability: CertCapability,
): boolean {
  if (old.signers.length > 1) return signaturesMatchExactly(details, old);
  const oldSigner = old.signers[0];
  return oldSigner !== undefined && hasCertificate(details, oldSigner, capability);
}

/** SD hasAncestorOrSelf(oldDetails): `old`'s signer is this signer or in this lineage. */
export function hasAncestorOrSelf(details: SigningDetails, old: SigningDetails): boolean {
  if (old.signers.length > 1) return signaturesMatchExactly(details, old);
  const oldSigner = old.signers[0];
  return oldSigner !== undefined && hasCertificate(details, oldSigner);
}

/** SD hasAncestor(oldDetails): like hasAncestorOrSelf, but strictly older (a past certificate). */
export function hasAncestor(details: SigningDetails, old: SigningDetails): boolean {
  const lineage = details.lineage ?? [];
  const oldSigner = old.signers[0];
  if (old.signers.length !== 1 || oldSigner === undefined) return false;
  return lineage.slice(0, -1).some((e) => e.cert.sha256 === oldSigner.sha256);
}

/**
 * SD hasCommonSignerWithCapability(other, flags): used to grant signature permissions
 * (AppIdPermissionPolicy): true if this current signer is anywhere in `other`'s history, or a past
 * certificate of this lineage that is in `other`'s history was granted `capability`.
 */
export function hasCommonSignerWithCapability(
  details: SigningDetails,
  other: SigningDetails,
  capability: CertCapability,
): boolean {
  if (details.signers.length > 1 || other.signers.length > 1) return signaturesMatchExactly(details, other);
  const otherHistory = new Set(
    hasPastSigningCertificates(other)
      ? (other.lineage ?? []).map((e) => e.cert.sha256)
      : other.signers.map((c) => c.sha256),
  );
  const current = details.signers[0];
  if (current && otherHistory.has(current.sha256)) return true;
  const lineage = details.lineage ?? [];
  for (let i = 0; i < lineage.length - 1; i++) {
    const entry = lineage[i] as LineageEntry;
    if (otherHistory.has(entry.cert.sha256) && grants(entry, capability)) return true;
  }
  return false;
}

/**
 * May a package signed with `oldDetails` be updated in place to `newDetails`? The install-time rule
 * of InstallPackageHelper.preparePackageLI: the new lineage vouches for the old signer with
 * installed-data (a rotation, or the same signer), OR the old lineage vouches for the new signer
 * with rollback (going back to a previous key). Multi-signer packages need the identical set.
 */
export function canUpdateTo(oldDetails: SigningDetails, newDetails: SigningDetails): boolean {
  return (
    checkCapability(newDetails, oldDetails, 'installedData') ||
    checkCapability(oldDetails, newDetails, 'rollback')
  );
}

/**
 * SigningInfo.getSigningCertificateHistory(): oldest → current for a single signer (just the signer
 * without rotation), null for a multi-signer package.
 */
export function signingCertificateHistory(details: SigningDetails): Certificate[] | null {
  if (hasMultipleSigners(details)) return null;
  if (hasPastSigningCertificates(details)) return (details.lineage ?? []).map((e) => e.cert);
  return [...details.signers];
}

/** SigningInfo.getApkContentsSigners(): the current signers only, never past certificates. */
export function apkContentsSigners(details: SigningDetails): Certificate[] {
  return [...details.signers];
}

/** A plain-JSON description for traces. */
export function describeSigning(details: SigningDetails): { signers: string[]; lineage: string[] } {
  return {
    signers: details.signers.map((c) => c.name),
    lineage: (details.lineage ?? []).map((e) => e.cert.name),
  };
}
