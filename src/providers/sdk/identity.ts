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
  const pm = context.packageManager;
  let cache = resolved.get(context);
  if (!cache || cache.generation !== pm.generation) {
    cache = { generation: pm.generation, byUid: new Map() };
    resolved.set(context, cache);
  }
  let caller = cache.byUid.get(uid);
  if (!caller) {
    const packages = Object.freeze(pm.getPackagesForUid(uid) ?? []);
    const certDigests: Record<string, readonly string[]> = {};
    for (const pkg of packages) certDigests[pkg] = Object.freeze(pm.getSigningCertificateDigests(pkg));
    caller = Object.freeze({ uid, packages, certDigests: Object.freeze(certDigests) });
    cache.byUid.set(uid, caller);
  }
  return caller;
}

/**
 * Identities already resolved by this app, valid while the PackageManager's generation stands
 * (nothing the answer depends on changed); frozen, since every call of that UID shares one.
 */
const resolved = new WeakMap<
  AppContext,
  { readonly generation: number; readonly byUid: Map<number, CallerIdentity> }
>();

/** A stable fingerprint of who the caller is now: UID, packages and their current certificates. */
export function identityFingerprint(caller: CallerIdentity): string {
  let fingerprint = fingerprints.get(caller);
  if (fingerprint === undefined) {
    fingerprint = fingerprintOf(caller);
    fingerprints.set(caller, fingerprint);
  }
  return fingerprint;
}

/** Fingerprints by identity object: resolveCaller makes a fresh, never-mutated one per call. */
const fingerprints = new WeakMap<CallerIdentity, string>();

function fingerprintOf(caller: CallerIdentity): string {
  return JSON.stringify([
    caller.uid,
    caller.packages.map((p) => [p, [...(caller.certDigests[p] ?? [])].sort()]),
  ]);
}
