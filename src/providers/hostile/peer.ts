/**
 * The peer: a second provider package that looks honest — it answers CETP v2 like a hostile
 * provider with no lies — and helps hostile ones. It mints explicit, immutable PendingIntents to
 * its own Activity for a hostile provider to relay as resolutions (7.2-04), and owns the authority a
 * hostile discovery service claims (2.1-08).
 */
import type { App, AppFactory } from '../../sim/app/app.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import { CETP_PROVIDER } from '../sdk/manifest.ts';
import { PEER_CONFIRM_ACTIVITY } from './manifest.ts';
import { HostileProvider } from './provider.ts';
import { LookalikeConfirmActivity, MINT_RESOLUTION, mintPeerResolution } from './resolutions.ts';

export class PeerProvider extends HostileProvider {
  constructor() {
    super({});
  }

  override async call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
  ): Promise<Bundle | null> {
    if (method === MINT_RESOLUTION) return mintPeerResolution(this.context, arg);
    return super.call(authority, method, arg, extras);
  }
}

export function peerApp(): AppFactory {
  return (): App => ({
    providers: { [CETP_PROVIDER]: new PeerProvider() },
    activities: { [PEER_CONFIRM_ACTIVITY]: () => new LookalikeConfirmActivity('Approve payment') },
  });
}
