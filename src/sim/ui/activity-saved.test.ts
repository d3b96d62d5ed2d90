import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { bankSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { World } from '../world.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from './activity.ts';
import { Intent } from './intent.ts';
import { FLAG_IMMUTABLE, type PendingIntent } from './pending-intent.ts';

const PROVIDER = 'com.example.bank';
const CONSUMER = 'com.example.agent';
const OPT_IN = { pendingIntentBackgroundActivityStartAllowed: true };

/** The bank's confirmation, launched by the agent; `between` runs (as the harness) once it shows. */
async function confirmAcross(between: (world: World) => Promise<void>) {
  const world = new World({ user: { kind: 'scripted', decisions: ['approve', 'approve'], thinkMs: 2_000 } });
  const pis: PendingIntent[] = [];
  const pids: number[] = [];
  class Confirm extends Activity {
    override async onCreate(): Promise<void> {
      pids.push(this.context.pid);
      if ((await this.show({ title: 'Confirm', lines: ['pay 5'] })) !== 'approve') return;
      this.setResult(RESULT_OK, new Intent());
      this.finish();
    }
  }
  world.install(bankSpec(PROVIDER, CONSUMER), (ctx: AppContext) => ({
    providers: {
      Provider: new LambdaProvider(() => {
        const pi = ctx.getActivityPendingIntent(1, Intent.explicit(PROVIDER, 'Confirm'), FLAG_IMMUTABLE);
        if (pi) pis.push(pi);
        return new Bundle();
      }),
    },
    activities: { Confirm: () => new Confirm() },
  }));
  world.install(clientSpec(CONSUMER, [PROVIDER]), () => ({}));
  const codes: number[] = [];
  world.spawnIn(CONSUMER, 'agent', async (ctx) => {
    await ctx.contentResolver.call('bank', 'pi', null, null);
    world.spawn('harness', async () => {
      await world.scheduler.sleep(500);
      await between(world);
    });
    codes.push((await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN)).resultCode);
  });
  const report = await world.run();
  return { world, report, codes, pids };
}

describe('a stopped Activity outlives its process (ActivityRecord.handleAppDied; activity-saved.ts)', () => {
  it('the user leaves, the provider is killed meanwhile: on return its confirmation is recreated in a new process and its result reaches the launcher', async () => {
    const { world, report, codes, pids } = await confirmAcross(async (w) => {
      w.applyFault({ kind: 'userAway', ms: 5 * 60_000 });
      await w.scheduler.sleep(500);
      w.applyFault({ kind: 'kill', process: PROVIDER });
    });
    expect(report.outcome.kind).toBe('completed');
    // On the old model: RESULT_CANCELED at the kill, one Confirm only.
    expect(codes).toEqual([RESULT_OK]);
    expect(pids).toHaveLength(2);
    expect(pids[0]).not.toBe(pids[1]);
    expect(world.trace.ofKind('activity.saved')).toHaveLength(1);
    expect(world.trace.ofKind('activity.relaunch')).toHaveLength(1);
    // The answer given while away went to the dead instance's screen, not to its successor.
    expect(world.trace.ofKind('user.decision')).toHaveLength(2);
  });

  it('killed while shown (resumed, no saved state): removed at once, RESULT_CANCELED', async () => {
    const { codes, pids, world } = await confirmAcross(async (w) => {
      w.applyFault({ kind: 'kill', process: PROVIDER });
    });
    expect(codes).toEqual([RESULT_CANCELED]);
    expect(pids).toHaveLength(1);
    expect(world.trace.ofKind('activity.saved')).toEqual([]);
  });

  it('while the user is away nothing is on screen: the launched agent and the provider lose the foreground', async () => {
    const adjs: number[] = [];
    await confirmAcross(async (w) => {
      w.applyFault({ kind: 'userAway', ms: 60_000 });
      const importance = w.importance();
      adjs.push(importance.get(w.process(CONSUMER)) ?? -1, importance.get(w.process(PROVIDER)) ?? -1);
    });
    expect(adjs.every((adj) => adj > 0)).toBe(true);
  });
});
