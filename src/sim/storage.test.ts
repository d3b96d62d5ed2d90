import { describe, expect, it } from 'vitest';
import { appSpec } from './testing.ts';
import { World } from './world.ts';

function storageWorld(seed = 1) {
  const world = new World({ seed, strategy: { kind: 'random' } });
  world.install(appSpec('com.example.app'), () => ({}));
  return world;
}

describe('DurableStore (SQLite-like: atomic across a kill, serialised writers)', () => {
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
