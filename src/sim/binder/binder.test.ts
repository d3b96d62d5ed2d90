/**
 * Binder behaviours the fidelity audit (issue 19, FIDELITY.md) found modelled the wrong way: a
 * reply's destination is the calling process *instance*, not a record its restarted successor reuses;
 * a reply that cannot be written does not crash the provider; the exceptions ContentProviderNative
 * carries (DatabaseUtils.writeExceptionToParcel) reach the caller.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import {
  FileNotFoundException,
  OperationCanceledException,
  RuntimeException,
  SecurityException,
  SQLiteConstraintException,
  SQLiteException,
} from '../core/errors.ts';
import { MAX_BINDER_THREADS } from '../process/process.ts';
import { appSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { World } from '../world.ts';
import { Bundle } from './bundle.ts';

const PROVIDER = 'com.example.p';
const CLIENT = 'com.example.c';

/** A provider whose call takes 1 s and answers with a file descriptor (closed by the provider later). */
function slowFdWorld(): World {
  const world = new World();
  world.install(appSpec(PROVIDER, { authority: 'p' }), (ctx: AppContext) => ({
    providers: {
      Provider: new LambdaProvider(async () => {
        await ctx.sleep(1_000);
        ctx.writeFile('out.txt', new Uint8Array([1, 2, 3]));
        const pfd = ctx.openFile('out.txt', 'r');
        const reply = new Bundle();
        reply.putParcelFileDescriptor('fd', pfd);
        ctx.spawn('close-later', async () => {
          await ctx.yield();
          pfd.close();
        });
        return reply;
      }),
    },
  }));
  world.install(clientSpec(CLIENT, [PROVIDER]), () => ({}));
  return world;
}

describe('Binder: replies go to the calling process instance', () => {
  it('a reply meant for a killed caller is not delivered into its restarted successor (nor its fd)', async () => {
    const world = slowFdWorld();
    world.spawnIn(CLIENT, 'call', async (ctx) => {
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
      await client?.call('m', null, null);
    });
    world.spawn('restart-caller', async () => {
      await world.scheduler.sleep(500);
      world.killProcess(CLIENT, { kind: 'killed', reason: 'test' });
      await world.startProcess(CLIENT);
    });
    const report = await world.run();
    expect(world.process(CLIENT).incarnation).toBe(2);
    expect(world.trace.ofKind('binder.reply.dropped').map((e) => e.data.reason)).toEqual([
      'caller process died',
    ]);
    expect(world.trace.ofKind('fd.dup').filter((e) => e.data.to === CLIENT)).toEqual([]);
    expect(report.fdLeaks).toEqual([]);
  });

  it("a dead caller's stable reference does not get its restarted successor killed with the provider", async () => {
    const world = slowFdWorld();
    world.spawnIn(CLIENT, 'call', async (ctx) => {
      await ctx.contentResolver.call('p', 'm', null, null);
    });
    world.spawn('restart-caller-then-kill-provider', async () => {
      await world.scheduler.sleep(500);
      world.killProcess(CLIENT, { kind: 'killed', reason: 'test' });
      await world.startProcess(CLIENT);
      world.killProcess(PROVIDER, { kind: 'killed', reason: 'test' });
    });
    await world.run();
    expect(world.process(CLIENT).isRunning).toBe(true);
    expect(world.trace.ofKind('process.kill').map((e) => e.data.actor)).toEqual([CLIENT, PROVIDER]);
  });
});

/** A provider whose call() runs `handler`; a client calling it once, stable or not. */
async function callOnce(
  handler: (ctx: AppContext) => Bundle | null,
  stable: boolean,
): Promise<{ world: World; outcome: string; reply: Bundle | null }> {
  const world = new World();
  world.install(appSpec(PROVIDER, { authority: 'p' }), (ctx: AppContext) => ({
    providers: { Provider: new LambdaProvider(() => handler(ctx)) },
  }));
  world.install(clientSpec(CLIENT, [PROVIDER]), () => ({}));
  const result = { outcome: 'none', reply: null as Bundle | null };
  world.spawnIn(CLIENT, 'call', async (ctx) => {
    try {
      if (stable) result.reply = await ctx.contentResolver.call('p', 'm', null, null);
      else {
        const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
        result.reply = (await client?.call('m', null, null)) ?? null;
      }
      result.outcome = 'reply';
    } catch (error) {
      result.outcome = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  });
  await world.run();
  return { world, ...result };
}

describe('Binder: a reply that cannot be written', () => {
  it('a provider that closes its fd inside call() survives; the caller reads an empty Bundle', async () => {
    // reply.writeBundle dups the closed fd: EBADF → RuntimeException("Bad file descriptor") inside
    // ContentProviderNative.onTransact → not Parcel-able → "*** Uncaught remote exception!" in the
    // provider, UNKNOWN_TRANSACTION for the caller, whose proxy reads an empty reply.
    for (const stable of [true, false]) {
      const { world, outcome, reply } = await callOnce((ctx) => {
        ctx.writeFile('x', new Uint8Array([1]));
        const pfd = ctx.openFile('x', 'r');
        const b = new Bundle();
        b.putParcelFileDescriptor('fd', pfd);
        pfd.close();
        return b;
      }, stable);
      expect(outcome).toBe('reply');
      expect(reply?.isEmpty()).toBe(true);
      expect(world.process(PROVIDER).isRunning).toBe(true);
      expect(world.process(CLIENT).isRunning).toBe(true);
      expect(world.trace.ofKind('process.kill')).toEqual([]);
      const logged = world.trace.ofKind('log').map((e) => String(e.data.message));
      expect(
        logged.some((m) => m.includes('Uncaught remote exception') && m.includes('Bad file descriptor')),
      ).toBe(true);
    }
  });
});

describe('Binder: exceptions ContentProviderNative carries (DatabaseUtils.writeExceptionToParcel)', () => {
  const cases: { thrown: () => Error; seen: string }[] = [
    {
      thrown: () => new SQLiteConstraintException('UNIQUE constraint failed'),
      seen: 'SQLiteConstraintException: UNIQUE constraint failed',
    },
    { thrown: () => new SQLiteException('no such table: t'), seen: 'SQLiteException: no such table: t' },
    {
      thrown: () => new OperationCanceledException('cancelled'),
      seen: 'OperationCanceledException: cancelled',
    },
    // call() reads with readExceptionFromParcel, which has no case for code 1.
    {
      thrown: () => new FileNotFoundException('/data/x'),
      seen: 'RuntimeException: Unknown exception code: 1 msg /data/x',
    },
    // Parcel.writeException's own list still applies.
    { thrown: () => new SecurityException('no'), seen: 'SecurityException: no' },
    // Anything else: logged in the provider, an empty Bundle for the caller.
    { thrown: () => new RuntimeException('boom'), seen: 'reply' },
  ];
  for (const c of cases) {
    it(`${c.thrown().name} thrown by call() → the caller sees ${c.seen}`, async () => {
      for (const stable of [true, false]) {
        const { world, outcome } = await callOnce(() => {
          throw c.thrown();
        }, stable);
        expect(outcome).toBe(c.seen);
        expect(world.process(PROVIDER).isRunning).toBe(true);
      }
    });
  }
});

describe('Binder.getCallingPid()', () => {
  it('is the caller’s pid, and 0 when the caller died before its queued transaction was picked up', async () => {
    const world = new World();
    const pids: number[] = [];
    world.install(appSpec(PROVIDER, { authority: 'p' }), (ctx: AppContext) => ({
      providers: {
        Provider: new LambdaProvider(async (self) => {
          pids.push(self.context.binder.getCallingPid());
          await ctx.sleep(1_000);
          return new Bundle();
        }),
      },
    }));
    world.install(clientSpec(CLIENT, [PROVIDER]), () => ({}));
    let callerPid = -1;
    world.spawnIn(CLIENT, 'calls', async (ctx) => {
      callerPid = ctx.pid;
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('p');
      // Fill every binder thread, then one more that queues.
      for (let i = 0; i <= MAX_BINDER_THREADS; i++) {
        ctx.spawn(`call${i}`, async () => {
          await client?.call('m', null, null);
        });
      }
      await ctx.sleep(500);
      world.killProcess(CLIENT, { kind: 'killed', reason: 'test' });
    });
    await world.run();
    expect(pids).toHaveLength(MAX_BINDER_THREADS + 1);
    expect(pids.slice(0, MAX_BINDER_THREADS).every((p) => p === callerPid)).toBe(true);
    expect(pids[MAX_BINDER_THREADS]).toBe(0);
  });
});
