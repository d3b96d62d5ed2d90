/**
 * A second Android user (user-handle.ts; FIDELITY.md row 35.8c): an app installed for user 10 runs
 * under uid 10 × 100000 + appId, and a provider is resolved in the caller's own user — user 0's
 * provider is an unknown authority to user 10. The old model (one user) fails both: the user-10 app
 * got an ordinary 10xxx UID and reached the provider.
 */
import { describe, expect, it } from 'vitest';
import { appSpec, clientSpec, EchoProvider } from '../testing.ts';
import { World } from '../world.ts';
import { appIdOf, PER_USER_RANGE, userIdOf } from './user-handle.ts';

describe('multi-user: UIDs per user, providers per user', () => {
  it("user 10's app has uid 10 × 100000 + appId and does not find user 0's provider (Unknown authority)", async () => {
    const world = new World({ seed: 1 });
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: { Provider: new EchoProvider() },
    }));
    world.install(clientSpec('com.example.owner', ['com.example.p']));
    world.install({ ...clientSpec('com.example.work', ['com.example.p']), userId: 10 });
    const uid = world.pm.getPackageUid('com.example.work') ?? -1;
    expect(userIdOf(uid)).toBe(10);
    expect(uid).toBe(10 * PER_USER_RANGE + appIdOf(uid));
    expect(userIdOf(world.pm.getPackageUid('com.example.owner') ?? -1)).toBe(0);
    const results: Record<string, string> = {};
    for (const pkg of ['com.example.owner', 'com.example.work'])
      world.spawnIn(pkg, 'call', async (ctx) => {
        try {
          results[pkg] = (await ctx.contentResolver.call('p', 'm', null, null)) ? 'ok' : 'null';
        } catch (e) {
          results[pkg] = (e as Error).message;
        }
      });
    await world.run();
    expect(results).toEqual({ 'com.example.owner': 'ok', 'com.example.work': 'Unknown authority p' });
  });
});
