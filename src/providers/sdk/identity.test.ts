import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../sim/app/context.ts';
import { appSpec, clientSpec } from '../../sim/testing.ts';
import { World } from '../../sim/world.ts';
import { CallerResolver, identityFingerprint, resolveCaller } from './identity.ts';

/** A world with a provider app and a client, and the provider's context (taken from a task in it). */
async function providerContext(): Promise<{ world: World; context: AppContext; clientUid: number }> {
  const world = new World({ seed: 'identity' });
  // The provider declares the client in <queries>: a caller it cannot see resolves to no packages.
  world.install(clientSpec('com.ex.provider', ['com.ex.client']));
  world.install(appSpec('com.ex.client'));
  let context: AppContext | null = null;
  world.spawnIn('com.ex.provider', 'grab', async (ctx) => {
    context = ctx;
  });
  await world.run();
  const clientUid = world.pm.getPackageUid('com.ex.client') as number;
  return { world, context: context as unknown as AppContext, clientUid };
}

describe('CallerResolver (CETP-7.1-03, 7.1-04)', () => {
  it('resolves a UID once per PackageManager generation and re-resolves after a change', async () => {
    const { world, context, clientUid } = await providerContext();
    const callers = new CallerResolver(context);
    const first = callers.resolve(clientUid);
    expect(callers.resolve(clientUid)).toBe(first);
    expect(first.packages).toEqual(['com.ex.client']);
    expect(Object.isFrozen(first)).toBe(true);

    world.resign('com.ex.client', 'com.ex.client-new-key', false);
    const after = callers.resolve(clientUid);
    expect(after).not.toBe(first);
    expect(after.certDigests['com.ex.client']).not.toEqual(first.certDigests['com.ex.client']);
    expect(identityFingerprint(after)).not.toBe(identityFingerprint(first));
  });

  it('gives a resolved identity the same fingerprint as one built by hand', async () => {
    const { context, clientUid } = await providerContext();
    const resolved = resolveCaller(context, clientUid);
    const byHand = {
      uid: resolved.uid,
      packages: [...resolved.packages],
      certDigests: { ...resolved.certDigests },
    };
    expect(identityFingerprint(resolved)).toBe(identityFingerprint(byHand));
    // The carried fingerprint is not an enumerable field: the identity still reads as its three fields.
    expect(Object.keys(resolved)).toEqual(['uid', 'packages', 'certDigests']);
  });
});
