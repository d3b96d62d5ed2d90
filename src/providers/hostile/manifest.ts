/**
 * The manifests of hostile providers (spec §2.1). A hostile package looks like any CETP provider —
 * a discovery service with the v1 action and authority meta-data, the provider, and an exported
 * confirmation Activity of its own (the target of its mutable and implicit PendingIntents) — but
 * its meta-data may lie: versions it does not honour (8-08) or an authority owned by another
 * package (2.1-08).
 *
 * The peer is a second, honest-looking provider package a hostile one works with: it mints the
 * PendingIntents a hostile provider relays as its own (7.2-04), and owns the authority a hostile
 * discovery service claims. Hostile packages can see it (`<queries>`).
 */
import type { PackageSpec } from '../../sim/pm/manifest.ts';
import { providerPackage } from '../sdk/manifest.ts';

export const HOSTILE_PACKAGE = 'com.example.hostile';
export const HOSTILE_AUTHORITY = 'com.example.hostile.clawseed.tools';
export const PEER_PACKAGE = 'com.example.hostilepeer';
export const PEER_AUTHORITY = 'com.example.hostilepeer.clawseed.tools';

/** The exported Activity a hostile provider's own resolutions open. */
export const HOSTILE_CONFIRM_ACTIVITY = 'HostileConfirmActivity';
/** The action its implicit resolutions use (any app may declare it too). */
export const HOSTILE_CONFIRM_ACTION = 'com.example.hostile.action.CONFIRM';
/** The peer's Activity behind the PendingIntents it mints for relaying. */
export const PEER_CONFIRM_ACTIVITY = 'PeerConfirmActivity';

export interface HostilePackageSpec {
  readonly packageName: string;
  readonly authority: string;
  /** Declared major versions; default [2]. */
  readonly versions?: readonly number[];
  /** Overrides of the discovery meta-data. */
  readonly metaData?: Record<string, string>;
  readonly cert?: string;
}

export function hostilePackage(spec: HostilePackageSpec): PackageSpec {
  return providerPackage({
    packageName: spec.packageName,
    authority: spec.authority,
    versions: spec.versions ?? [2],
    ...(spec.cert !== undefined ? { cert: spec.cert } : {}),
    ...(spec.metaData !== undefined ? { metaData: spec.metaData } : {}),
    activities: [
      {
        name: HOSTILE_CONFIRM_ACTIVITY,
        exported: true,
        intentFilters: [{ actions: [HOSTILE_CONFIRM_ACTION] }],
      },
    ],
    manifest: { queries: { packages: [PEER_PACKAGE] } },
  });
}

/** The peer: a v2 provider package with an exported Activity of its own. */
export function peerPackage(): PackageSpec {
  return providerPackage({
    packageName: PEER_PACKAGE,
    authority: PEER_AUTHORITY,
    versions: [2],
    activities: [{ name: PEER_CONFIRM_ACTIVITY, exported: true }],
  });
}
