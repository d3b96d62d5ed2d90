/**
 * The caller's identity (spec §7.1). The UID is captured synchronously at call() entry, before any
 * await (7.1-01) — after that Binder.getCallingUid() is our own UID. Everything else is derived
 * from the UID through PackageManager: all packages of the UID, not just the first (7.1-03), and
 * each package's current signing-certificate digest (7.1-04). Nothing the caller says about itself
 * — package names in args, self-reported identity — is used (7.1-02).
 */
import type { AppContext } from '../../sim/app/context.ts';
import type { CallerIdentity } from './types.ts';

/** Resolves `uid` now, uncached (see CallerResolver for the per-app cache). */
export function resolveCaller(context: AppContext, uid: number): CallerIdentity {
  const pm = context.packageManager;
  const packages = Object.freeze(pm.getPackagesForUid(uid) ?? []);
  const certDigests: Record<string, readonly string[]> = {};
  for (const pkg of packages) certDigests[pkg] = Object.freeze(pm.getSigningCertificateDigests(pkg));
  const frozenDigests = Object.freeze(certDigests);
  // The fingerprint travels with the frozen identity under a symbol key (no side table: a WeakMap
  // keyed by short-lived objects keeps its entries through every young-generation GC).
  return Object.freeze({
    uid,
    packages,
    certDigests: frozenDigests,
    [FINGERPRINT]: fingerprintOf({ uid, packages, certDigests: frozenDigests }),
  });
}

/**
 * Identities already resolved by one app, valid while the PackageManager's generation stands
 * (nothing the answer depends on changed); frozen, since every call of that UID shares one.
 * Owned by the app's provider instance, so it dies with the process that holds it.
 */
export class CallerResolver {
  private generation = -1;
  private readonly byUid = new Map<number, CallerIdentity>();

  constructor(private readonly context: AppContext) {}

  resolve(uid: number): CallerIdentity {
    const generation = this.context.packageManager.generation;
    if (generation !== this.generation) {
      this.generation = generation;
      this.byUid.clear();
    }
    let caller = this.byUid.get(uid);
    if (!caller) {
      caller = resolveCaller(this.context, uid);
      this.byUid.set(uid, caller);
    }
    return caller;
  }
}

const FINGERPRINT: unique symbol = Symbol('cetp.identityFingerprint');

/** A stable fingerprint of who the caller is now: UID, packages and their current certificates. */
export function identityFingerprint(caller: CallerIdentity): string {
  return (caller as { [FINGERPRINT]?: string })[FINGERPRINT] ?? fingerprintOf(caller);
}

function fingerprintOf(caller: CallerIdentity): string {
  return JSON.stringify([
    caller.uid,
    caller.packages.map((p) => [p, [...(caller.certDigests[p] ?? [])].sort()]),
  ]);
}
