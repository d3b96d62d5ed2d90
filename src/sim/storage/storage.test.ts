import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { appSpec } from '../testing.ts';
import { World } from '../world.ts';
import { QUEUED_WORK_DELAY_MS } from './shared-preferences.ts';

function storageWorld(seed = 1) {
  const world = new World({ seed, strategy: { kind: 'random' } });
  world.install(appSpec('com.example.app'), () => ({}));
  return world;
}

describe('DurableStore (SQLite-like: atomic across a kill, serialised writers)', () => {
  it('a write through the store inside its own open transaction waits forever, and its wait says so', async () => {
    const world = new World();
    world.install(appSpec('com.example.app'), () => ({}));
    world.spawnIn('com.example.app', 'writer', async (ctx) => {
      await ctx.storage.transaction('outer', async () => {
        await ctx.storage.put('t', 'k', 1);
      });
    });
    // Another task of the same process waiting for the lock is an ordinary wait.
    world.spawnIn('com.example.app', 'other', async (ctx) => {
      await ctx.storage.put('u', 'k', 1);
    });
    const report = await world.run();
    expect(report.outcome).toMatchObject({
      kind: 'liveness',
      blocked: [
        {
          task: 'com.example.app:writer',
          on: 'write lock of com.example.app storage, held by its own open transaction "outer"',
        },
        { task: 'com.example.app:other', on: 'write lock of com.example.app storage' },
      ],
    });
  });

  it('a transaction is all-or-nothing when the process is killed in the middle of it', async () => {
    const world = storageWorld();
    world.spawnIn('com.example.app', 'writer', async (ctx) => {
      await ctx.storage.put('t', 'committed', 1);
      await ctx.storage.transaction('two writes', async (tx) => {
        await tx.put('t', 'a', 1);
        world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
        await tx.put('t', 'b', 2);
      });
    });
    await world.run();
    const store = world.storage('com.example.app');
    expect(store.snapshot('t')).toEqual(new Map([['committed', 1]]));
    expect(world.trace.ofKind('store').map((e) => e.kind)).toEqual(['store.commit', 'store.rollback']);
  });

  it('committed data survives a process restart; memory does not', async () => {
    const world = storageWorld();
    const seen: unknown[] = [];
    world.spawnIn('com.example.app', 'first', async (ctx) => {
      await ctx.storage.put('t', 'k', { v: 42 });
      world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
    });
    world.spawn('later', async () => {
      await world.scheduler.sleep(1_000);
      world.spawnIn('com.example.app', 'second', async (ctx) => {
        seen.push(await ctx.storage.get('t', 'k'));
      });
    });
    await world.run();
    expect(seen).toEqual([{ v: 42 }]);
  });

  it('a transaction that throws rolls back and rethrows', async () => {
    const world = storageWorld();
    let error: unknown;
    world.spawnIn('com.example.app', 'w', async (ctx) => {
      try {
        await ctx.storage.transaction('fails', async (tx) => {
          await tx.put('t', 'k', 1);
          throw new Error('business rule');
        });
      } catch (e) {
        error = e;
      }
    });
    await world.run();
    expect((error as Error).message).toBe('business rule');
    expect(world.storage('com.example.app').peek('t', 'k')).toBeUndefined();
  });

  it('check-then-insert across separate operations races; inside one transaction it cannot', async () => {
    async function run(atomic: boolean, seed: number): Promise<number> {
      const world = storageWorld(seed);
      let inserts = 0;
      world.spawnIn('com.example.app', 'main', async (ctx) => {
        for (const name of ['a', 'b']) {
          ctx.spawn(name, async () => {
            if (atomic) {
              await ctx.storage.transaction('insert once', async (tx) => {
                if ((await tx.get('t', 'key')) === undefined) {
                  await tx.put('t', 'key', name);
                  inserts++;
                }
              });
            } else if ((await ctx.storage.get('t', 'key')) === undefined) {
              await ctx.storage.put('t', 'key', name);
              inserts++;
            }
          });
        }
      });
      await world.run();
      return inserts;
    }
    const racy: number[] = [];
    const safe: number[] = [];
    for (let seed = 0; seed < 30; seed++) {
      racy.push(await run(false, seed));
      safe.push(await run(true, seed));
    }
    expect(racy.some((n) => n === 2)).toBe(true);
    expect(safe.every((n) => n === 1)).toBe(true);
  });

  it('a killed lock holder releases the write lock to the next waiter', async () => {
    const world = storageWorld();
    world.install(appSpec('com.example.other'), () => ({}));
    const done: string[] = [];
    world.spawnIn('com.example.app', 'holder', async (ctx) => {
      await ctx.storage.transaction('long', async (tx) => {
        await tx.put('t', 'x', 1);
        await ctx.sleep(1000);
      });
      done.push('holder');
    });
    world.spawnIn('com.example.app', 'waiter', async (ctx) => {
      await ctx.sleep(10);
      ctx.spawn('second', async () => {
        await ctx.storage.put('t', 'y', 2);
        done.push('second');
      });
    });
    world.spawn('killer', async () => {
      await world.scheduler.sleep(500);
      world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
      world.spawnIn('com.example.app', 'after', async (ctx) => {
        await ctx.storage.put('t', 'z', 3);
        done.push('after');
      });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(done).toEqual(['after']);
    expect([...world.storage('com.example.app').snapshot('t').keys()]).toEqual(['z']);
  });

  it('stored values are deep-frozen copies: no writer object, frozen or not, can change them later', async () => {
    const world = storageWorld();
    const inner = { n: 1 };
    const shallowFrozen = Object.freeze({ inner, list: [1, 2] });
    const reads: unknown[] = [];
    world.spawnIn('com.example.app', 'w', async (ctx) => {
      await ctx.storage.put('t', 'a', shallowFrozen);
      const stored = (await ctx.storage.get('t', 'a')) as { inner: { n: number }; list: number[] };
      // Written back with one change: the untouched (deep-frozen) parts may be shared, never mutable.
      await ctx.storage.put('t', 'b', { ...stored, extra: true });
      inner.n = 2;
      (shallowFrozen.list as number[]).push(3);
      reads.push(await ctx.storage.get('t', 'a'), await ctx.storage.get('t', 'b'));
    });
    await world.run();
    expect(reads).toEqual([
      { inner: { n: 1 }, list: [1, 2] },
      { inner: { n: 1 }, list: [1, 2], extra: true },
    ]);
    const b = reads[1] as { inner: { n: number }; list: number[] };
    expect(Object.isFrozen(b) && Object.isFrozen(b.inner) && Object.isFrozen(b.list)).toBe(true);
    expect(() => {
      b.inner.n = 3;
    }).toThrow(TypeError);
  });
});

describe('the storage classes apps use, each with its crash semantics', () => {
  /** Runs `write` in the app, kills it `killAfterMs` later, then reads with `read` in a new process. */
  async function acrossKill(
    write: (ctx: AppContext) => Promise<void>,
    read: (ctx: AppContext) => unknown,
    killAfterMs: number,
  ): Promise<unknown> {
    const world = storageWorld();
    let seen: unknown;
    world.spawnIn('com.example.app', 'write', async (ctx) => {
      await write(ctx);
    });
    world.spawn('kill-then-read', async () => {
      await world.startProcess('com.example.app');
      await world.scheduler.sleep(killAfterMs);
      world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
      world.spawnIn('com.example.app', 'read', async (ctx) => {
        seen = read(ctx);
      });
    });
    await world.run();
    return seen;
  }

  it('SharedPreferences.apply(): memory at once, lost if the process dies before QueuedWork wrote it', async () => {
    const write = async (ctx: AppContext) => {
      const prefs = ctx.getSharedPreferences('p');
      prefs.edit().put('k', 1).apply();
      expect(prefs.get('k')).toBe(1);
    };
    const read = (ctx: AppContext) => ctx.getSharedPreferences('p').get('k');
    expect(await acrossKill(write, read, 10)).toBeUndefined();
    expect(await acrossKill(write, read, 10 * QUEUED_WORK_DELAY_MS)).toBe(1);
  });

  it('SharedPreferences.commit(): on disk once it returned, whenever the kill comes', async () => {
    const write = async (ctx: AppContext) => {
      await ctx.getSharedPreferences('p').edit().put('k', 2).commit();
    };
    expect(await acrossKill(write, (ctx) => ctx.getSharedPreferences('p').get('k'), 1)).toBe(2);
  });

  it('a file written without fsync survives a kill but a power loss tears it; fsynced data survives both', async () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      const world = new World({ seed, faults: [] });
      world.install(appSpec('com.example.app'), () => ({}));
      world.spawnIn('com.example.app', 'write', async (ctx) => {
        ctx.writeFile('synced', new Uint8Array([1, 2, 3, 4]), { sync: true });
        ctx.writeFile('cached', new Uint8Array([5, 6, 7, 8]));
        world.killProcess('com.example.app', { kind: 'killed', reason: 'test' });
      });
      world.spawn('power-loss', async () => {
        await world.scheduler.sleep(1_000);
        expect(world.fds.readFileBytes('com.example.app', 'cached')).toEqual(new Uint8Array([5, 6, 7, 8]));
        world.applyFault({ kind: 'powerLoss' });
      });
      await world.run();
      expect(world.fds.readFileBytes('com.example.app', 'synced')).toEqual(new Uint8Array([1, 2, 3, 4]));
      const cached = world.fds.readFileBytes('com.example.app', 'cached');
      outcomes.add(cached === null ? 'gone' : `kept ${cached.length}`);
      if (cached) expect([...cached]).toEqual([5, 6, 7, 8].slice(0, cached.length));
    }
    expect(outcomes.size).toBeGreaterThan(1);
    expect([...outcomes].some((o) => o !== 'kept 4')).toBe(true);
  });

  it('a clean reboot syncs files; SQLite commits survive a power loss', async () => {
    const world = storageWorld();
    world.spawnIn('com.example.app', 'write', async (ctx) => {
      ctx.writeFile('cached', new Uint8Array([9]));
      await ctx.storage.put('t', 'k', 'committed');
    });
    world.spawn('reboots', async () => {
      await world.scheduler.sleep(1_000);
      world.applyFault({ kind: 'reboot' });
      world.applyFault({ kind: 'powerLoss' });
    });
    await world.run();
    expect(world.fds.readFileBytes('com.example.app', 'cached')).toEqual(new Uint8Array([9]));
    expect(world.storage('com.example.app').peek('t', 'k')).toBe('committed');
  });
});
