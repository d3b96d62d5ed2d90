import { describe, expect, it } from 'vitest';
import { Bundle } from './bundle.ts';
import type { AppContext } from './context.ts';
import {
  DeadObjectException,
  IllegalArgumentException,
  SecurityException,
  TransactionTooLargeException,
} from './errors.ts';
import { MAX_BINDER_THREADS } from './process.ts';
import { appSpec, clientSpec, EchoProvider, LambdaProvider } from './testing.ts';
import { World, type WorldOptions } from './world.ts';

const AUTH = 'com.example.echo.tools';

function echoWorld(options: WorldOptions = {}) {
  const world = new World(options);
  const echo = { instances: [] as EchoProvider[] };
  world.install(appSpec('com.example.echo', { authority: AUTH }), () => {
    const p = new EchoProvider();
    echo.instances.push(p);
    return { providers: { Provider: p } };
  });
  world.install(clientSpec('com.example.client', ['com.example.echo']), () => ({}));
  return { world, echo };
}

function request(key: string, value: string): Bundle {
  const b = new Bundle();
  b.putString(key, value);
  return b;
}

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

  it('ContentResolver.call holds a stable reference: the provider dying kills the caller too', async () => {
    const { world } = slowWorld();
    const log: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      log.push(String(await ctx.contentResolver.call('slow', 'm', null, null)));
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(log).toEqual([]);
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

describe('Binder limits', () => {
  it(`serves at most ${MAX_BINDER_THREADS} calls at once per process; the rest queue`, async () => {
    const world = new World();
    let active = 0;
    let peak = 0;
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider(async (self) => {
          active++;
          peak = Math.max(peak, active);
          await self.context.sleep(100);
          active--;
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    let done = 0;
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      for (let i = 0; i < 40; i++) {
        ctx.spawn(`caller-${i}`, async () => {
          await ctx.contentResolver.call('p', 'm', null, null);
          done++;
        });
      }
    });
    await world.run();
    expect(done).toBe(40);
    expect(peak).toBe(MAX_BINDER_THREADS);
  });

  it('a failing request over 200 KB is TransactionTooLargeException; a small one is DeadObjectException', async () => {
    const world = new World();
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider((_self, method) => {
          const b = new Bundle();
          // An oversized reply to a small request.
          if (method === 'big-reply') b.putString('data', 'x'.repeat(600_000));
          return b;
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    const seen: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
      for (const [method, size] of [
        ['big-request', 600_000],
        ['big-reply', 10],
      ] as const) {
        try {
          await client?.call(method, null, request('data', 'y'.repeat(size)));
          seen.push(`${method}: ok`);
        } catch (e) {
          seen.push(`${method}: ${(e as Error).name}`);
        }
      }
      // The stable path turns every RemoteException into null.
      seen.push(`stable: ${await ctx.contentResolver.call('p', 'big-reply', null, null)}`);
    });
    await world.run();
    expect(seen).toEqual([
      'big-request: TransactionTooLargeException',
      'big-reply: DeadObjectException',
      'stable: null',
    ]);
    expect(new TransactionTooLargeException()).toBeInstanceOf(Error);
  });

  it('the 1 MiB buffer is shared: several moderate concurrent requests can fail where one succeeds', async () => {
    const world = new World();
    world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
      providers: {
        Provider: new LambdaProvider(async (self) => {
          await self.context.sleep(10);
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    const outcomes: string[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      for (let i = 0; i < 4; i++) {
        ctx.spawn(`c${i}`, async () => {
          const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
          try {
            await client?.call('m', null, request('data', 'z'.repeat(150_000)));
            outcomes.push('ok');
          } catch (e) {
            outcomes.push((e as Error).name);
          }
        });
      }
    });
    await world.run();
    expect(outcomes.filter((o) => o === 'ok').length).toBe(3);
    expect(outcomes.filter((o) => o === 'TransactionTooLargeException').length).toBe(1);
  });
});

describe('Processes', () => {
  it('a restart builds a fresh instance; provider onCreate runs before Application.onCreate', async () => {
    const world = new World();
    const order: string[] = [];
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => {
      let memory = 0;
      return {
        providers: {
          Provider: new LambdaProvider(
            () => {
              memory++;
              const b = new Bundle();
              b.putInt('memory', memory);
              return b;
            },
            () => {
              order.push(`provider.onCreate pid=${ctx.pid}`);
            },
          ),
        },
        onCreate: () => {
          order.push(`Application.onCreate pid=${ctx.pid}`);
        },
      };
    });
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    const memories: number[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
      memories.push((await client?.call('m', null, null))?.getInt('memory') ?? -1);
      memories.push((await client?.call('m', null, null))?.getInt('memory') ?? -1);
      world.killProcess('com.example.p', { kind: 'killed', reason: 'test' });
      const again = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
      memories.push((await again?.call('m', null, null))?.getInt('memory') ?? -1);
    });
    await world.run();
    expect(memories).toEqual([1, 2, 1]);
    expect(order.map((o) => o.split(' ')[0])).toEqual([
      'provider.onCreate',
      'Application.onCreate',
      'provider.onCreate',
      'Application.onCreate',
    ]);
  });

  it('an uncaught exception on an app thread crashes its process', async () => {
    const world = new World();
    world.install(appSpec('com.example.app'), () => ({}));
    world.spawnIn('com.example.app', 'worker', async () => {
      throw new Error('boom');
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(report.crashes).toEqual([{ task: 'com.example.app:worker', error: 'Error: boom' }]);
    const state = world.process('com.example.app').state;
    expect(state.kind === 'dead' && state.cause.kind).toBe('crash');
  });

  it('a task whose process dies while starting never runs; the launch failure is traced, not a harness error', async () => {
    // Killed 50 ms into its 100 ms start (zygote fork + bind take virtual time).
    const world = new World({ faults: [{ at: 2, fault: { kind: 'kill', process: 'com.example.slow' } }] });
    world.install(appSpec('com.example.slow', { authority: 'slow' }), () => ({
      providers: { Provider: new LambdaProvider(() => new Bundle()) },
    }));
    let ran = false;
    world.spawnIn('com.example.slow', 'main', async () => {
      ran = true;
    });
    const report = await world.run();
    expect(ran).toBe(false);
    expect(report.outcome.kind).toBe('completed');
    expect(report.crashes).toEqual([]);
    expect(world.trace.ofKind('launch.failed').map((e) => e.data)).toEqual([
      { actor: 'com.example.slow', task: 'main' },
    ]);
    expect(() => world.spawnIn('com.example.unknown', 'main', async () => {})).toThrow(/no app registered/);
  });

  it('a kill between the publish and a woken starter is a failed start, not a harness crash (found by the consumer property with kill and reboot faults)', async () => {
    const world = new World();
    world.install(appSpec('com.example.app'), () => ({}));
    world.spawn('killer', async () => {
      await world.startProcess('com.example.app');
      world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
    });
    let ran = false;
    world.spawnIn('com.example.app', 'main', async () => {
      ran = true;
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(ran).toBe(false);
    expect(world.trace.ofKind('launch.failed')).toHaveLength(1);
  });

  it('a process start takes virtual time before the first call is served', async () => {
    const { world } = echoWorld({ processStartMs: 250 });
    let servedAt = -1;
    world.spawnIn('com.example.client', 'main', async (ctx) => {
      const t0 = ctx.elapsedRealtime();
      await ctx.contentResolver.call(AUTH, 'ping', null, null);
      servedAt = ctx.elapsedRealtime() - t0;
    });
    await world.run();
    expect(servedAt).toBe(250);
  });

  it('a provider that does not publish within 10 s (slowStart fault) is killed and its authority fails to acquire', async () => {
    const world = new World({
      faults: [{ at: 0, fault: { kind: 'slowStart', process: 'com.example.stuck', ms: 60_000 } }],
    });
    world.install(appSpec('com.example.stuck', { authority: 'stuck' }), () => ({
      providers: { Provider: new LambdaProvider(() => new Bundle()) },
    }));
    world.install(clientSpec('com.example.c', ['com.example.stuck']), () => ({}));
    let error: unknown;
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      try {
        await ctx.contentResolver.call('stuck', 'm', null, null);
      } catch (e) {
        error = e;
      }
    });
    await world.run();
    expect(error).toBeInstanceOf(IllegalArgumentException);
    const state = world.process('com.example.stuck').state;
    expect(state.kind === 'dead' && state.cause.kind).toBe('publish-timeout');
  });

  it('publishes providers before Application.onCreate and never awaits an async onCreate (the init race)', async () => {
    // ActivityThread.handleBindApplication: installContentProviders, then Application.onCreate; a
    // provider whose onCreate awaits its storage is already callable while that await is pending.
    const world = new World();
    const seen: string[] = [];
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => {
      let ready = false;
      return {
        providers: {
          Provider: new LambdaProvider(
            () => {
              seen.push(ready ? 'call: initialised' : 'call: still initialising');
              return new Bundle();
            },
            async () => {
              await ctx.sleep(1_000);
              ready = true;
            },
          ),
        },
        onCreate: async () => {
          seen.push('Application.onCreate');
        },
      };
    });
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    world.spawnIn('com.example.c', 'main', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(seen).toEqual(['Application.onCreate', 'call: still initialising']);
  });

  it('some schedule serves a call before Application.onCreate has run', async () => {
    const orders = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const world = new World({ seed, strategy: { kind: 'random' } });
      const seen: string[] = [];
      world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
        providers: {
          Provider: new LambdaProvider(() => {
            seen.push('call');
            return new Bundle();
          }),
        },
        onCreate: () => {
          seen.push('Application.onCreate');
        },
      }));
      world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
      world.spawnIn('com.example.c', 'main', async (ctx) => {
        await ctx.contentResolver.call('p', 'm', null, null);
      });
      await world.run();
      orders.add(seen.join(' < '));
    }
    expect(orders).toContain('call < Application.onCreate');
  });
});
