/**
 * Hostile CETP providers for the consumer's robustness tests and the fuzzer: a provider driven by a
 * HostileBehaviour (what it lies about), a catalogue of named cases, a fast-check arbitrary of
 * combinations, and `installHostile` to put one — with the peer package it relays through — on a
 * simulated device.
 */
import type { World } from '../../sim/world.ts';
import type { HostileBehaviour } from './behaviour.ts';
import { HOSTILE_AUTHORITY, HOSTILE_PACKAGE, hostilePackage, PEER_PACKAGE, peerPackage } from './manifest.ts';
import { peerApp } from './peer.ts';
import { hostileApp } from './provider.ts';

export { hostileBehaviourArb } from './arbitrary.ts';
export type {
  DiscoveryLie,
  ExecuteLie,
  FileLie,
  HostileBehaviour,
  HostileMethod,
  NegotiateLie,
  PendingIntentLie,
  ReplyTamper,
} from './behaviour.ts';
export { HOSTILE_METHODS } from './behaviour.ts';
export { HOSTILE_CASES, type HostileCase } from './cases.ts';
export {
  HOSTILE_AUTHORITY,
  HOSTILE_CONFIRM_ACTION,
  HOSTILE_CONFIRM_ACTIVITY,
  HOSTILE_PACKAGE,
  type HostilePackageSpec,
  hostilePackage,
  PEER_AUTHORITY,
  PEER_CONFIRM_ACTIVITY,
  PEER_PACKAGE,
  peerPackage,
} from './manifest.ts';
export {
  ASSUMED_CONSUMER_CAPS,
  INJECTION_MARKER,
  injectionText,
  jsonDepth,
} from './payloads.ts';
export { peerApp } from './peer.ts';
export { HOSTILE_PROVIDER_NAME, HostileProvider, hostileApp } from './provider.ts';

export interface InstalledHostile {
  readonly packageName: string;
  readonly authority: string;
}

/**
 * Installs a hostile provider behaving as `behaviour` (its manifest from `behaviour.discovery`) and,
 * once per world, the peer package. Returns where the hostile provider lives.
 */
export function installHostile(
  world: World,
  behaviour: HostileBehaviour,
  where: InstalledHostile = { packageName: HOSTILE_PACKAGE, authority: HOSTILE_AUTHORITY },
  cert?: string,
): InstalledHostile {
  if (world.pm.getPackageUid(PEER_PACKAGE) === null) world.install(peerPackage(), peerApp());
  const { versions, metaData } = behaviour.discovery ?? {};
  world.install(
    hostilePackage({
      ...where,
      ...(versions !== undefined ? { versions } : {}),
      ...(metaData !== undefined ? { metaData: { ...metaData } } : {}),
      ...(cert !== undefined ? { cert } : {}),
    }),
    hostileApp(behaviour),
  );
  return where;
}
