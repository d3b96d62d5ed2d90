/**
 * The world's ground truth (ground-truth.ts): an effect declared in a transaction exists only if
 * the transaction commits; one declared outside a transaction at once; bytes written through a
 * descriptor are kept with its mode.
 */
import { describe, expect, it } from 'vitest';
import { AGENT, agentPackage } from '../providers/testing.ts';
import type { AppContext } from './app/context.ts';
import { appSpec, clientSpec, LambdaProvider } from './testing.ts';
import { World } from './world.ts';

const effect = (requestId: string) => ({
  tool: 'pay',
  requestId,
  callerUid: 10_001,
  ownerUid: 10_001,
  object: 'ACC-1',
  args: { amount: 5 },
});

describe('ground truth', () => {
  it('keeps an effect only if its transaction commits; records the commit with its process instance', async () => {
    const world = new World();
    world.install(agentPackage(), () => ({}));
    world.spawnIn(AGENT, 'app', async (ctx) => {
      await ctx.storage.transaction('kept', async (tx) => {
        await tx.put('t', 'a', 1);
        ctx.declareEffect(effect('R-1'), tx);
      });
      await ctx.storage
        .transaction('aborted', async (tx) => {
          ctx.declareEffect(effect('R-2'), tx);
          throw new Error('abort');
        })
        .catch(() => undefined);
      ctx.declareEffect(effect('R-3'));
    });
    await world.run();
    const { effects, commits } = world.truth;
    expect(effects.map((e) => [e.requestId, e.tx])).toEqual([
      ['r-1', 'kept'],
      ['r-3', null],
    ]);
    expect(effects[0]?.seq).toBe(commits[0]?.seq);
    expect(commits.map((c) => [c.tx, c.process, c.writes])).toEqual([
      ['kept', AGENT, [{ table: 't', key: 'a', deleted: false, value: 1 }]],
    ]);
    expect(world.truth.uncommittedEffects).toEqual([]);
  });

  it('keeps every byte written through a descriptor, with its mode', async () => {
    const world = new World();
    world.install(agentPackage(), () => ({}));
    world.spawnIn(AGENT, 'app', async (ctx) => {
      const [read, write] = ctx.createPipe();
      await write.write(new TextEncoder().encode('hello '));
      await write.write(new TextEncoder().encode('world'));
      write.close();
      while ((await read.read(64)).length > 0);
      read.close();
    });
    await world.run();
    const [file] = world.truth.fileResults;
    expect(file?.mode).toBe('w');
    expect(new TextDecoder().decode(file?.bytes)).toBe('hello world');
  });

  it('attributes each commit to the Binder call its task serves, or served when it was spawned', async () => {
    const world = new World({ recordContentCalls: true });
    world.install(appSpec('com.example.p', { authority: 'p' }), (ctx: AppContext) => ({
      providers: {
        Provider: new LambdaProvider(async (_self, method) => {
          await ctx.storage.put('rows', method, { by: method });
          // Work spawned while serving the call (an async operation's worker) is that call's.
          ctx.spawn('worker', async () => {
            await ctx.sleep(10);
            await ctx.storage.put('worker', method, 1);
          });
          return null;
        }),
      },
    }));
    world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
    world.spawnIn('com.example.c', 'calls', async (ctx) => {
      await ctx.contentResolver.call('p', 'first', null, null);
      await ctx.contentResolver.call('p', 'second', null, null);
    });
    // A task of the app's own, serving nothing.
    world.spawnIn('com.example.p', 'own', async (ctx) => {
      await ctx.sleep(5_000);
      await ctx.storage.put('own', 'k', true);
    });
    await world.run();
    const calls = world.contentCalls ?? [];
    const byMethod = (m: string) => calls.find((c) => c.method === m)?.id;
    const commits = world.truth.commits.map((c) => [c.writes[0]?.table, c.writes[0]?.key, c.call]);
    expect(commits).toEqual(
      expect.arrayContaining([
        ['rows', 'first', byMethod('first')],
        ['rows', 'second', byMethod('second')],
        ['worker', 'first', byMethod('first')],
        ['worker', 'second', byMethod('second')],
        ['own', 'k', null],
      ]),
    );
    expect(commits).toHaveLength(5);
    expect(world.truth.commits.find((c) => c.writes[0]?.table === 'rows')?.writes[0]?.value).toEqual({
      by: 'first',
    });
  });
});
