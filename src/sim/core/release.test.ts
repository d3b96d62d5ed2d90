import { describe, expect, it } from 'vitest';
import { Bundle } from '../binder/bundle.ts';
import { appSpec, clientSpec, installSlowProviderAndClient, LambdaProvider } from '../testing.ts';
import { World } from '../world.ts';
import { concurrentCallOutcomes } from '../world-testing.ts';
import { ANDROID_RELEASES, DEFAULT_ANDROID, isAndroidRelease, releaseProfile } from './release.ts';

describe('Android release profiles (release.ts)', () => {
  it('the receive buffer is 1 MiB − 2 pages: 1,040,384 bytes with 4 KiB pages (14, 15), 1,015,808 with 16 KiB (16)', () => {
    expect(DEFAULT_ANDROID).toBe(14);
    expect(ANDROID_RELEASES.map((r) => releaseProfile(r).binderBufferBytes)).toEqual([
      1_040_384, 1_040_384, 1_015_808,
    ]);
    expect(releaseProfile(16).asyncBufferBytes).toBe(507_904);
    expect(releaseProfile()).toBe(releaseProfile(14));
    expect([13, 17, '15', null].some(isAndroidRelease)).toBe(false);
  });

  it('a request that fits a 4 KiB-page device fails on a 16 KiB-page one (the buffer is 24 KiB smaller)', async () => {
    const outcome = async (android: 14 | 16) => {
      const world = new World({ android });
      installSlowProviderAndClient(world);
      // Two concurrent requests of 2 × ~510 KB (strings are UTF-16): 1,030,000-odd bytes in all.
      return (await concurrentCallOutcomes(world, 2, 257_500)).sort();
    };
    expect(await outcome(14)).toEqual(['ok', 'ok']);
    expect(await outcome(16)).toEqual(['TransactionTooLargeException', 'ok']);
  });

  it('a two-way call into a frozen process: thawed and served on 14, fails (BR_FROZEN_REPLY → DeadObjectException) on 15 and 16', async () => {
    const outcome = async (android: 14 | 15 | 16) => {
      const world = new World({ android });
      world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
        providers: { Provider: new LambdaProvider(() => new Bundle()) },
      }));
      world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
      const seen: string[] = [];
      world.spawnIn('com.example.c', 'main', async (ctx) => {
        const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
        // Frozen under a held reference (the freezer's pass on a provider whose client is cached
        // too, before the client's own debounce ends).
        world.scheduler.freezeOwner('com.example.p');
        for (let i = 0; i < 2; i++) {
          try {
            await client?.call('m', null, null);
            seen.push('ok');
          } catch (e) {
            seen.push((e as Error).name);
          }
        }
      });
      await world.run();
      return { seen, frozen: world.scheduler.isFrozen('com.example.p') };
    };
    expect(await outcome(14)).toEqual({ seen: ['ok', 'ok'], frozen: false });
    for (const android of [15, 16] as const)
      expect(await outcome(android)).toEqual({
        seen: ['DeadObjectException', 'DeadObjectException'],
        frozen: true,
      });
  });
});
