/**
 * SQLite WAL with synchronous=NORMAL as a storage class an app chooses (issue 35 item 8; FIDELITY.md
 * row 35.8b): a commit survives a process kill and a clean reboot, a power loss takes back every commit
 * since the last checkpoint — and the ground truth with it. FULL (the default) loses nothing.
 * The old model (every store FULL) fails the first test: the NORMAL commit survived the power loss.
 */
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import type { Fault } from '../core/faults.ts';
import { appSpec } from '../testing.ts';
import { World } from '../world.ts';
import { WAL_AUTOCHECKPOINT_COMMITS } from './storage.ts';

const APP = 'com.example.app';

/** Runs `write` in the app, then (a second later) each of `faults`; returns the world after the run. */
async function afterFaults(write: (ctx: AppContext) => Promise<void>, faults: readonly Fault[]) {
  const world = new World({ seed: 1 });
  world.install(appSpec(APP), () => ({}));
  world.spawnIn(APP, 'write', write);
  world.spawn('faults', async () => {
    await world.scheduler.sleep(1_000);
    for (const f of faults) world.applyFault(f);
  });
  await world.run();
  return world;
}

async function normalCommit(ctx: AppContext) {
  ctx.storage.setSynchronousMode('NORMAL');
  await ctx.storage.transaction('pay', async (tx) => {
    await tx.put('t', 'k', 'paid');
    ctx.declareEffect({ tool: 'pay', requestId: 'r1', callerUid: 1, ownerUid: 1, args: {} }, tx);
  });
}

describe('SQLite WAL, synchronous=NORMAL (an app’s choice)', () => {
  it('a NORMAL commit is lost by a power loss: the store, the ground truth and its effect take it back', async () => {
    const world = await afterFaults(normalCommit, [{ kind: 'powerLoss' }]);
    const store = world.storage(APP);
    expect(store.synchronousMode).toBe('NORMAL');
    expect(store.peek('t', 'k')).toBeUndefined();
    expect(world.truth.commits.filter((c) => c.packageName === APP)).toEqual([]);
    expect(world.truth.effects.filter((e) => e.tool === 'pay')).toEqual([]);
    const lost = world.trace.ofKind('store.lost');
    expect(lost.map((e) => e.data.commits)).toEqual([1]);
  });

  it('a NORMAL commit survives a process kill and a clean reboot (the WAL is in the page cache; shutdown syncs it)', async () => {
    const world = await afterFaults(normalCommit, [{ kind: 'kill', process: APP }, { kind: 'reboot' }]);
    expect(world.storage(APP).peek('t', 'k')).toBe('paid');
    expect(world.truth.effects.filter((e) => e.tool === 'pay')).toHaveLength(1);
    // After the clean reboot synced it, a later power loss takes nothing back.
    const again = await afterFaults(normalCommit, [{ kind: 'reboot' }, { kind: 'powerLoss' }]);
    expect(again.storage(APP).peek('t', 'k')).toBe('paid');
    expect(again.trace.ofKind('store.lost')).toEqual([]);
  });

  it('FULL (the default) loses nothing at a power loss', async () => {
    const world = await afterFaults(
      async (ctx) => {
        await ctx.storage.put('t', 'k', 'paid');
      },
      [{ kind: 'powerLoss' }],
    );
    expect(world.storage(APP).synchronousMode).toBe('FULL');
    expect(world.storage(APP).peek('t', 'k')).toBe('paid');
  });

  it('only commits since the last checkpoint are lost, newest first: updates and deletes get their old values back', async () => {
    const world = await afterFaults(
      async (ctx) => {
        ctx.storage.setSynchronousMode('NORMAL');
        await ctx.storage.put('t', 'a', 1);
        await ctx.storage.put('t', 'gone', 'kept');
        ctx.storage.checkpoint();
        await ctx.storage.put('t', 'a', 2);
        await ctx.storage.put('t', 'a', 3);
        await ctx.storage.transaction('delete', (tx) => tx.delete('t', 'gone'));
        await ctx.storage.put('t', 'new', true);
      },
      [{ kind: 'powerLoss' }],
    );
    const store = world.storage(APP);
    expect(store.snapshot('t')).toEqual(
      new Map<string, unknown>([
        ['a', 1],
        ['gone', 'kept'],
      ]),
    );
    expect(world.trace.ofKind('store.lost').map((e) => e.data.commits)).toEqual([4]);
  });

  it(`the automatic checkpoint (every ${WAL_AUTOCHECKPOINT_COMMITS} commits) syncs what came before it`, async () => {
    const world = await afterFaults(
      async (ctx) => {
        ctx.storage.setSynchronousMode('NORMAL');
        for (let i = 0; i < WAL_AUTOCHECKPOINT_COMMITS + 1; i++) await ctx.storage.put('t', String(i), i);
      },
      [{ kind: 'powerLoss' }],
    );
    const keys = [...world.storage(APP).snapshot('t').keys()];
    expect(keys).toHaveLength(WAL_AUTOCHECKPOINT_COMMITS);
    expect(keys).not.toContain(String(WAL_AUTOCHECKPOINT_COMMITS));
  });
});
