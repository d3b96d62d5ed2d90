/**
 * How a vector's calls reach the provider in the simulation, shared by the TypeScript runner
 * (engine.ts) and `cetp-sim serve` (the device behind the Java runner): one unstable
 * ContentProviderClient per calling app, dropped when a call fails (a dead provider), and the second
 * UID's calls made from that app's own process; how a resolution is launched and how the user
 * answers a `user` step.
 */
import { OTHER_AGENT } from '../providers/testing.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { ContentProviderClient } from '../sim/content/content.ts';
import type { ParcelFileDescriptor } from '../sim/fd/fd.ts';
import type { UserDecision } from '../sim/ui/user.ts';
import type { World } from '../sim/world.ts';
import type { CallSpec } from './format.ts';
import { toBundle, type Vars } from './typed.ts';

/**
 * The resolution launch passes Android 14's sender opt-in
 * (ActivityOptions.setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED)):
 * the agents target 34, where a sender without it does not lend its background-start rights.
 */
export const LEND_BACKGROUND_START = { pendingIntentBackgroundActivityStartAllowed: true } as const;

/** The user's decision for each answer a `user` step may give. */
export const USER_ANSWERS: Readonly<Record<string, UserDecision>> = {
  approve: 'approve',
  deny: 'deny',
  back: 'back',
  never: 'ignore',
};

/** Reads a reply's file descriptor to its end (64 KiB at a time), then closes it. */
export async function readToEnd(pfd: ParcelFileDescriptor): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  try {
    for (let chunk = await pfd.read(1 << 16); chunk.length > 0; chunk = await pfd.read(1 << 16))
      chunks.push(chunk);
  } finally {
    pfd.close();
  }
  return Buffer.concat(chunks);
}

export class VectorCaller {
  private readonly clients = new Map<AppContext, ContentProviderClient>();
  /** The app that made the last call (it launches a resolution the reply carried). */
  lastCaller: AppContext;

  constructor(
    private readonly world: World,
    private readonly authority: string,
    private readonly primary: AppContext,
  ) {
    this.lastCaller = primary;
  }

  /** Forgets every client (after a provider kill: the next call acquires a fresh one). */
  reset(): void {
    this.clients.clear();
  }

  /** Sends `spec` as its caller; the reply and the app that received it. */
  async call(spec: CallSpec, vars: Vars): Promise<{ reply: Bundle | null; ctx: AppContext }> {
    if (spec.caller !== 'second')
      return { reply: await this.send(this.primary, spec, vars), ctx: this.primary };
    const done = this.primary.waiter<{ reply: Bundle | null; ctx: AppContext } | { error: unknown }>(
      'second caller',
    );
    this.world.spawnIn(OTHER_AGENT, 'vector-second', async (ctx) => {
      try {
        done.wake({ reply: await this.send(ctx, spec, vars), ctx });
      } catch (error) {
        done.wake({ error });
      }
    });
    const outcome = await done.wait();
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  private async send(ctx: AppContext, spec: CallSpec, vars: Vars): Promise<Bundle | null> {
    this.lastCaller = ctx;
    const extras =
      spec.extras === null ? null : toBundle(spec.extras, { vars, nowMs: () => ctx.currentTimeMillis() });
    let client = this.clients.get(ctx);
    if (!client) {
      client = (await ctx.contentResolver.acquireUnstableContentProviderClient(this.authority)) ?? undefined;
      if (!client) throw new Error(`cannot acquire ${this.authority}`);
      this.clients.set(ctx, client);
    }
    try {
      return await client.call(spec.method, spec.arg, extras);
    } catch (error) {
      this.clients.delete(ctx);
      throw error;
    }
  }
}
