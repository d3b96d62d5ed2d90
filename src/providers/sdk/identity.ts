/**
 * The caller's identity (spec §7.1). The UID is captured synchronously at call() entry, before any
 * await (7.1-01) — after that Binder.getCallingUid() is our own UID. Everything else is derived
 * from the UID through PackageManager: all packages of the UID, not just the first (7.1-03), and
 * each package's current signing-certificate digest (7.1-04). Nothing the caller says about itself
 * — package names in args, self-reported identity — is used (7.1-02).
 */
import type { AppContext } from '../../sim/context.ts';
import type { CallerIdentity } from './types.ts';

export function resolveCaller(context: AppContext, uid: number): CallerIdentity {
  const packages = context.packageManager.getPackagesForUid(uid) ?? [];
  const certDigests: Record<string, string[]> = {};
  for (const pkg of packages) certDigests[pkg] = context.packageManager.getSigningCertificateDigests(pkg);
  return { uid, packages, certDigests };
}

/** A stable fingerprint of who the caller is now: UID, packages and their current certificates. */
export function identityFingerprint(caller: CallerIdentity): string {
  return JSON.stringify([
    caller.uid,
    caller.packages.map((p) => [p, [...(caller.certDigests[p] ?? [])].sort()]),
  ]);
}
