/**
 * Oneway Binder transactions, as the slice uses them: ContentResolver.notifyChange →
 * IContentObserver.onChange (a oneway method) from system_server. Every test here fails if onChange
 * is delivered the way a two-way call is (the notifier blocking, the caller's pid, an exception
 * reaching the notifier, one thread per transaction with no per-node order).
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { SecurityException } from '../core/errors.ts';
import { appSpec, clientSpec, EchoProvider } from '../testing.ts';
import { World } from '../world.ts';
import { observerMatches, uriSegments } from './content-observer.ts';

const PROVIDER = 'com.example.p';
const OBSERVER = 'com.example.o';
const URI = 'content://p/ops';

function observerWorld(): World {
  const world = new World();
  world.install(appSpec(PROVIDER, { authority: 'p' }), () => ({
    providers: { Provider: new EchoProvider() },
  }));
  world.install(clientSpec(OBSERVER, [PROVIDER]), () => ({}));
  return world;
}

/** Registers from the observer app, then lets `notify` run in the provider app. */
async function run(
  world: World,
  register: (ctx: AppContext) => void,
  notify: (ctx: AppContext) => Promise<void>,
): Promise<void> {
  world.spawnIn(OBSERVER, 'register', async (ctx) => register(ctx));
  world.spawnIn(PROVIDER, 'notify', async (ctx) => {
    await ctx.sleep(500);
    await notify(ctx);
  });
  await world.run();
}

describe('oneway: IContentObserver.onChange', () => {
  it('the notifier does not block: notifyChange returns before a slow onChange has run', async () => {
    const world = observerWorld();
    const events: string[] = [];
    await run(
      world,
      (ctx) =>
        ctx.contentResolver.registerContentObserver(URI, false, {
          onChange: async () => {
            events.push(`onChange start t=${ctx.elapsedRealtime()}`);
            await ctx.sleep(1_000);
            events.push(`onChange end t=${ctx.elapsedRealtime()}`);
          },
        }),
      async (ctx) => {
        ctx.contentResolver.notifyChange(URI);
        events.push(`notified t=${ctx.elapsedRealtime()}`);
      },
    );
    expect(events).toEqual(['notified t=600', 'onChange start t=600', 'onChange end t=1600']);
  });

  it('onChange sees getCallingPid() == 0 and the system UID (no t->from for oneway)', async () => {
    const world = observerWorld();
    const seen: number[][] = [];
    await run(
      world,
      (ctx) =>
        ctx.contentResolver.registerContentObserver(URI, false, {
          onChange: () => void seen.push([ctx.binder.getCallingPid(), ctx.binder.getCallingUid()]),
        }),
      async (ctx) => ctx.contentResolver.notifyChange(URI),
    );
    expect(seen).toEqual([[0, 1000]]);
    const sends = world.trace.ofKind('binder.oneway');
    expect(sends).toHaveLength(1);
    expect(sends[0]?.data).toMatchObject({ from: 'system', to: OBSERVER, method: 'onChange' });
  });

  it('one observer (one binder node) gets its notifications one at a time, in order; two observers run in parallel', async () => {
    const world = observerWorld();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const slowObserver = (ctx: AppContext, name: string) => ({
      onChange: async (_self: boolean, uri: string) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        log.push(`${name} ${uri} t=${ctx.elapsedRealtime()}`);
        // Later notifications are shorter: without per-node order they would overtake.
        await ctx.sleep(uri.endsWith('/1') ? 300 : uri.endsWith('/2') ? 200 : 100);
        running--;
      },
    });
    await run(
      world,
      (ctx) => {
        ctx.contentResolver.registerContentObserver(URI, true, slowObserver(ctx, 'a'));
        ctx.contentResolver.registerContentObserver('content://p/other', false, slowObserver(ctx, 'b'));
      },
      async (ctx) => {
        for (const n of [1, 2, 3]) ctx.contentResolver.notifyChange(`${URI}/${n}`);
        ctx.contentResolver.notifyChange('content://p/other');
      },
    );
    expect(log).toEqual([
      'a content://p/ops/1 t=600',
      'b content://p/other t=600',
      'a content://p/ops/2 t=900',
      'a content://p/ops/3 t=1100',
    ]);
    expect(maxRunning).toBe(2);
  });

  it("an exception in onChange never reaches the notifier; the observer's process survives and logs it", async () => {
    const world = observerWorld();
    let notifierDone = false;
    let second = 0;
    await run(
      world,
      (ctx) =>
        ctx.contentResolver.registerContentObserver(URI, false, {
          onChange: () => {
            second++;
            if (second === 1) throw new SecurityException('observer bug');
          },
        }),
      async (ctx) => {
        ctx.contentResolver.notifyChange(URI);
        ctx.contentResolver.notifyChange(URI);
        notifierDone = true;
      },
    );
    expect(notifierDone).toBe(true);
    expect(second).toBe(2);
    expect(world.process(OBSERVER).isRunning).toBe(true);
    const logs = world.trace.ofKind('log').map((e) => String(e.data.message));
    expect(
      logs.some((m) => m.startsWith('Caught a RuntimeException from the binder stub implementation.')),
    ).toBe(true);
    expect(world.trace.ofKind('binder.oneway.exception')).toHaveLength(1);
  });

  it('a dead observer is dropped: no onChange reaches its restarted successor, and the notifier is not hurt', async () => {
    const world = observerWorld();
    let calls = 0;
    let notified = 0;
    world.spawnIn(OBSERVER, 'register', async (ctx) =>
      ctx.contentResolver.registerContentObserver(URI, false, { onChange: () => void calls++ }),
    );
    world.spawn('kill-and-restart', async () => {
      await world.scheduler.sleep(500);
      world.killProcess(OBSERVER, { kind: 'killed', reason: 'test' });
      await world.startProcess(OBSERVER);
    });
    world.spawnIn(PROVIDER, 'notify', async (ctx) => {
      await ctx.sleep(2_000);
      ctx.contentResolver.notifyChange(URI);
      ctx.contentResolver.notifyChange(URI);
      notified = 2;
    });
    await world.run();
    expect(notified).toBe(2);
    expect(calls).toBe(0);
    // The first send finds the instance dead and removes it; the second finds nobody.
    expect(world.trace.ofKind('binder.dead')).toHaveLength(1);
  });

  it('queued notifications die with the observer process', async () => {
    const world = observerWorld();
    const seen: string[] = [];
    await run(
      world,
      (ctx) =>
        ctx.contentResolver.registerContentObserver(URI, true, {
          onChange: async (_self, uri) => {
            seen.push(uri);
            await ctx.sleep(100);
          },
        }),
      async (ctx) => {
        for (const n of [1, 2, 3]) ctx.contentResolver.notifyChange(`${URI}/${n}`);
        await ctx.sleep(150);
        world.killProcess(OBSERVER, { kind: 'killed', reason: 'test' });
      },
    );
    expect(seen).toEqual([`${URI}/1`, `${URI}/2`]);
  });

  it('a oneway call to a frozen process does not thaw it: onChange waits until the process is unfrozen', async () => {
    const world = new World();
    world.install(appSpec(PROVIDER, { authority: 'p' }), () => ({
      providers: { Provider: new EchoProvider() },
    }));
    const seen: number[] = [];
    // Registered at start-up by a process nobody launched: a cached process.
    world.install(clientSpec(OBSERVER, [PROVIDER]), (ctx: AppContext) => {
      ctx.contentResolver.registerContentObserver(URI, false, {
        onChange: () => void seen.push(ctx.elapsedRealtime()),
      });
      return {};
    });
    let frozenAtSend = false;
    world.spawn('start-observer', async () => void (await world.startProcess(OBSERVER)));
    world.spawnIn(PROVIDER, 'notify', async (ctx) => {
      await ctx.sleep(500);
      world.applyFault({ kind: 'freezeCached' });
      frozenAtSend = world.scheduler.isFrozen(OBSERVER);
      ctx.contentResolver.notifyChange(URI);
      await ctx.sleep(1_000);
      expect(seen).toEqual([]);
      expect(world.scheduler.isFrozen(OBSERVER)).toBe(true);
      world.thaw(world.process(OBSERVER), 'test: importance rose');
    });
    await world.run();
    expect(frozenAtSend).toBe(true);
    expect(seen).toEqual([1_600]);
    const logs = world.trace.ofKind('log').map((e) => String(e.data.message));
    expect(logs).toContain('Sending oneway calls to frozen process.');
  });

  it('registering for an authority the caller cannot resolve throws SecurityException', async () => {
    const world = observerWorld();
    let error: unknown = null;
    world.spawnIn(OBSERVER, 'register', async (ctx) => {
      try {
        ctx.contentResolver.registerContentObserver('content://nobody/x', true, { onChange: () => {} });
      } catch (e) {
        error = e;
      }
    });
    await world.run();
    expect(error).toBeInstanceOf(SecurityException);
  });

  it('URI matching follows ContentService.ObserverNode', () => {
    const seg = (u: string) => uriSegments(u) ?? [];
    expect(seg('content://p/a/b')).toEqual(['p', 'a', 'b']);
    expect(uriSegments('file:///x')).toBeNull();
    // same node: always; a descendant's change: only with notifyForDescendants; an ancestor's: always
    expect(observerMatches(seg('content://p/a'), false, seg('content://p/a'))).toBe(true);
    expect(observerMatches(seg('content://p/a'), false, seg('content://p/a/1'))).toBe(false);
    expect(observerMatches(seg('content://p/a'), true, seg('content://p/a/1'))).toBe(true);
    expect(observerMatches(seg('content://p/a/1'), false, seg('content://p/a'))).toBe(true);
    expect(observerMatches(seg('content://p/a'), true, seg('content://p/b'))).toBe(false);
    expect(observerMatches(seg('content://p/a'), true, seg('content://q/a'))).toBe(false);
  });
});
