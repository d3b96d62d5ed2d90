import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { appSpec, clientSpec, EchoProvider, LambdaProvider } from '../testing.ts';
import { World } from '../world.ts';
import { CACHED_APP_MIN_ADJ, FOREGROUND_APP_ADJ } from './importance.ts';

const CLIENT = 'com.example.agent';

/** An echo app com.example.<name> at authority <name> for each name, and the client that sees them. */
function echoProviders(world: World, names: readonly string[]): void {
  for (const name of names) {
    world.install(appSpec(`com.example.${name}`, { authority: name }), () => ({
      providers: { Provider: new EchoProvider() },
    }));
  }
  world.install(
    clientSpec(
      CLIENT,
      names.map((name) => `com.example.${name}`),
    ),
    () => ({}),
  );
}

describe('importance and the low-memory killer (OomAdjuster, lmkd)', () => {
  it('a provider takes its live clients’ importance; lmkd kills cached processes, oldest first, never the foreground', async () => {
    const world = new World();
    echoProviders(world, ['held', 'released', 'idle']);
    const adjs: Record<string, number | undefined> = {};
    world.spawn('driver', async () => {
      await world.startProcess('com.example.idle');
      world.spawnIn(CLIENT, 'agent', async (ctx) => {
        const held = await ctx.contentResolver.acquireUnstableContentProviderClient('held');
        await held?.call('m', null, null);
        await ctx.contentResolver.call('released', 'm', null, null);
        for (const [proc, adj] of world.importance()) adjs[proc.name] = adj;
        world.applyFault({ kind: 'memoryPressure', kills: 2 });
        await ctx.sleep(10);
        held?.close();
      });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(adjs).toEqual({
      'com.example.idle': CACHED_APP_MIN_ADJ,
      [CLIENT]: FOREGROUND_APP_ADJ,
      'com.example.held': FOREGROUND_APP_ADJ,
      'com.example.released': CACHED_APP_MIN_ADJ,
    });
    expect(world.trace.ofKind('process.kill').map((e) => [e.data.actor, e.data.cause])).toEqual([
      ['com.example.idle', `killed: low memory (lmkd, oom_score_adj ${CACHED_APP_MIN_ADJ})`],
      ['com.example.released', `killed: low memory (lmkd, oom_score_adj ${CACHED_APP_MIN_ADJ})`],
    ]);
    expect(world.process('com.example.held').isRunning).toBe(true);
    expect(world.process(CLIENT).isRunning).toBe(true);
  });
});

describe('the cached-app freezer (CachedAppOptimizer)', () => {
  it('a cached provider’s background worker stops while frozen and resumes when a call thaws it', async () => {
    const world = new World();
    const progress: { step: number; at: number }[] = [];
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => ({
      providers: {
        Provider: new LambdaProvider((_self, method) => {
          if (method === 'start') {
            // "accepted": the work goes on in the background after the reply.
            ctx.spawn('worker', async () => {
              for (let i = 1; i <= 5; i++) {
                await ctx.sleep(1_000);
                progress.push({ step: i, at: ctx.elapsedRealtime() });
              }
            });
          }
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec(CLIENT, ['com.example.p']), () => ({}));
    world.spawnIn(CLIENT, 'agent', async (ctx) => {
      await ctx.contentResolver.call('p', 'start', null, null);
      await ctx.sleep(2_500);
      world.applyFault({ kind: 'freezeCached' });
      await ctx.sleep(20_000);
      await ctx.contentResolver.call('p', 'poll', null, null);
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    const t0 = (progress[0]?.at ?? 0) - 1_000;
    const offsets = progress.map((p) => p.at - t0);
    // Two steps before the freeze; nothing for 20 s; the rest after the poll thawed it.
    expect(offsets.slice(0, 2)).toEqual([1_000, 2_000]);
    expect(offsets[2]).toBeGreaterThan(20_000);
    expect(progress).toHaveLength(5);
    expect(world.trace.ofKind('process.freeze').map((e) => e.data.actor)).toEqual(['com.example.p']);
    expect(world.trace.ofKind('process.thaw').map((e) => e.data.reason)).toEqual(['provider connection']);
  });

  it('a frozen app the user opens runs again: launching it thaws it (OomAdjuster updateAppFreezeStateLSP)', async () => {
    const world = new World();
    echoProviders(world, ['p']);
    const ran: string[] = [];
    world.spawnIn(CLIENT, 'agent', async (ctx) => {
      await ctx.contentResolver.call('p', 'echo', null, null); // starts the provider, then leaves it cached
      await ctx.sleep(1_000);
      world.applyFault({ kind: 'freezeCached' });
      await ctx.sleep(1_000);
      // The user opens the provider's app: a task of its own, in the frozen process.
      world.spawnIn('com.example.p', 'opened', async (own) => {
        await own.sleep(10);
        ran.push('opened');
      });
    });
    const report = await world.run();
    expect(world.trace.ofKind('process.freeze').map((e) => e.data.actor)).toEqual(['com.example.p']);
    expect(report.outcome.kind).toBe('completed');
    expect(ran).toEqual(['opened']);
    expect(world.trace.ofKind('process.thaw').map((e) => e.data.reason)).toEqual(['user launched']);
  });

  it('a process started for a waiting client is not cached while it starts: the freezer leaves it (getContentProviderImpl)', async () => {
    const world = new World();
    echoProviders(world, ['p']);
    world.applyFault({ kind: 'slowStart', process: 'com.example.p', ms: 2_000 });
    let reply: Bundle | null | undefined;
    const adjs: number[] = [];
    world.spawnIn(CLIENT, 'agent', async (ctx) => {
      reply = await ctx.contentResolver.call('p', 'm', null, null);
    });
    world.spawn('freezer', async () => {
      await world.scheduler.sleep(1_000);
      adjs.push(world.importance().get(world.process('com.example.p')) ?? -1);
      world.applyFault({ kind: 'freezeCached' });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(adjs).toEqual([FOREGROUND_APP_ADJ]);
    expect(world.trace.ofKind('process.freeze')).toEqual([]);
    expect(reply).toBeInstanceOf(Bundle);
  });

  it('a frozen process left with work is a liveness failure naming the freeze', async () => {
    const world = new World();
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => ({
      providers: {
        Provider: new LambdaProvider(() => {
          ctx.spawn('worker', async () => {
            await ctx.sleep(1_000);
          });
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec(CLIENT, ['com.example.p']), () => ({}));
    world.spawnIn(CLIENT, 'agent', async (ctx) => {
      await ctx.contentResolver.call('p', 'start', null, null);
      world.applyFault({ kind: 'freezeCached' });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('liveness');
    expect(report.outcome.kind === 'liveness' && report.outcome.blocked[0]?.on).toBe(
      'process com.example.p frozen',
    );
  });
});
