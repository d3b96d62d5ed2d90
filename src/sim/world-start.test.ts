/**
 * The provider publish timeout belongs to a provider's start (world-start.ts; FIDELITY.md row 35.8d):
 * AMS `attachApplicationLocked` posts CONTENT_PROVIDER_PUBLISH_TIMEOUT_MSG only for a process with
 * providers to publish that a client is waiting for. The old model gave up ANY start after 10 s: a
 * slow start of an app's main process, whose provider runs in `:cetp`, killed the process its
 * confirmation screen was starting in ("publish-timeout") and the launcher got RESULT_CANCELED. A
 * start without that deadline is never frozen by the cached-app freezer: else a start frozen midway
 * would wait forever (the plain fix's run-progress failure on zoo apps 0 and 1).
 */
import { describe, expect, it } from 'vitest';
import { IllegalArgumentException } from './core/errors.ts';
import type { FaultAt } from './core/faults.ts';
import { appSpec, clientSpec, confirmReply, LambdaProvider, UnansweredConfirm } from './testing.ts';
import { type ActivityResult, RESULT_CANCELED } from './ui/activity.ts';
import { World } from './world.ts';

const P = 'com.example.p';
const OPT_IN = { pendingIntentBackgroundActivityStartAllowed: true };

/** A provider app (provider in `process`, if given) whose confirmation a client starts; `faults` on the device. */
async function confirmation(
  process: string | undefined,
  faults: FaultAt[],
  at?: [number, (w: World) => void],
) {
  const world = new World({ seed: 3, faults });
  world.install(
    appSpec(P, {
      authority: 'p',
      ...(process !== undefined ? { provider: { process } } : {}),
      manifest: { activities: [{ name: 'Confirm' }], queries: { packages: ['com.example.c'] } },
    }),
    (ctx) => ({
      providers: {
        Provider: new LambdaProvider(async () => confirmReply(ctx, P)),
      },
      activities: { Confirm: () => new UnansweredConfirm() },
    }),
  );
  world.install(clientSpec('com.example.c', [P]));
  const seen: { result: ActivityResult | null; error: unknown } = { result: null, error: null };
  world.spawnIn('com.example.c', 'ask', async (ctx) => {
    try {
      const pi = (await ctx.contentResolver.call('p', 'confirm', null, null))?.getPendingIntent('pi');
      if (pi) seen.result = await ctx.startIntentSenderForResult(pi, null, 0, OPT_IN);
    } catch (e) {
      seen.error = e;
    }
  });
  if (at)
    world.spawn('harness', async () => {
      await world.scheduler.sleep(at[0]);
      at[1](world);
    });
  const report = await world.run();
  const kinds = (kind: string) => world.trace.events.filter((e) => e.kind === kind).map((e) => e.data);
  return { world, seen, report, kinds };
}

const freeze = (w: World) => w.applyFault({ kind: 'freezeCached' });
const slow = (process: string, ms: number): FaultAt => ({ at: 0, fault: { kind: 'slowStart', process, ms } });

describe('the publish timeout: only a start a provider client waits for', () => {
  it("a slow start (15 s) of a :cetp app's main process for its confirmation is slow, not killed", async () => {
    const { seen, kinds } = await confirmation(':cetp', [slow(P, 15_000)]);
    expect(kinds('process.kill')).toEqual([]); // old model: P killed, cause publish-timeout
    expect(kinds('ui.show')).toHaveLength(1); // the confirmation shows, 15 s late
    expect(seen.result).toBeNull(); // still waiting for the (silent) user
  });

  it('frozen by the freezer while it starts? never: the start completes (no task blocked forever)', async () => {
    const { kinds, report } = await confirmation(':cetp', [slow(P, 15_000)], [5_000, freeze]);
    expect(kinds('process.freeze').filter((d) => d.actor === P)).toEqual([]);
    expect(kinds('ui.show')).toHaveLength(1);
    const blocked = report.outcome.kind === 'liveness' ? report.outcome.blocked : [];
    expect(blocked.filter((b) => b.on.startsWith('start of process'))).toEqual([]);
  });

  it("a provider's start still gives up at 10 s: the caller's acquisition fails, the process is removed", async () => {
    const { world, seen } = await confirmation(':cetp', [slow(`${P}:cetp`, 15_000)]);
    expect(seen.error).toBeInstanceOf(IllegalArgumentException);
    const state = world.process(P, `${P}:cetp`).state;
    expect(state.kind === 'dead' && state.cause.kind).toBe('publish-timeout');
  });
});

describe('a launch whose process fails to start', () => {
  it('answers RESULT_CANCELED and records it as activity.result (from the system)', async () => {
    // The confirmation's process is killed while it starts: the launcher resumes with CANCELED. The
    // old model answered CANCELED without a trace event: an oracle saw a resume without a result.
    const kill = (w: World) => w.killProcess(P, { kind: 'killed', reason: 'test' });
    const { seen, kinds } = await confirmation(':cetp', [slow(P, 15_000)], [5_000, kill]);
    expect(seen.result).toEqual({ resultCode: RESULT_CANCELED, data: null });
    expect(kinds('activity.result')).toEqual([
      {
        from: 'system',
        to: 'com.example.c',
        activity: 'Confirm',
        resultCode: RESULT_CANCELED,
        reason: 'its process failed to start',
      },
    ]);
  });
});
