import { describe, expect, it } from 'vitest';
import { Bundle } from './binder/bundle.ts';
import { DeadObjectException, IllegalArgumentException, SecurityException } from './core/errors.ts';
import { appSpec, clientSpec, EchoProvider, LambdaProvider } from './testing.ts';
import { World } from './world.ts';
import { ECHO_AUTHORITY as AUTH, echoWorld, request } from './world-testing.ts';

describe('ContentResolver.call over simulated Binder', () => {
  it('round-trips a Bundle as a deep copy, with the caller UID seen at entry', async () => {
    const { world, echo } = echoWorld();
    const sent = request('hello', 'world');
    let reply: Bundle | null = null;
    world.spawnIn('com.example.client', 'main', async (ctx) => {
      reply = await ctx.contentResolver.call(AUTH, 'ping', null, sent);
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    const r = reply as unknown as Bundle;
    expect(r.getString('hello')).toBe('world');
    expect(r.getString('method')).toBe('ping');
    expect(r.getInt('caller_uid')).toBe(world.pm.getPackageUid('com.example.client'));
    expect(r).not.toBe(sent);
    expect(echo.instances).toHaveLength(1);
    expect(world.trace.ofKind('binder').map((e) => e.kind)).toEqual(['binder.call', 'binder.reply']);
  });

  it('Binder.getCallingUid() is the caller only before the handler first awaits (own UID after)', async () => {
    const world = new World();
    const seen: { before: number; after: number }[] = [];
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider(async (self) => {
          const before = self.context.binder.getCallingUid();
          await self.context.yield();
          seen.push({ before, after: self.context.binder.getCallingUid() });
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
    });
    await world.run();
    expect(seen).toEqual([
      { before: world.pm.getPackageUid('com.example.c'), after: world.pm.getPackageUid('com.example.p') },
    ]);
  });

  it('an authority the caller cannot see (no <queries>) is an unknown authority', async () => {
    const { world } = echoWorld();
    world.install(appSpec('com.example.blind'), () => ({}));
    let error: unknown;
    world.spawnIn('com.example.blind', 'main', async (ctx) => {
      try {
        await ctx.contentResolver.call(AUTH, 'ping', null, null);
      } catch (e) {
        error = e;
      }
    });
    await world.run();
    expect(error).toBeInstanceOf(IllegalArgumentException);
    expect((error as Error).message).toBe(`Unknown authority ${AUTH}`);
  });

  it('the acquisition gate accepts either the read or the write permission; call() itself checks nothing', async () => {
    const world = new World();
    world.install(
      appSpec('com.example.guarded', {
        authority: 'g',
        provider: { readPermission: 'com.example.READ', writePermission: 'com.example.WRITE' },
        manifest: {
          permissions: [
            { name: 'com.example.READ', protectionLevel: 'normal' },
            { name: 'com.example.WRITE', protectionLevel: 'signature' },
          ],
        },
      }),
      () => ({ providers: { Provider: new EchoProvider() } }),
    );
    world.install(
      appSpec('com.example.reader', {
        manifest: { usesPermissions: ['com.example.READ'], queries: { packages: ['com.example.guarded'] } },
      }),
    );
    world.install(clientSpec('com.example.nobody', ['com.example.guarded']));
    const results: Record<string, string> = {};
    for (const pkg of ['com.example.reader', 'com.example.nobody']) {
      world.spawnIn(pkg, 'main', async (ctx) => {
        try {
          // A "write" method passes too: the framework does no per-call check on call().
          const r = await ctx.contentResolver.call('g', 'delete_everything', null, null);
          results[pkg] = r ? 'ok' : 'null';
        } catch (e) {
          results[pkg] = e instanceof SecurityException ? 'SecurityException' : String(e);
        }
      });
    }
    await world.run();
    expect(results).toEqual({ 'com.example.reader': 'ok', 'com.example.nobody': 'SecurityException' });
  });

  it('Parcel-able exceptions reach the caller; others are swallowed ("Uncaught remote exception")', async () => {
    const world = new World();
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider((_self, method) => {
          if (method === 'secure') throw new SecurityException('caller not allowed');
          throw new TypeError('internal bug with /data/data/com.example.p/secret path');
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    const seen: unknown[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      try {
        await ctx.contentResolver.call('p', 'secure', null, null);
      } catch (e) {
        seen.push(e);
      }
      seen.push(await ctx.contentResolver.call('p', 'buggy', null, null));
    });
    await world.run();
    expect(seen[0]).toBeInstanceOf(SecurityException);
    expect((seen[0] as Error).message).toBe('caller not allowed');
    expect(seen[1]).toBeInstanceOf(Bundle);
    expect((seen[1] as Bundle).isEmpty()).toBe(true);
    const logs = world.trace.ofKind('log').map((e) => e.data.message);
    expect(logs.some((m) => typeof m === 'string' && m.startsWith('*** Uncaught remote exception!'))).toBe(
      true,
    );
  });

  it('in-process calls are direct: same Bundle object and our own UID', async () => {
    const world = new World();
    let got: Bundle | null = null;
    let uid = -1;
    world.install(appSpec('com.example.self', { authority: 's' }), () => ({
      providers: {
        Provider: new LambdaProvider((self, _m, _a, extras) => {
          got = extras;
          uid = self.context.binder.getCallingUid();
          return extras;
        }),
      },
    }));
    const sent = request('k', 'v');
    world.spawnIn('com.example.self', 'main', async (ctx) => {
      await ctx.contentResolver.call('s', 'm', null, sent);
    });
    await world.run();
    expect(got).toBe(sent);
    expect(uid).toBe(world.pm.getPackageUid('com.example.self'));
  });
});

describe('Provider death: stable ContentResolver.call vs unstable ContentProviderClient', () => {
  function slowWorld() {
    const world = new World();
    const starts: number[] = [];
    world.install(appSpec('com.example.slow', { authority: 'slow' }), (ctx) => {
      starts.push(ctx.pid);
      return {
        providers: {
          Provider: new LambdaProvider(async (self) => {
            await self.context.sleep(1000);
            return new Bundle();
          }),
        },
      };
    });
    world.install(clientSpec('com.example.c', ['com.example.slow']), () => ({}));
    world.spawn('killer', async () => {
      await world.scheduler.sleep(500);
      world.killProcess('com.example.slow', { kind: 'killed', reason: 'test' });
    });
    return { world, starts };
  }

  it('ContentResolver.call holds a stable reference: the caller gets null first, then AMS kills it (removeDyingProviderLocked)', async () => {
    const { world } = slowWorld();
    const log: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      log.push(String(await ctx.contentResolver.call('slow', 'm', null, null)));
      // The "journal unavailable, re-send" window: it runs until the kill lands.
      await ctx.sleep(1);
      log.push('after the kill');
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(log).toEqual(['null']);
    const client = world.process('com.example.c');
    expect(client.state.kind).toBe('dead');
    expect(client.state.kind === 'dead' && client.state.cause.kind).toBe('dependency');
  });

  it('an unstable client gets DeadObjectException and survives; re-acquiring restarts the provider', async () => {
    const { world, starts } = slowWorld();
    const log: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('slow');
      try {
        await client?.call('m', null, null);
      } catch (e) {
        log.push(e instanceof DeadObjectException ? 'DeadObjectException' : String(e));
      }
      try {
        await client?.call('m', null, null);
      } catch (e) {
        log.push(e instanceof DeadObjectException ? 'still dead' : String(e));
      }
      client?.close();
      const fresh = await ctx.contentResolver.acquireUnstableContentProviderClient('slow');
      log.push((await fresh?.call('m', null, null)) ? 'fresh ok' : 'fresh null');
    });
    await world.run();
    expect(log).toEqual(['DeadObjectException', 'still dead', 'fresh ok']);
    expect(world.process('com.example.c').isRunning).toBe(true);
    expect(starts).toHaveLength(2);
  });
});
