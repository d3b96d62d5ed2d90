/**
 * A second Android user (user-handle.ts; FIDELITY.md row 35.8c): an app installed for user 10 runs
 * under uid 10 × 100000 + appId, and a provider is resolved in the caller's own user — user 0's
 * provider is an unknown authority to user 10. The old model (one user) fails both: the user-10 app
 * got an ordinary 10xxx UID and reached the provider.
 */
import { describe, expect, it } from 'vitest';
import { Bundle } from '../binder/bundle.ts';
import { appSpec, clientSpec, EchoProvider, LambdaProvider } from '../testing.ts';
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

  it('the same package in users 0 and 10: two UIDs, two processes, two data directories; each user reaches its own', async () => {
    const world = new World({ seed: 2 });
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx) => ({
      providers: {
        Provider: new LambdaProvider(async () => {
          const n = (((await ctx.storage.get('t', 'n')) as number | undefined) ?? 0) + 1;
          await ctx.storage.transaction('count', (tx) => tx.put('t', 'n', n));
          const reply = new Bundle();
          reply.putInt('n', n);
          reply.putInt('uid', ctx.uid);
          reply.putInt('seen', ctx.binder.getCallingUid());
          return reply;
        }),
      },
    }));
    const uid10 = world.pm.installExistingPackageAsUser('com.example.p', 10);
    const uid0 = world.pm.getPackageUid('com.example.p') ?? -1;
    expect(uid10).toBe(10 * PER_USER_RANGE + appIdOf(uid0));
    expect(world.pm.getPackageUidAsUser('com.example.p', 10)).toBe(uid10);
    world.install(clientSpec('com.example.owner', ['com.example.p']));
    world.install({ ...clientSpec('com.example.work', ['com.example.p']), userId: 10 });
    const replies: Record<string, string[]> = { 'com.example.owner': [], 'com.example.work': [] };
    const call = (pkg: string, calls: number) =>
      world.spawnIn(pkg, 'call', async (ctx) => {
        for (let i = 0; i < calls; i++) {
          const r = await ctx.contentResolver.call('p', 'm', null, null);
          replies[pkg]?.push(
            `n=${r?.getInt('n')} uid=${r?.getInt('uid')} caller=${userIdOf(r?.getInt('seen') ?? -1)}`,
          );
        }
      });
    call('com.example.owner', 2);
    // User 10 calls once user 0's calls are done: one shared store would answer n=3.
    world.spawn('later', async () => {
      await world.scheduler.sleep(5_000);
      call('com.example.work', 1);
    });
    await world.run();
    // Per-user data: user 10's provider counts from 1 in its own store, under its own UID.
    expect(replies).toEqual({
      'com.example.owner': [`n=1 uid=${uid0} caller=0`, `n=2 uid=${uid0} caller=0`],
      'com.example.work': [`n=1 uid=${uid10} caller=10`],
    });
    const user0 = world.process('com.example.p');
    const user10 = world.process('com.example.p', 'com.example.p', uid10);
    expect(user10.name).toBe('com.example.p@u10');
    expect([user0.isAlive, user10.isAlive, user0.pid !== user10.pid]).toEqual([true, true, true]);
  });
});
