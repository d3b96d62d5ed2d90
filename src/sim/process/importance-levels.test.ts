/**
 * The importance levels between foreground and cached (importance.ts): VISIBLE_APP_ADJ for an
 * Activity still visible below a translucent one, PERCEPTIBLE_APP_ADJ for a foreground service,
 * SERVICE_ADJ for a started service (services.ts), and what they change for the freezer, lmkd and
 * background-activity-start checks.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { IllegalStateException } from '../core/errors.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { Activity } from '../ui/activity.ts';
import { Intent } from '../ui/intent.ts';
import { World } from '../world.ts';
import {
  CACHED_APP_MIN_ADJ,
  computeAdjs,
  FOREGROUND_APP_ADJ,
  PERCEPTIBLE_APP_ADJ,
  PREVIOUS_APP_ADJ,
  SERVICE_ADJ,
  VISIBLE_APP_ADJ,
} from './importance.ts';
import { ProcessRecord } from './process.ts';

const APP = 'com.example.app';
const HOST = 'com.example.host';
const OVERLAY = 'com.example.overlay';

/** Stays on screen for `ms`, then finishes. */
class Hold extends Activity {
  constructor(private readonly ms: number) {
    super();
  }
  override async onCreate(): Promise<void> {
    await this.context.sleep(this.ms);
    this.finish();
  }
}

/** Starts OVERLAY's Activity over itself, then stays until it returns. */
class Host extends Activity {
  override async onCreate(): Promise<void> {
    await this.context.startActivityForResult(Intent.explicit(OVERLAY, 'Overlay'));
    this.finish();
  }
}

function activityWorld(translucent: boolean): World {
  const world = new World();
  world.install(appSpec(APP, { manifest: { activities: [{ name: 'Second' }] } }), () => ({
    activities: { Second: () => new Hold(0) },
  }));
  world.install(appSpec(HOST, { manifest: { activities: [{ name: 'Host', exported: true }] } }), () => ({
    activities: { Host: () => new Host() },
  }));
  world.install(
    appSpec(OVERLAY, { manifest: { activities: [{ name: 'Overlay', exported: true, translucent }] } }),
    () => ({ activities: { Overlay: () => new Hold(5_000) } }),
  );
  return world;
}

describe('VISIBLE_APP_ADJ: an Activity below a translucent one (OomAdjuster "vis-activity")', () => {
  for (const translucent of [true, false]) {
    it(`a launched app covered by ${translucent ? 'a translucent' : 'an opaque'} Activity: adj, visible window, BAL`, async () => {
      const world = activityWorld(translucent);
      const seen: { adj?: number | undefined; window?: boolean } = {};
      world.spawnIn(APP, 'main', async (ctx) => {
        ctx.spawn('later', async () => {
          await ctx.sleep(1_000); // the overlay is on top now
          const proc = world.process(APP);
          seen.adj = world.importance().get(proc);
          seen.window = world.hasVisibleWindow(proc);
          await ctx.startActivityForResult(Intent.explicit(APP, 'Second'));
        });
        await ctx.startActivityForResult(Intent.explicit(OVERLAY, 'Overlay'));
      });
      const report = await world.run();
      expect(report.outcome.kind).toBe('completed');
      expect(seen).toEqual(
        translucent ? { adj: VISIBLE_APP_ADJ, window: true } : { adj: PREVIOUS_APP_ADJ, window: false },
      );
      // hasVisibleWindow lets a start through (BackgroundActivityStartController).
      const blocked = world.trace.ofKind('activity.start.blocked').map((e) => e.data.actor);
      const started = world.trace.events
        .filter((e) => e.kind === 'activity.start')
        .map((e) => e.data.activity);
      expect(blocked).toEqual(translucent ? [] : [APP]);
      expect(started).toEqual(translucent ? ['Overlay', 'Second'] : ['Overlay']);
    });

    it(`an Activity covered by ${translucent ? 'a translucent' : 'an opaque'} one: ${translucent ? 'visible, not frozen' : 'stopped, cached, frozen'}`, async () => {
      const world = activityWorld(translucent);
      const seen: Record<string, number | undefined> = {};
      world.spawnIn(APP, 'main', async (ctx) => {
        ctx.spawn('later', async () => {
          await ctx.sleep(1_000); // APP → HOST → OVERLAY on top
          for (const [proc, adj] of world.importance()) seen[proc.name] = adj;
          world.applyFault({ kind: 'freezeCached' });
          // The overlay finishes at 5 s: HOST is on top again and thawed (else: liveness failure).
        });
        await ctx.startActivityForResult(Intent.explicit(HOST, 'Host'));
      });
      const report = await world.run();
      expect(report.outcome.kind).toBe('completed');
      expect(seen).toEqual({
        [APP]: PREVIOUS_APP_ADJ,
        [HOST]: translucent ? VISIBLE_APP_ADJ : CACHED_APP_MIN_ADJ,
        [OVERLAY]: FOREGROUND_APP_ADJ,
      });
      const frozen = world.trace.ofKind('process.freeze').map((e) => e.data.actor);
      expect(frozen).toEqual(translucent ? [] : [HOST]);
      const thawed = world.trace.ofKind('process.thaw').map((e) => [e.data.actor, e.data.reason]);
      expect(thawed).toEqual(translucent ? [] : [[HOST, 'activity resumed']]);
    });
  }
});

/** Three provider apps declaring a service `Sync`; a call to `method` starts/stops it. */
function serviceWorld(targetSdk = 34): { world: World; outcomes: Record<string, string> } {
  const world = new World();
  const outcomes: Record<string, string> = {};
  for (const name of ['fg', 'bg', 'none']) {
    const pkg = `com.example.${name}`;
    world.install(
      appSpec(pkg, { authority: name, manifest: { targetSdk, services: [{ name: 'Sync' }] } }),
      (ctx: AppContext) => ({
        providers: {
          Provider: new LambdaProvider((_self, method) => {
            const reply = new Bundle();
            const run = (what: () => boolean) => {
              try {
                outcomes[`${name}:${method}`] = String(what());
              } catch (e) {
                outcomes[`${name}:${method}`] = e instanceof IllegalStateException ? e.message : String(e);
              }
            };
            if (method === 'fg') run(() => ctx.startForegroundService('Sync'));
            if (method === 'bg') run(() => ctx.startService('Sync'));
            if (method === 'undeclared') run(() => ctx.startService('Nope'));
            if (method === 'stop') run(() => ctx.stopService('Sync'));
            if (method === 'later') {
              // "accepted": the work goes on after the reply, when no client holds the process.
              ctx.spawn('worker', async () => {
                await ctx.sleep(1_000);
                run(() => ctx.startService('Sync'));
                await ctx.sleep(1_000);
                outcomes[`${name}:later-fg`] = String(ctx.startForegroundService('Sync'));
              });
            }
            return reply;
          }),
        },
      }),
    );
  }
  world.install(clientSpec(APP, ['com.example.fg', 'com.example.bg', 'com.example.none']), () => ({}));
  return { world, outcomes };
}

describe('services: PERCEPTIBLE_APP_ADJ ("fg-service") and SERVICE_ADJ ("started-services")', () => {
  it('a process with a service is not cached: the freezer skips it, lmkd kills it after cached ones', async () => {
    const { world, outcomes } = serviceWorld();
    const seen: Record<string, number | undefined>[] = [];
    world.spawnIn(APP, 'agent', async (ctx) => {
      // Started oldest first: fg, bg, none (lmkd's tie-break would pick fg first if all were cached).
      await ctx.contentResolver.call('fg', 'fg', null, null);
      await ctx.contentResolver.call('bg', 'bg', null, null);
      await ctx.contentResolver.call('none', 'undeclared', null, null);
      const snapshot = () => Object.fromEntries([...world.importance()].map(([p, a]) => [p.name, a]));
      seen.push(snapshot());
      world.applyFault({ kind: 'freezeCached' });
      world.applyFault({ kind: 'memoryPressure', kills: 2 });
      seen.push(snapshot());
      await ctx.contentResolver.call('fg', 'stop', null, null);
      await ctx.contentResolver.call('fg', 'stop', null, null);
      seen.push(snapshot());
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(outcomes).toEqual({
      'fg:fg': 'true',
      'bg:bg': 'true',
      'none:undeclared': 'false',
      'fg:stop': 'false',
    });
    expect(seen[0]).toEqual({
      [APP]: FOREGROUND_APP_ADJ,
      'com.example.fg': PERCEPTIBLE_APP_ADJ,
      'com.example.bg': SERVICE_ADJ,
      'com.example.none': CACHED_APP_MIN_ADJ,
    });
    expect(world.trace.ofKind('process.freeze').map((e) => e.data.actor)).toEqual(['com.example.none']);
    expect(world.trace.ofKind('process.kill').map((e) => e.data.actor)).toEqual([
      'com.example.none',
      'com.example.bg',
    ]);
    expect(seen[1]).toEqual({ [APP]: FOREGROUND_APP_ADJ, 'com.example.fg': PERCEPTIBLE_APP_ADJ });
    // The first stop ends the service (its outcome is overwritten by the second, which finds none).
    expect(world.trace.ofKind('service.stop').map((e) => e.data.stopped)).toEqual([true, false]);
    expect(seen[2]).toEqual({ [APP]: FOREGROUND_APP_ADJ, 'com.example.fg': CACHED_APP_MIN_ADJ });
  });

  it('Android 8 background limits: startService from a cached process throws, startForegroundService does not', async () => {
    for (const targetSdk of [34, 25]) {
      const { world, outcomes } = serviceWorld(targetSdk);
      world.spawnIn(APP, 'agent', async (ctx) => {
        await ctx.contentResolver.call('bg', 'later', null, null);
        await ctx.contentResolver.call('fg', 'bg', null, null); // raised by a foreground client: allowed
      });
      const report = await world.run();
      expect(report.outcome.kind).toBe('completed');
      expect(outcomes).toEqual({
        'fg:bg': 'true',
        'bg:later':
          targetSdk >= 26
            ? `Not allowed to start service Intent { cmp=com.example.bg/Sync }: app is in background uid ${world.process('com.example.bg').uid}`
            : 'true',
        'bg:later-fg': 'true',
      });
    }
  });
});

describe('computeAdjs: providers take the levels of their clients', () => {
  it('a provider is raised to a visible or perceptible client, never to a cached one', () => {
    const proc = (name: string, uid: number) => {
      const p = new ProcessRecord(name, uid);
      p.toStarting(uid);
      return p;
    };
    const [visible, perceptible, cached, p1, p2, p3] = ['v', 'f', 'c', 'p1', 'p2', 'p3'].map((n, i) =>
      proc(n, 10_000 + i),
    ) as [ProcessRecord, ProcessRecord, ProcessRecord, ProcessRecord, ProcessRecord, ProcessRecord];
    const clients = new Map([
      [p1, [visible]],
      [p2, [perceptible]],
      [p3, [cached]],
    ]);
    const adjs = computeAdjs([visible, perceptible, cached, p1, p2, p3], {
      screen: { top: new Set(), visible: new Set([visible]), launcherShows: 'covered' },
      userLaunched: new Set(),
      serviceOf: (p) => (p === perceptible ? 'foreground' : null),
      clientsOf: (p) => clients.get(p) ?? [],
    });
    expect([p1, p2, p3].map((p) => adjs.get(p))).toEqual([
      VISIBLE_APP_ADJ,
      PERCEPTIBLE_APP_ADJ,
      CACHED_APP_MIN_ADJ,
    ]);
  });
});
