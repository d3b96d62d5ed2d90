/**
 * Test helpers for providers: a world with provider apps and a bare "agent" app, and a raw CETP
 * client that speaks the wire by hand (Bundles over simulated Binder), so provider tests exercise
 * exactly what a device would — never the provider's methods directly.
 */
import { Bundle } from '../sim/bundle.ts';
import type { ContentProviderClient } from '../sim/content.ts';
import type { AppContext } from '../sim/context.ts';
import type { PackageSpec } from '../sim/manifest.ts';
import { certificate } from '../sim/signing.ts';
import { World, type WorldOptions } from '../sim/world.ts';
import { ALERTS_AUTHORITY, alertsApp, alertsPackage } from './apps/alerts.ts';
import { TOOL_PROVIDER_ACTION } from './sdk/manifest.ts';
import type { ProviderOptions } from './sdk/types.ts';

export const AGENT = 'com.example.agent';
export const OTHER_AGENT = 'com.example.other';

/** A consumer-side app that can discover tool providers (queries the discovery action). */
export function agentPackage(
  packageName = AGENT,
  cert = `${packageName}-key`,
  sharedUserId?: string,
): PackageSpec {
  return {
    manifest: {
      packageName,
      targetSdk: 34,
      queries: { intents: [{ action: TOOL_PROVIDER_ACTION }] },
      ...(sharedUserId !== undefined ? { sharedUserId } : {}),
    },
    signing: { signers: [certificate(cert)] },
  };
}

/** A world with the alerts provider and one agent app. */
export function alertsWorld(
  options: WorldOptions = {},
  providerOptions: Partial<ProviderOptions> = {},
): World {
  const world = new World({ recordContentCalls: true, ...options });
  world.install(alertsPackage(), alertsApp(providerOptions));
  world.install(agentPackage(), () => ({}));
  return world;
}

export interface ExecuteOptions {
  readonly requestId?: string;
  readonly resumeToken?: string;
  readonly deadlineAtMs?: number;
  readonly sessionToken?: string;
  readonly extra?: (b: Bundle) => void;
}

/** A hand-rolled CETP client for tests: builds Bundles and reads replies, nothing more. */
export class RawClient {
  private client: ContentProviderClient | null = null;
  token = '';

  constructor(
    readonly ctx: AppContext,
    readonly authority: string = ALERTS_AUTHORITY,
  ) {}

  async call(method: string, extras: Bundle | null): Promise<Bundle | null> {
    if (!this.client)
      this.client = await this.ctx.contentResolver.acquireUnstableContentProviderClient(this.authority);
    if (!this.client) throw new Error(`cannot acquire ${this.authority}`);
    try {
      return await this.client.call(method, null, extras);
    } catch (error) {
      this.client = null;
      throw error;
    }
  }

  async negotiate(
    capabilities: readonly string[] = ['async_operations', 'cancellation', 'large_results'],
    versions: readonly number[] = [2, 1],
  ): Promise<Bundle> {
    const b = new Bundle();
    b.putIntArray('consumer_versions', [...versions]);
    b.putString('consumer_capabilities', JSON.stringify(capabilities));
    const reply = (await this.call('negotiate', b)) as Bundle;
    if (reply.getString('status') === 'success') this.token = data(reply).session_token as string;
    return reply;
  }

  envelope(requestId = this.ctx.randomUUID(), deadlineAtMs = this.ctx.currentTimeMillis() + 30_000): Bundle {
    const b = new Bundle();
    b.putInt('protocol_version', 2);
    b.putString('session_token', this.token);
    b.putString('request_id', requestId);
    b.putLong('deadline_at_ms', deadlineAtMs);
    return b;
  }

  async method(method: string, fill?: (b: Bundle) => void, requestId?: string): Promise<Bundle> {
    const b = this.envelope(requestId);
    fill?.(b);
    return (await this.call(method, b)) as Bundle;
  }

  async execute(tool: string, args: unknown, options: ExecuteOptions = {}): Promise<Bundle> {
    const b = this.envelope(options.requestId, options.deadlineAtMs);
    if (options.sessionToken !== undefined) b.putString('session_token', options.sessionToken);
    b.putString('tool_name', tool);
    b.putString('args', typeof args === 'string' ? args : JSON.stringify(args));
    if (options.resumeToken !== undefined) b.putString('resume_token', options.resumeToken);
    options.extra?.(b);
    return (await this.call('execute_tool', b)) as Bundle;
  }

  /** Launches the resolution PendingIntent of a reply and waits for the Activity result. */
  async resolve(reply: Bundle): Promise<number> {
    const pi = reply.getPendingIntent('resolution');
    if (!pi) throw new Error('no resolution in reply');
    return (await this.ctx.startIntentSenderForResult(pi)).resultCode;
  }

  /** Executes, following AUTH_REQUIRED / USER_ACTION_REQUIRED resolutions with the same request_id. */
  async executeResolving(tool: string, args: unknown, options: ExecuteOptions = {}): Promise<Bundle> {
    const requestId = options.requestId ?? this.ctx.randomUUID();
    let reply = await this.execute(tool, args, { ...options, requestId });
    for (let i = 0; i < 4; i++) {
      const code = reply.getString('error_code');
      if (code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') return reply;
      await this.resolve(reply);
      reply = await this.execute(tool, args, {
        ...options,
        requestId,
        resumeToken: reply.getString('resume_token') ?? '',
      });
    }
    return reply;
  }
}

export function data(reply: Bundle | null): Record<string, unknown> {
  return JSON.parse(reply?.getString('data') ?? 'null') as Record<string, unknown>;
}

export function status(reply: Bundle | null): string {
  if (!reply) return 'null';
  const s = reply.getString('status');
  return s === 'error' ? `error:${reply.getString('error_code')}` : (s ?? 'none');
}

/** Runs `body` as the agent app's main thread and the world to completion. */
export async function runAgent(world: World, body: (client: RawClient) => Promise<void>, agent = AGENT) {
  let failure: unknown = null;
  world.spawnIn(agent, 'test', async (ctx) => {
    try {
      await body(new RawClient(ctx));
    } catch (error) {
      failure = error;
    }
  });
  const report = await world.run();
  if (failure) throw failure;
  return report;
}

/** Commits in the trace that carry a CETP business effect (see the SDK's effect note). */
export function effects(world: World): { uid: number; request_id: string; tool: string }[] {
  return world.trace
    .ofKind('store.commit')
    .flatMap((e) => (Array.isArray(e.data.notes) ? e.data.notes : []))
    .filter(
      (n): n is { cetp: string; uid: number; request_id: string; tool: string } =>
        typeof n === 'object' && n !== null && !Array.isArray(n) && n.cetp === 'effect',
    )
    .map((n) => ({ uid: n.uid, request_id: n.request_id, tool: n.tool }));
}
