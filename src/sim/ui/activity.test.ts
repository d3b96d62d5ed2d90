import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app/context.ts';
import type { AndroidRelease } from '../core/release.ts';
import { appSpec, clientSpec } from '../testing.ts';
import { World } from '../world.ts';
import { Activity, type ActivityResult, RESULT_CANCELED, RESULT_OK } from './activity.ts';
import { FLAG_ACTIVITY_NEW_TASK, Intent } from './intent.ts';
import { FLAG_IMMUTABLE, FLAG_MUTABLE, type PendingIntent } from './pending-intent.ts';
import type { UserSpec } from './user.ts';

const PROVIDER = 'com.example.bank';
/** The sender's opt-in a target-34 launcher needs (setPendingIntentBackgroundActivityStartMode). */
const OPT_IN = { pendingIntentBackgroundActivityStartAllowed: true };
const CONSUMER = 'com.example.agent';

/** The bank's confirmation Activity: shows the transfer in the Intent's extras and reports the decision. */
class ConfirmTransfer extends Activity {
  override async onCreate(): Promise<void> {
    const amount = this.intent.extras.getString('amount') ?? '?';
    const answer = await this.show({
      title: 'Confirm transfer',
      lines: [`Send ${amount} EUR to Bob`, 'Irreversible'],
    });
    if (answer === 'back') return;
    const data = new Intent();
    data.extras.putString('decision', answer);
    data.extras.putInt('pid', this.context.pid);
    this.setResult(RESULT_OK, data);
    this.finish();
  }
}

class Phishing extends Activity {
  override async onCreate(): Promise<void> {
    const data = new Intent();
    data.extras.putString('decision', 'approve');
    data.extras.putString('stolen', this.intent.extras.getString('amount') ?? '');
    this.setResult(RESULT_OK, data);
    this.finish();
  }
}

function confirmWorld(
  user: UserSpec,
  options: { implicit?: boolean; attacker?: boolean; android?: AndroidRelease } = {},
) {
  const world = new World({ user, ...(options.android !== undefined ? { android: options.android } : {}) });
  const pis: PendingIntent[] = [];
  world.install(
    appSpec(PROVIDER, {
      manifest: {
        activities: [
          {
            name: 'ConfirmTransfer',
            exported: options.implicit ?? false,
            intentFilters: options.implicit ? [{ actions: ['com.example.CONFIRM'] }] : [],
          },
        ],
        queries: { packages: [CONSUMER] },
      },
    }),
    (ctx: AppContext) => {
      // The "provider" hands out its PendingIntent from a background thread at start.
      ctx.spawn('issue', async () => {
        const intent = options.implicit
          ? new Intent({ action: 'com.example.CONFIRM' })
          : Intent.explicit(PROVIDER, 'ConfirmTransfer');
        intent.extras.putString('amount', '250');
        const pi = ctx.getActivityPendingIntent(
          1,
          intent,
          options.implicit ? FLAG_IMMUTABLE : FLAG_IMMUTABLE,
        );
        if (pi) pis.push(pi);
      });
      return { activities: { ConfirmTransfer: () => new ConfirmTransfer() } };
    },
  );
  world.install(clientSpec(CONSUMER, [PROVIDER, 'com.evil']), () => ({}));
  if (options.attacker) {
    world.install(
      appSpec('com.evil', {
        manifest: {
          activities: [
            {
              name: 'Phishing',
              exported: true,
              intentFilters: [{ actions: ['com.example.CONFIRM'], priority: 999 }],
            },
          ],
        },
      }),
      () => ({ activities: { Phishing: () => new Phishing() } }),
    );
  }
  return { world, pis };
}

async function launchAndWait(world: World, pis: PendingIntent[], killProviderFirst = false) {
  const results: ActivityResult[] = [];
  world.spawn('driver', async () => {
    await world.startProcess(PROVIDER);
    await world.scheduler.sleep(1);
    if (killProviderFirst) world.killProcess(PROVIDER, { kind: 'killed', reason: 'test' });
    world.spawnIn(CONSUMER, 'launch', async (ctx) => {
      results.push(await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN));
    });
  });
  const report = await world.run();
  return { results, report };
}

describe('PendingIntent launch for a result with a simulated user', () => {
  it('the user sees what the Activity displays; approval returns RESULT_OK to the launcher', async () => {
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'] });
    const { results } = await launchAndWait(world, pis);
    expect(results.map((r) => [r.resultCode, r.data?.extras.getString('decision')])).toEqual([
      [RESULT_OK, 'approve'],
    ]);
    expect(world.user.screensSeen.map((s) => s.screen.lines)).toEqual([
      ['Send 250 EUR to Bob', 'Irreversible'],
    ]);
    expect(pis[0]?.getCreatorPackage()).toBe(PROVIDER);
  });

  it('denial is a decision; Back is RESULT_CANCELED with no data', async () => {
    const deny = confirmWorld({ kind: 'scripted', decisions: ['deny'] });
    expect((await launchAndWait(deny.world, deny.pis)).results[0]?.data?.extras.getString('decision')).toBe(
      'deny',
    );
    const back = confirmWorld({ kind: 'scripted', decisions: ['back'] });
    const r = (await launchAndWait(back.world, back.pis)).results[0];
    expect(r?.resultCode).toBe(RESULT_CANCELED);
    expect(r?.data).toBeNull();
  });

  it('a user who never answers leaves the launcher blocked: a liveness failure naming it', async () => {
    const { world, pis } = confirmWorld({ kind: 'silent' });
    const { results, report } = await launchAndWait(world, pis);
    expect(results).toEqual([]);
    expect(report.outcome.kind).toBe('liveness');
    expect(report.outcome.kind === 'liveness' && report.outcome.blocked[0]?.on).toContain('result of');
  });

  it("the Activity runs in the creator's process, started again if it died (the token outlives it)", async () => {
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'] });
    const { results } = await launchAndWait(world, pis, true);
    expect(results[0]?.resultCode).toBe(RESULT_OK);
    expect(results[0]?.data?.extras.getInt('pid')).toBe(world.process(PROVIDER).pid);
    expect(world.process(PROVIDER).incarnation).toBe(2);
  });

  it("the Activity's process dying delivers RESULT_CANCELED to the launcher", async () => {
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'], thinkMs: 5_000 });
    world.spawn('killer', async () => {
      await world.scheduler.sleep(2_000);
      world.killProcess(PROVIDER, { kind: 'killed', reason: 'test' });
    });
    const { results } = await launchAndWait(world, pis);
    expect(results.map((r) => r.resultCode)).toEqual([RESULT_CANCELED]);
  });

  it('an implicit PendingIntent is hijacked by a higher-priority Activity of another app', async () => {
    const { world, pis } = confirmWorld({ kind: 'silent' }, { implicit: true, attacker: true });
    const { results } = await launchAndWait(world, pis);
    expect(results[0]?.data?.extras.getString('stolen')).toBe('250');
    expect(world.trace.ofKind('activity.start')[0]?.data.to).toBe('com.evil');
  });

  it('a mutable PendingIntent lets the holder fill in unset fields, such as the target package', async () => {
    const world = new World({ user: { kind: 'silent' } });
    let pi: PendingIntent | null = null;
    world.install(
      appSpec(PROVIDER, {
        manifest: {
          targetSdk: 33,
          activities: [{ name: 'ConfirmTransfer', exported: true, intentFilters: [{ actions: ['X'] }] }],
        },
      }),
      (ctx) => {
        ctx.spawn('issue', async () => {
          pi = ctx.getActivityPendingIntent(1, new Intent({ action: 'X' }), FLAG_MUTABLE);
        });
        return { activities: { ConfirmTransfer: () => new ConfirmTransfer() } };
      },
    );
    world.install(
      appSpec('com.evil', {
        manifest: { activities: [{ name: 'Phishing', exported: true, intentFilters: [{ actions: ['X'] }] }] },
      }),
      () => ({ activities: { Phishing: () => new Phishing() } }),
    );
    world.install(clientSpec(CONSUMER, [PROVIDER, 'com.evil']), () => ({}));
    world.spawn('driver', async () => {
      await world.startProcess(PROVIDER);
      world.spawnIn('com.evil', 'hijack', async (ctx) => {
        await ctx.startIntentSenderForResult(
          pi as unknown as PendingIntent,
          new Intent({ package: 'com.evil' }),
          0,
          OPT_IN,
        );
      });
    });
    await world.run();
    expect(world.trace.ofKind('activity.start')[0]?.data.to).toBe('com.evil');
  });

  it('a result for a launcher whose process died is redelivered to a restarted instance (onActivityResult)', async () => {
    // On a device the launching activity's record stays in its task; the result brings it back to
    // the front, its process is started again and the new instance gets onActivityResult.
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'], thinkMs: 5_000 });
    const redelivered: { requestCode: number; decision: string | null; pid: number }[] = [];
    world.update(clientSpec(CONSUMER, [PROVIDER, 'com.evil']), (ctx) => ({
      onActivityResult: (requestCode, result) => {
        redelivered.push({
          requestCode,
          decision: result.data?.extras.getString('decision') ?? null,
          pid: ctx.pid,
        });
      },
    }));
    const awaited: ActivityResult[] = [];
    let firstPid = -1;
    world.spawn('driver', async () => {
      await world.startProcess(PROVIDER);
      world.spawnIn(CONSUMER, 'launch', async (ctx) => {
        firstPid = ctx.pid;
        awaited.push(await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 7, OPT_IN));
      });
      await world.scheduler.sleep(2_000);
      world.killProcess(CONSUMER, { kind: 'killed', reason: 'test' });
    });
    const report = await world.run();
    expect(report.outcome.kind).toBe('completed');
    expect(awaited).toEqual([]);
    expect(redelivered).toEqual([{ requestCode: 7, decision: 'approve', pid: world.process(CONSUMER).pid }]);
    expect(redelivered[0]?.pid).not.toBe(firstPid);
    expect(world.trace.ofKind('activity.result.dropped')).toEqual([]);
  });

  it('a launcher restarted meanwhile gets the result as onActivityResult, never through the old await', async () => {
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'], thinkMs: 5_000 });
    const redelivered: number[] = [];
    world.update(clientSpec(CONSUMER, [PROVIDER, 'com.evil']), (ctx) => ({
      onActivityResult: () => {
        redelivered.push(ctx.pid);
      },
    }));
    const awaited: ActivityResult[] = [];
    world.spawn('driver', async () => {
      await world.startProcess(PROVIDER);
      world.spawnIn(CONSUMER, 'launch', async (ctx) => {
        awaited.push(await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN));
      });
      await world.scheduler.sleep(2_000);
      world.killProcess(CONSUMER, { kind: 'killed', reason: 'test' });
      await world.startProcess(CONSUMER);
    });
    await world.run();
    expect(awaited).toEqual([]);
    expect(redelivered).toEqual([world.process(CONSUMER).pid]);
    expect(world.process(CONSUMER).incarnation).toBe(2);
  });

  it('a result for an uninstalled launcher is dropped', async () => {
    const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'], thinkMs: 5_000 });
    world.spawn('driver', async () => {
      await world.startProcess(PROVIDER);
      world.spawnIn(CONSUMER, 'launch', async (ctx) => {
        await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, OPT_IN);
      });
      await world.scheduler.sleep(2_000);
      world.uninstall(CONSUMER);
    });
    await world.run();
    expect(world.trace.ofKind('activity.result.dropped').map((e) => e.data.reason)).toEqual([
      'launcher package is gone',
    ]);
  });

  it('background activity launch: a target-34 sender without the opt-in is blocked and gets RESULT_CANCELED', async () => {
    const outcome = async (options: { optIn: boolean; senderTarget: number; background: boolean }) => {
      const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'] });
      world.update(
        appSpec(CONSUMER, {
          manifest: { targetSdk: options.senderTarget, queries: { packages: [PROVIDER] } },
        }),
        () => ({}),
      );
      const codes: number[] = [];
      world.spawn('driver', async () => {
        await world.startProcess(PROVIDER);
        const send = async (ctx: AppContext) => {
          const r = await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, {
            pendingIntentBackgroundActivityStartAllowed: options.optIn,
          });
          codes.push(r.resultCode);
        };
        if (options.background) {
          // Started by the system (not launched by the user): a cached app, never in the foreground.
          await world.startProcess(CONSUMER);
          (world.process(CONSUMER).context as AppContext | null)?.spawn('send', () =>
            send(world.process(CONSUMER).context as AppContext),
          );
        } else world.spawnIn(CONSUMER, 'send', send);
      });
      await world.run();
      return { codes, blocked: world.trace.ofKind('activity.start.blocked').map((e) => e.data.reason) };
    };
    expect(await outcome({ optIn: true, senderTarget: 34, background: false })).toEqual({
      codes: [RESULT_OK],
      blocked: [],
    });
    expect(await outcome({ optIn: false, senderTarget: 33, background: false })).toEqual({
      codes: [RESULT_OK],
      blocked: [],
    });
    expect(await outcome({ optIn: false, senderTarget: 34, background: false })).toEqual({
      codes: [RESULT_CANCELED],
      blocked: ['the sender targets 34+ and did not opt in (setPendingIntentBackgroundActivityStartMode)'],
    });
    expect(await outcome({ optIn: true, senderTarget: 34, background: true })).toEqual({
      codes: [RESULT_CANCELED],
      blocked: ['neither the sender nor the creator is in the foreground'],
    });
  });

  it('release profiles: from Android 15 a PendingIntent sent for a result auto-opts its sender in (AUTO_OPT_IN_CALL_FOR_RESULT) unless it denies', async () => {
    // A foreground target-34 sender that says nothing (SYSTEM_DEFINED), or DENIES explicitly.
    const outcome = async (android: AndroidRelease, mode: boolean | undefined) => {
      const { world, pis } = confirmWorld({ kind: 'scripted', decisions: ['approve'] }, { android });
      const codes: number[] = [];
      world.spawn('driver', async () => {
        await world.startProcess(PROVIDER);
        world.spawnIn(CONSUMER, 'send', async (ctx) => {
          const options = mode === undefined ? {} : { pendingIntentBackgroundActivityStartAllowed: mode };
          codes.push(
            (await ctx.startIntentSenderForResult(pis[0] as PendingIntent, null, 0, options)).resultCode,
          );
        });
      });
      await world.run();
      return codes;
    };
    expect(await outcome(14, undefined)).toEqual([RESULT_CANCELED]);
    expect(await outcome(15, undefined)).toEqual([RESULT_OK]);
    expect(await outcome(16, undefined)).toEqual([RESULT_OK]);
    expect(await outcome(15, false)).toEqual([RESULT_CANCELED]);
    expect(await outcome(14, true)).toEqual([RESULT_OK]);
  });

  it('FLAG_ACTIVITY_NEW_TASK with a result request: RESULT_CANCELED at once, the Activity still starts, its result goes nowhere', async () => {
    const world = new World({ user: { kind: 'scripted', decisions: ['approve'], thinkMs: 5_000 } });
    let pi: PendingIntent | null = null;
    world.install(
      appSpec(PROVIDER, {
        manifest: {
          activities: [{ name: 'ConfirmTransfer', exported: false }],
          queries: { packages: [CONSUMER] },
        },
      }),
      (ctx: AppContext) => {
        ctx.spawn('issue', async () => {
          const intent = Intent.explicit(PROVIDER, 'ConfirmTransfer', { flags: FLAG_ACTIVITY_NEW_TASK });
          pi = ctx.getActivityPendingIntent(1, intent, FLAG_IMMUTABLE);
        });
        return { activities: { ConfirmTransfer: () => new ConfirmTransfer() } };
      },
    );
    world.install(clientSpec(CONSUMER, [PROVIDER]), () => ({}));
    const results: { code: number; at: number }[] = [];
    world.spawn('driver', async () => {
      await world.startProcess(PROVIDER);
      world.spawnIn(CONSUMER, 'launch', async (ctx) => {
        const r = await ctx.startIntentSenderForResult(pi as unknown as PendingIntent, null, 0, OPT_IN);
        results.push({ code: r.resultCode, at: ctx.elapsedRealtime() });
      });
    });
    await world.run();
    expect(results.map((r) => r.code)).toEqual([RESULT_CANCELED]);
    expect(world.user.screensSeen).toHaveLength(1);
    expect(world.trace.ofKind('activity.result.dropped').map((e) => e.data.reason)).toEqual([
      'launched as a new task',
    ]);
  });

  it('Intents may not carry file descriptors: neither a result nor a PendingIntent base Intent', async () => {
    const world = new World();
    world.install(appSpec(PROVIDER), () => ({}));
    const errors: string[] = [];
    world.spawnIn(PROVIDER, 'fds', async (ctx) => {
      ctx.writeFile('f', new Uint8Array([1]));
      const intent = Intent.explicit(PROVIDER, 'ConfirmTransfer');
      intent.extras.putParcelFileDescriptor('fd', ctx.openFile('f', 'r'));
      try {
        ctx.getActivityPendingIntent(1, intent, FLAG_IMMUTABLE);
      } catch (error) {
        errors.push(String((error as Error).message));
      }
      try {
        new ConfirmTransfer().setResult(RESULT_OK, intent);
      } catch (error) {
        errors.push(String((error as Error).message));
      }
      intent.extras.getParcelFileDescriptor('fd')?.close();
    });
    await world.run();
    expect(errors).toEqual(['File descriptors passed in Intent', 'File descriptors passed in Intent']);
  });
});
