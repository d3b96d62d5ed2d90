import { describe, expect, it } from 'vitest';
import type { AppContext } from './app/context.ts';
import { Bundle } from './binder/bundle.ts';
import { IllegalArgumentException, TransactionTooLargeException } from './core/errors.ts';
import { MAX_BINDER_THREADS } from './process/process.ts';
import { appSpec, clientSpec, installSlowProviderAndClient, LambdaProvider } from './testing.ts';
import { World } from './world.ts';
import { ECHO_AUTHORITY as AUTH, concurrentCallOutcomes, echoWorld, request } from './world-testing.ts';

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
    installSlowProviderAndClient(world);
    const outcomes = await concurrentCallOutcomes(world, 4, 150_000);
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
