import { describe, expect, it } from 'vitest';
import { Bundle } from './bundle.ts';
import { appSpec, clientSpec, LambdaProvider } from './testing.ts';
import { World } from './world.ts';

/** A provider whose call takes `ms`, and a consumer that calls it on its main thread. */
function mainThreadWorld(ms: number, onMain: boolean) {
  const world = new World();
  world.install(appSpec('com.example.slow', { authority: 'slow' }), () => ({
    providers: {
      Provider: new LambdaProvider(async (self) => {
        await self.context.sleep(ms);
        return new Bundle();
      }),
    },
  }));
  world.install(clientSpec('com.example.c', ['com.example.slow']), () => ({}));
  const log: string[] = [];
  const began: number[] = [];
  world.spawnIn('com.example.c', 'click', async (ctx) => {
    began.push(ctx.currentTimeMillis());
    const call = () => ctx.contentResolver.call('slow', 'm', null, null);
    const reply = onMain ? await ctx.onMainThread(call) : await call();
    log.push(reply ? 'reply' : 'null');
  });
  return { world, log, began };
}

describe('input ANR: a consumer calling a provider on its main thread (issue 35 item 5a)', () => {
  it('a call blocking the main thread 6 s: "Input dispatching timed out" at 5 s and the app is killed', async () => {
    const { world, log, began } = mainThreadWorld(6_000, true);
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    // On the old model (no main thread, no input dispatcher) the reply came after 6 s: log ['reply'].
    expect(log).toEqual([]);
    const anr = world.trace.events.filter((e) => e.kind === 'anr');
    expect(anr.map((e) => [e.data['process'], e.data['reason'], e.t - (began[0] ?? 0)])).toEqual([
      ['com.example.c', 'Input dispatching timed out', 5_000],
    ]);
    const consumer = world.process('com.example.c');
    expect(consumer.state.kind === 'dead' && consumer.state.cause).toEqual({ kind: 'killed', reason: 'anr' });
    expect(world.process('com.example.slow').isAlive).toBe(true);
  });

  it('a call that returns within 5 s is no ANR; the same 6 s call off the main thread is none either', async () => {
    for (const [ms, onMain] of [
      [1_000, true],
      [6_000, false],
    ] as const) {
      const { world, log } = mainThreadWorld(ms, onMain);
      await world.run();
      expect(log).toEqual(['reply']);
      expect(world.trace.events.filter((e) => e.kind === 'anr')).toEqual([]);
      expect(world.process('com.example.c').isAlive).toBe(true);
    }
  });
});
