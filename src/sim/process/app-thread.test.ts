import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import { Bundle } from '../binder/bundle.ts';
import { bankSpec, clientSpec, LambdaProvider } from '../testing.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from '../ui/activity.ts';
import { Intent } from '../ui/intent.ts';
import { FLAG_IMMUTABLE, type PendingIntent } from '../ui/pending-intent.ts';
import { World } from '../world.ts';
import { MAX_BINDER_THREADS } from './process.ts';

const PROVIDER = 'com.example.bank';
const CONSUMER = 'com.example.agent';
const OPT_IN = { pendingIntentBackgroundActivityStartAllowed: true };

/** A provider whose call() sleeps `busyMs`, handing out a PendingIntent to Confirm (extras `blob`). */
function bankWorld(options: { busyMs?: number; blobChars?: number; resultChars?: number } = {}) {
  const world = new World({ user: { kind: 'scripted', decisions: ['approve'] } });
  const created: number[] = [];
  const pis: PendingIntent[] = [];
  class Confirm extends Activity {
    override async onCreate(): Promise<void> {
      created.push(this.context.elapsedRealtime());
      await this.show({ title: 'Confirm', lines: ['pay'] });
      const data = new Intent();
      if (options.resultChars) data.extras.putString('blob', 'r'.repeat(options.resultChars));
      this.setResult(RESULT_OK, data);
      this.finish();
    }
  }
  world.install(bankSpec(PROVIDER, CONSUMER), (ctx: AppContext) => ({
    providers: {
      Provider: new LambdaProvider(async (self, method) => {
        if (method === 'pi') {
          const intent = Intent.explicit(PROVIDER, 'Confirm');
          if (options.blobChars) intent.extras.putString('blob', 'x'.repeat(options.blobChars));
          const pi = ctx.getActivityPendingIntent(1, intent, FLAG_IMMUTABLE);
          if (pi) pis.push(pi);
        } else await self.context.sleep(options.busyMs ?? 0);
        return new Bundle();
      }),
    },
    activities: { Confirm: () => new Confirm() },
  }));
  world.install(clientSpec(CONSUMER, [PROVIDER]), () => ({}));
  return { world, created, pis };
}

describe('IApplicationThread: activity launches are oneway binder calls into the app (app-thread.ts)', () => {
  it(`the confirmation waits while all ${MAX_BINDER_THREADS} binder threads of the provider serve calls`, async () => {
    const { world, created, pis } = bankWorld({ busyMs: 5_000 });
    const codes: number[] = [];
    let sentAt = -1;
    world.spawnIn(CONSUMER, 'agent', async (ctx) => {
      await ctx.contentResolver.call('bank', 'pi', null, null);
      const client = await ctx.contentResolver.acquireUnstableContentProviderClient('bank');
      for (let i = 0; i < MAX_BINDER_THREADS; i++)
        ctx.spawn(`busy${i}`, async () => void (await client?.call('busy', null, null)));
      await ctx.sleep(1_000);
      sentAt = ctx.elapsedRealtime();
      codes.push((await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN)).resultCode);
    });
    await world.run();
    expect(codes).toEqual([RESULT_OK]);
    // On the old model the Activity was created at once, at sentAt.
    expect((created[0] ?? 0) - sentAt).toBeGreaterThanOrEqual(4_000);
    expect(world.trace.ofKind('binder.oneway').map((e) => e.data.method)).toEqual([
      'scheduleTransaction(LaunchActivityItem Confirm)',
    ]);
  });

  it('with a free thread the launch is immediate and leaves no binder event (the trace as before)', async () => {
    const { world, created, pis } = bankWorld();
    let sentAt = -1;
    world.spawnIn(CONSUMER, 'agent', async (ctx) => {
      await ctx.contentResolver.call('bank', 'pi', null, null);
      sentAt = ctx.elapsedRealtime();
      await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN);
    });
    await world.run();
    expect(created).toEqual([sentAt]);
    expect(world.trace.ofKind('binder.oneway')).toEqual([]);
  });

  it('an Intent too big for the app’s async buffer: the launch fails in system_server, the app dies (2nd-crash), the launcher gets RESULT_CANCELED', async () => {
    const { world, created, pis } = bankWorld({ blobChars: 300_000 });
    const codes: number[] = [];
    world.spawnIn(CONSUMER, 'agent', async (ctx) => {
      await ctx.contentResolver.call('bank', 'pi', null, null);
      codes.push((await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN)).resultCode);
    });
    await world.run();
    expect(codes).toEqual([RESULT_CANCELED]);
    expect(created).toEqual([]);
    expect(world.trace.ofKind('process.kill').map((e) => e.data.cause)).toEqual([
      'killed (2nd-crash: launching Confirm failed)',
    ]);
  });

  it('a result too big for system_server: finish() throws in the provider, which crashes; the launcher gets RESULT_CANCELED', async () => {
    const { world, pis } = bankWorld({ resultChars: 600_000 });
    const codes: number[] = [];
    world.spawnIn(CONSUMER, 'agent', async (ctx) => {
      await ctx.contentResolver.call('bank', 'pi', null, null);
      codes.push((await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN)).resultCode);
    });
    const report = await world.run();
    expect(codes).toEqual([RESULT_CANCELED]);
    expect(report.crashes.map((c) => c.error)).toEqual([
      expect.stringContaining('Failure from system: TransactionTooLargeException'),
    ]);
  });
});
