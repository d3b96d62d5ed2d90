import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { appSpec } from '../testing.ts';
import { World } from '../world.ts';

const HOURS = 3_600_000;

describe('deep sleep (the deepSleep fault): Handler delays run on uptimeMillis, which stops', () => {
  it('a 30 s sleep across a 2 h deep sleep wakes 30 s of uptime later: 2 h 30 s of elapsedRealtime and wall time', async () => {
    const world = new World();
    const seen: { elapsed: number; uptime: number; wall: number }[] = [];
    world.install(appSpec('com.example.c', { authority: 'c' }), () => ({}));
    world.spawnIn('com.example.c', 'main', async (ctx: AppContext) => {
      const read = () => ({
        elapsed: ctx.elapsedRealtime(),
        uptime: ctx.uptimeMillis(),
        wall: ctx.currentTimeMillis(),
      });
      ctx.spawn('sleeper', async () => {
        const before = read();
        await ctx.sleep(30_000);
        const after = read();
        seen.push({
          elapsed: after.elapsed - before.elapsed,
          uptime: after.uptime - before.uptime,
          wall: after.wall - before.wall,
        });
      });
      await ctx.sleep(10_000);
      world.applyFault({ kind: 'deepSleep', ms: 2 * HOURS });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    // On the old model (timers on elapsedRealtime) the sleeper woke at once on waking: 2 h, not 2 h 30 s.
    expect(seen).toEqual([{ elapsed: 2 * HOURS + 30_000, uptime: 30_000, wall: 2 * HOURS + 30_000 }]);
  });

  it('a clock jump moves only the wall clock: elapsed and uptime go on, the sleep wakes on time', async () => {
    const world = new World();
    const seen: number[] = [];
    world.install(appSpec('com.example.c', { authority: 'c' }), () => ({}));
    world.spawnIn('com.example.c', 'main', async (ctx: AppContext) => {
      const t0 = ctx.elapsedRealtime();
      const u0 = ctx.uptimeMillis();
      world.applyFault({ kind: 'clockJump', ms: 2 * HOURS });
      await ctx.sleep(30_000);
      seen.push(ctx.elapsedRealtime() - t0, ctx.uptimeMillis() - u0);
    });
    await world.run();
    expect(seen).toEqual([30_000, 30_000]);
  });

  it('a reboot takes its bootMs, then apps read elapsedRealtime and uptimeMillis from 0 again; the wall clock went on', async () => {
    const world = new World();
    world.install(appSpec('com.example.c', { authority: 'c' }), () => ({}));
    const before: number[] = [];
    const after: number[] = [];
    world.spawnIn('com.example.c', 'main', async (ctx: AppContext) => {
      await ctx.sleep(60_000);
      before.push(ctx.elapsedRealtime(), ctx.uptimeMillis(), ctx.currentTimeMillis());
    });
    world.spawn('driver', async () => {
      await world.scheduler.sleep(70_000);
      world.applyFault({ kind: 'reboot', bootMs: 40_000 });
      world.spawnIn('com.example.c', 'again', async (ctx: AppContext) => {
        after.push(ctx.elapsedRealtime(), ctx.uptimeMillis(), ctx.currentTimeMillis());
      });
    });
    await world.run();
    const [elapsed0 = 0, , wall0 = 0] = before;
    const [elapsed1 = -1, uptime1 = -1, wall1 = 0] = after;
    // On the old model elapsedRealtime went on across the reboot (> 60 s here) and the boot took no time.
    expect(elapsed0).toBeGreaterThanOrEqual(60_000);
    expect(elapsed1).toBeLessThan(1_000);
    expect(uptime1).toBeLessThan(1_000);
    expect(wall1 - wall0).toBeGreaterThanOrEqual(10_000 + 40_000);
  });
});
