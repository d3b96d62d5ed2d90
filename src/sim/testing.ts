/**
 * Test helpers for simulated apps: manifest builders and tiny providers. Used by the simulation's
 * own tests and by benchmarks; not part of the public API.
 */

import type { AppContext } from './app/context.ts';
import { Bundle } from './binder/bundle.ts';
import { ContentProvider } from './content/content-provider.ts';
import type { StrategySpec } from './core/strategy.ts';
import type { ManifestSpec, PackageSpec, ProviderSpec } from './pm/manifest.ts';
import { certificate } from './pm/signing.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from './ui/activity.ts';
import { Intent } from './ui/intent.ts';
import { FLAG_IMMUTABLE } from './ui/pending-intent.ts';
import { World } from './world.ts';

export interface AppSpecOptions {
  readonly authority?: string;
  readonly providerName?: string;
  readonly provider?: Partial<ProviderSpec>;
  readonly manifest?: Partial<ManifestSpec>;
  readonly cert?: string;
}

/** A package that optionally exposes one exported provider. Signed by `cert` (default `<pkg>-key`). */
export function appSpec(packageName: string, options: AppSpecOptions = {}): PackageSpec {
  const providers: ProviderSpec[] = options.authority
    ? [
        {
          name: options.providerName ?? 'Provider',
          authorities: [options.authority],
          exported: true,
          ...options.provider,
        },
      ]
    : [];
  return {
    manifest: {
      packageName,
      targetSdk: 34,
      providers,
      queries: { packages: [] },
      ...options.manifest,
    },
    signing: { signers: [certificate(options.cert ?? `${packageName}-key`)] },
  };
}

/** A client package that can see `visible` packages through `<queries>`. */
export function clientSpec(packageName: string, visible: readonly string[], cert?: string): PackageSpec {
  return appSpec(packageName, {
    manifest: { queries: { packages: [...visible] } },
    ...(cert !== undefined ? { cert } : {}),
  });
}

/** Echoes its extras back, adding `method` and the calling UID it saw at entry. */
export class EchoProvider extends ContentProvider {
  calls = 0;
  override call(_authority: string, method: string, _arg: string | null, extras: Bundle | null): Bundle {
    this.calls++;
    const reply = new Bundle();
    if (extras) reply.putAll(extras);
    reply.putString('method', method);
    reply.putInt('caller_uid', this.context.binder.getCallingUid());
    return reply;
  }
}

/** A provider whose behaviour is a function (for one-off tests). */
export class LambdaProvider extends ContentProvider {
  constructor(
    private readonly handler: (
      self: LambdaProvider,
      method: string,
      arg: string | null,
      extras: Bundle | null,
    ) => Bundle | null | Promise<Bundle | null>,
    private readonly onCreateHook?: (self: LambdaProvider) => void | Promise<void>,
  ) {
    super();
  }
  override onCreate(): void | Promise<void> {
    return this.onCreateHook?.(this);
  }
  override call(_authority: string, method: string, arg: string | null, extras: Bundle | null) {
    return this.handler(this, method, arg, extras);
  }
}

/**
 * `com.example.p`, whose provider `p` sleeps 10 ms and answers an empty Bundle (so concurrent calls
 * overlap in the Binder buffer), and `com.example.c`, a client that may see it.
 */
export function installSlowProviderAndClient(world: World): void {
  world.install(appSpec('com.example.p', { authority: 'p' }), () => ({
    providers: {
      Provider: new LambdaProvider(async (self) => {
        await self.context.sleep(10);
        return new Bundle();
      }),
    },
  }));
  world.install(clientSpec('com.example.c', ['com.example.p']), () => ({}));
}

/**
 * A busy world for determinism checks and benchmarks: a provider with durable state and file
 * exports, two clients making concurrent calls (stable and unstable), a confirmation Activity the
 * seeded user answers, and a kill, a lost reply and a clock jump along the way.
 */
export function busyWorld(seed: number | string, strategy: StrategySpec = { kind: 'random' }): World {
  const world = new World({
    seed,
    strategy,
    user: { kind: 'seeded' },
    faults: [
      { at: 40, fault: { kind: 'loseReply', callee: 'com.busy.provider' } },
      { at: 90, fault: { kind: 'clockJump', ms: 3_600_000 } },
      { at: 150, fault: { kind: 'kill', process: 'com.busy.provider' } },
    ],
  });
  world.install(
    appSpec('com.busy.provider', {
      authority: 'busy',
      manifest: {
        activities: [{ name: 'Confirm', exported: false }],
        queries: { packages: ['com.busy.a', 'com.busy.b'] },
      },
    }),
    (ctx) => ({
      providers: {
        Provider: new LambdaProvider(async (self, method, _arg, extras) => {
          const caller = self.context.binder.getCallingUid();
          const reply = new Bundle();
          const n = ((await ctx.storage.get('counters', String(caller))) as number | undefined) ?? 0;
          await ctx.storage.transaction('count', async (tx) => {
            await tx.put('counters', String(caller), n + 1);
          });
          reply.putInt('n', n + 1);
          if (method === 'export') {
            ctx.writeFile(`export-${n}.json`, new TextEncoder().encode(JSON.stringify({ n, caller })));
            const pfd = ctx.openFile(`export-${n}.json`, 'r');
            reply.putParcelFileDescriptor('fd', pfd);
            ctx.spawn('close', async () => {
              await ctx.yield();
              pfd.close();
            });
          }
          if (method === 'confirm') {
            const pi = ctx.getActivityPendingIntent(
              n,
              Intent.explicit('com.busy.provider', 'Confirm'),
              FLAG_IMMUTABLE,
            );
            reply.putPendingIntent('resolution', pi);
          }
          reply.putString('echo', extras?.getString('x') ?? '');
          return reply;
        }),
      },
      activities: { Confirm: () => new BusyConfirm() },
    }),
  );
  for (const client of ['com.busy.a', 'com.busy.b']) {
    world.install(clientSpec(client, ['com.busy.provider']), () => ({}));
    world.spawnIn(client, 'main', async (ctx) => {
      for (let i = 0; i < 3; i++) {
        ctx.spawn(`worker${i}`, async () => {
          const extras = new Bundle();
          extras.putString('x', `${client}-${i}`);
          const client2 = await ctx.contentResolver.acquireUnstableContentProviderClient('busy');
          for (const method of ['count', 'export', 'confirm']) {
            try {
              const r = await client2?.call(method, null, extras);
              const fd = r?.getParcelFileDescriptor('fd');
              if (fd) {
                await fd.readUpTo(1000);
                fd.close();
              }
              const pi = r?.getPendingIntent('resolution');
              if (pi) await ctx.startIntentSenderForResult(pi);
            } catch {
              await ctx.sleep(100);
            }
          }
        });
      }
    });
  }
  return world;
}

class BusyConfirm extends Activity {
  override async onCreate(): Promise<void> {
    const answer = await this.show({ title: 'Confirm', lines: ['busy'] });
    if (answer === 'back') return;
    this.setResult(answer === 'approve' ? RESULT_OK : RESULT_CANCELED);
    this.finish();
  }
}

/** A bank at authority 'bank' with a private Confirm screen, which `consumer` can see. */
export function bankSpec(bank: string, consumer: string): PackageSpec {
  return appSpec(bank, {
    authority: 'bank',
    manifest: { activities: [{ name: 'Confirm', exported: false }], queries: { packages: [consumer] } },
  });
}

/** A reply carrying 'pi': an immutable PendingIntent for `pkg`'s Confirm screen, made by its `ctx`. */
export function confirmReply(ctx: AppContext, pkg: string, reply = new Bundle()): Bundle {
  reply.putPendingIntent(
    'pi',
    ctx.getActivityPendingIntent(1, Intent.explicit(pkg, 'Confirm'), FLAG_IMMUTABLE),
  );
  return reply;
}

/** A confirmation screen nobody answers (the silent user): its launcher waits on it. */
export class UnansweredConfirm extends Activity {
  override async onCreate(): Promise<void> {
    await this.show({ title: 'Confirm', lines: ['?'] });
  }
}
