/**
 * What a caller controls about its identity (AttributionSource), and lazy custom Parcelables —
 * issue 19 items 9 and 10 (FIDELITY.md).
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { BadParcelableException, SecurityException } from '../core/errors.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { World } from '../world.ts';
import { Bundle } from './bundle.ts';

const PROVIDER = 'com.example.p';
const CLIENT = 'com.example.c';

describe('AttributionSource: the UID is Binder’s, the package and tag are the caller’s', () => {
  it('a forged package reaches getCallingPackageUnchecked and the tag getCallingAttributionTag; getCallingPackage refuses it', async () => {
    const world = new World();
    const seen: Record<string, unknown> = {};
    world.install(appSpec(PROVIDER, { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider((self) => {
          seen.unchecked = self.getCallingPackageUnchecked();
          seen.tag = self.getCallingAttributionTag();
          try {
            seen.verified = self.getCallingPackage();
          } catch (error) {
            seen.verified = error instanceof SecurityException ? 'SecurityException' : String(error);
          }
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec(CLIENT, [PROVIDER]), () => ({}));
    world.install(appSpec('com.example.bank'), () => ({}));
    world.spawnIn(CLIENT, 'forge', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null, {
        packageName: 'com.example.bank',
        attributionTag: 'totally-the-bank',
      });
    });
    await world.run();
    expect(seen).toEqual({
      unchecked: 'com.example.bank',
      tag: 'totally-the-bank',
      verified: 'SecurityException',
    });
  });

  it('an in-process call sees our own package as the calling package (not null)', async () => {
    const world = new World();
    let calling: string | null = 'unset';
    world.install(appSpec(PROVIDER, { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider((self) => {
          calling = self.getCallingPackage();
          return new Bundle();
        }),
      },
    }));
    world.spawnIn(PROVIDER, 'self-call', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
    });
    await world.run();
    expect(calling).toBe(PROVIDER);
  });
});

describe('custom Parcelables are deserialized lazily, per key (BaseBundle, API 33+)', () => {
  it('an unknown class fails only the read of its own key; a process that has the class reads it', async () => {
    const world = new World();
    const seen: string[] = [];
    const provider = (classes: readonly string[]) => (_ctx: AppContext) => ({
      parcelableClasses: classes,
      providers: {
        Provider: new LambdaProvider((_self, _method, _arg, extras) => {
          seen.push(`other key: ${extras?.getString('plain')}`);
          try {
            seen.push(`parcelable: ${JSON.stringify(extras?.getParcelable('evil')?.fields)}`);
          } catch (error) {
            seen.push(
              error instanceof BadParcelableException ? `${error.name}: ${error.message}` : String(error),
            );
          }
          return new Bundle();
        }),
      },
    });
    world.install(appSpec(PROVIDER, { authority: 'p' }), provider([]));
    world.install(appSpec('com.example.q', { authority: 'q' }), provider(['com.evil.Payload']));
    world.install(clientSpec(CLIENT, [PROVIDER, 'com.example.q']), () => ({
      parcelableClasses: ['com.evil.Payload'],
    }));
    world.spawnIn(CLIENT, 'send', async (ctx) => {
      const extras = new Bundle();
      extras.putString('plain', 'readable');
      extras.putParcelable('evil', { className: 'com.evil.Payload', fields: { x: 1 } });
      await ctx.contentResolver.call('p', 'm', null, extras);
      await ctx.contentResolver.call('q', 'm', null, extras);
    });
    const report = await world.run();
    expect(report.crashes).toEqual([]);
    expect(seen).toEqual([
      'other key: readable',
      'BadParcelableException: ClassNotFoundException when unmarshalling: com.evil.Payload',
      'other key: readable',
      'parcelable: {"x":1}',
    ]);
  });
});
