/**
 * `android:process` (process-table.ts; FIDELITY.md rows 10 and 35.8c): a provider declared with
 * `process=":cetp"` runs in a process of its own — own pid, the app's UID, the app's storage — and
 * its confirmation Activity in the app's main process. Killing one leaves the other. The one-process
 * model fails each case: there the provider and the Activity share a process, so killing the
 * provider's process cancels the confirmation (the control below shows it) and killing the app
 * restarts the provider.
 */
import { describe, expect, it } from 'vitest';
import { Bundle } from '../binder/bundle.ts';
import { processNameOf, validateManifest } from '../pm/manifest.ts';
import { appSpec, clientSpec, confirmReply, LambdaProvider, UnansweredConfirm } from '../testing.ts';
import type { ActivityResult } from '../ui/activity.ts';
import { World } from '../world.ts';

const P = 'com.example.p';
const CETP = `${P}:cetp`;
/** The sender's opt-in a target-34 launcher needs (setPendingIntentBackgroundActivityStartMode). */
const OPT_IN = { pendingIntentBackgroundActivityStartAllowed: true };

/** The provider app (its provider in `process`, if given) and a client that asks for a confirmation. */
function setup(process: string | undefined) {
  const world = new World({ seed: 3 });
  const spec = appSpec(P, {
    authority: 'p',
    ...(process !== undefined ? { provider: { process } } : {}),
    manifest: { activities: [{ name: 'Confirm' }], queries: { packages: ['com.example.c'] } },
  });
  world.install(spec, (ctx) => ({
    providers: {
      Provider: new LambdaProvider(async (_self, method) => {
        const reply = new Bundle();
        reply.putInt('pid', ctx.pid);
        if (method === 'put') await ctx.storage.transaction('put', (tx) => tx.put('t', 'k', 'v'));
        return method === 'confirm' ? confirmReply(ctx, P, reply) : reply;
      }),
    },
    activities: { Confirm: () => new UnansweredConfirm() },
  }));
  world.install(clientSpec('com.example.c', [P]));
  const seen: { pids: number[]; result: ActivityResult | null } = { pids: [], result: null };
  world.spawnIn('com.example.c', 'ask', async (ctx) => {
    const reply = await ctx.contentResolver.call('p', 'confirm', null, null);
    seen.pids.push(reply?.getInt('pid') ?? -1);
    const pi = reply?.getPendingIntent('pi');
    if (pi) seen.result = await ctx.startIntentSenderForResult(pi, null, 0, OPT_IN);
  });
  return { world, seen };
}

/** Kills `victim` once the confirmation shows, then calls the provider again. */
function killLater(world: World, victim: string, seen: { pids: number[] }, after: () => void): void {
  world.spawn('harness', async () => {
    await world.scheduler.sleep(2_000);
    world.killProcess(victim, { kind: 'killed', reason: 'test' });
    after();
    world.spawnIn('com.example.c', 'again', async (ctx) => {
      seen.pids.push((await ctx.contentResolver.call('p', 'again', null, null))?.getInt('pid') ?? -1);
    });
  });
}

describe('android:process: a provider in a process apart from its app', () => {
  it('runs in its own process (own pid, same UID); its Activity in the main process', async () => {
    const { world, seen } = setup(':cetp');
    const alive: boolean[] = [];
    killLater(world, CETP, seen, () => alive.push(world.process(P).isAlive, world.process(P, CETP).isAlive));
    await world.run();
    const main = world.process(P);
    const provider = world.process(P, CETP);
    expect(provider.uid).toBe(main.uid);
    expect(provider.packageName).toBe(P);
    expect(main.pid).not.toBe(seen.pids[0]);
    // Killing the provider's process leaves the confirmation up (no result) and the main process alive.
    expect(alive).toEqual([true, false]);
    expect(seen.result).toBeNull();
    // The next call restarts the provider's process alone: a new pid, the main process untouched.
    expect(seen.pids).toHaveLength(2);
    expect(seen.pids[1]).not.toBe(seen.pids[0]);
    expect(main.isAlive).toBe(true);
    expect(main.incarnation).toBe(1);
  });

  it("killing the app's main process leaves the provider's process serving", async () => {
    const { world, seen } = setup(':cetp');
    killLater(world, P, seen, () => {});
    await world.run();
    expect(seen.result?.resultCode).toBe(0); // RESULT_CANCELED: the Activity's process died
    expect(seen.pids).toHaveLength(2);
    expect(seen.pids[1]).toBe(seen.pids[0]); // same provider instance: not restarted
    expect(world.process(P, CETP).incarnation).toBe(1);
  });

  it('control, the one-process model: killing the provider kills the confirmation with it', async () => {
    const { world, seen } = setup(undefined);
    killLater(world, P, seen, () => {});
    await world.run();
    expect(seen.result?.resultCode).toBe(0);
    expect(seen.pids[1]).not.toBe(seen.pids[0]);
  });

  it("both processes share the package's storage (one data directory)", async () => {
    const world = new World({ seed: 4 });
    world.install(appSpec(P, { authority: 'p', provider: { process: ':cetp' } }), (ctx) => ({
      providers: {
        Provider: new LambdaProvider(async () => {
          await ctx.storage.transaction('put', (tx) => tx.put('t', 'k', `from ${ctx.pid}`));
          return null;
        }),
      },
    }));
    world.install(clientSpec('com.example.c', [P]));
    let read: unknown = null;
    world.spawnIn('com.example.c', 'put', async (ctx) => {
      await ctx.contentResolver.call('p', 'put', null, null);
      world.spawnIn(P, 'read', async (app) => {
        read = await app.storage.get('t', 'k');
      });
    });
    await world.run();
    expect(read).toBe(`from ${world.process(P, CETP).pid}`);
    expect(world.process(P).pid).not.toBe(world.process(P, CETP).pid);
  });

  it('":name" is private to the package; a full process name is taken as is', () => {
    expect(processNameOf(P, ':cetp')).toBe(CETP);
    expect(processNameOf(P, 'com.other.shared')).toBe('com.other.shared');
    expect(processNameOf(P, undefined)).toBe(P);
    const issues = (process: string) =>
      validateManifest({ packageName: P, providers: [{ name: 'X', authorities: ['x'], process }] }).map(
        (i) => `${i.code} ${i.path}`,
      );
    expect(['com.other.shared', ':cetp', ':a.b'].flatMap(issues)).toEqual([]);
    for (const bad of ['', ':', 'nodot', ':1x', 'a b.c'])
      expect(issues(bad)).toEqual(['process-name-invalid providers[0].process']);
  });

  // The old records named the package only: a reader could not tell a kill of p:cetp (the provider's
  // memory gone) from a kill of p (the provider untouched), nor which process served a call.
  it('records and process events name the process where it is not the package: providerProcess, package', async () => {
    const world = new World({ seed: 5, recordContentCalls: true });
    world.install(appSpec(P, { authority: 'p', provider: { process: ':cetp' } }), () => ({
      providers: { Provider: new LambdaProvider(() => null) },
    }));
    world.install(clientSpec('com.example.c', [P]));
    world.spawnIn('com.example.c', 'call', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
      world.killProcess(CETP, { kind: 'killed', reason: 'test' });
    });
    await world.run();
    const [call] = world.contentCalls ?? [];
    expect(call).toMatchObject({ provider: P, providerProcess: CETP });
    expect(call && 'callerProcess' in call).toBe(false); // the client runs in its package's process
    const processEvents = world.trace.events.filter((e) => e.kind.startsWith('process.'));
    expect(processEvents.map((e) => [e.kind, e.data.actor, e.data.package ?? '-'])).toEqual([
      ['process.start', 'com.example.c', '-'],
      ['process.ready', 'com.example.c', '-'],
      ['process.start', CETP, P],
      ['process.ready', CETP, P],
      ['process.kill', CETP, P],
    ]);
  });

  // The old model ran every Activity in the package's main process whatever it declared: the kill of
  // the main process cancelled the confirmation at once.
  it('an Activity with android:process runs there: the main process dies, the confirmation stays', async () => {
    const world = new World({ seed: 6 });
    const spec = appSpec(P, {
      authority: 'p',
      manifest: {
        activities: [{ name: 'Confirm', process: ':ui' }],
        queries: { packages: ['com.example.c'] },
      },
    });
    world.install(spec, (ctx) => ({
      providers: {
        Provider: new LambdaProvider(() => confirmReply(ctx, P)),
      },
      activities: { Confirm: () => new UnansweredConfirm() },
    }));
    world.install(clientSpec('com.example.c', [P]));
    const seen: { result: ActivityResult | null; states: string[] } = { result: null, states: [] };
    world.spawnIn('com.example.c', 'ask', async (ctx) => {
      const pi = (await ctx.contentResolver.call('p', 'confirm', null, null))?.getPendingIntent('pi');
      if (pi) seen.result = await ctx.startIntentSenderForResult(pi, null, 0, OPT_IN);
    });
    world.spawn('harness', async () => {
      await world.scheduler.sleep(2_000);
      const ui = world.process(P, `${P}:ui`);
      seen.states.push(`ui ${ui.isAlive} ${ui.uid === world.process(P).uid}`);
      world.killProcess(P, { kind: 'killed', reason: 'test' });
      await world.scheduler.sleep(1_000);
      seen.states.push(`after main kill: result ${seen.result?.resultCode ?? 'pending'}, ui ${ui.isAlive}`);
      world.killProcess(`${P}:ui`, { kind: 'killed', reason: 'test' });
    });
    await world.run();
    expect(seen.states).toEqual(['ui true true', 'after main kill: result pending, ui true']);
    expect(seen.result?.resultCode).toBe(0); // RESULT_CANCELED once its own process died
    expect(validateManifest({ packageName: P, activities: [{ name: 'A', process: 'nodot' }] })[0]?.path).toBe(
      'activities[0].process',
    );
  });
});
