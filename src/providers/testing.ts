/**
 * Test helpers for providers: a world with provider apps and a bare "agent" app, and a raw CETP
 * client that speaks the wire by hand (Bundles over simulated Binder), so provider tests exercise
 * exactly what a device would — never the provider's methods directly. A test file imports the kit
 * whole (`import * as kit from '../testing.ts'`) rather than a list of its names.
 */

import type { JsonObject, JsonValue } from '../base/json.ts';
import type { AppFactory } from '../sim/app/app.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { ContentProviderClient } from '../sim/content/content.ts';
import type { PackageSpec } from '../sim/pm/manifest.ts';
import { certificate } from '../sim/pm/signing.ts';
import type { StoreTransaction } from '../sim/storage/storage.ts';
import type { UserDecision } from '../sim/ui/user.ts';
import { World, type WorldOptions } from '../sim/world.ts';
import { ALERTS_AUTHORITY, alertsApp, alertsPackage } from './apps/alerts.ts';
import { CONFIRM_ACTIVITY } from './sdk/confirmations.ts';
import { CETP_PROVIDER, providerPackage, TOOL_PROVIDER_ACTION } from './sdk/manifest.ts';
import { CetpV2ContentProvider, type ProviderConfig } from './sdk/provider.ts';
import {
  type AccessDecision,
  type AuthorizationRequest,
  type CetpProviderDescriptor,
  durableMutationExecutor,
  type MutationExecutor,
  type MutationTool,
  type ProviderOptions,
  type ProviderTool,
  type ReadTool,
  type ToolAnnotations,
  type ToolCall,
} from './sdk/types.ts';

export const AGENT = 'com.example.agent';
export const OTHER_AGENT = 'com.example.other';

/**
 * A consumer-side app that can discover tool providers (queries the discovery action). It targets
 * 34, like the reference consumer: every launcher of a resolution using it (RawClient here, the raw
 * driver in src/fuzz/scenario/driver.ts, the vectors runner in src/vectors/engine.ts) passes
 * Android 14's sender opt-in for background activity starts
 * (setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED); activity.ts).
 */
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

  envelope(requestId = this.ctx.seededUuid(), deadlineAtMs = this.ctx.currentTimeMillis() + 30_000): Bundle {
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
    return (
      await this.ctx.startIntentSenderForResult(pi, null, 0, {
        pendingIntentBackgroundActivityStartAllowed: true,
      })
    ).resultCode;
  }

  /** Executes, following AUTH_REQUIRED / USER_ACTION_REQUIRED resolutions with the same request_id. */
  async executeResolving(tool: string, args: unknown, options: ExecuteOptions = {}): Promise<Bundle> {
    const requestId = options.requestId ?? this.ctx.seededUuid();
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

/** Business effects the world recorded (declared through AppContext.declareEffect, committed). */
export function effects(world: World): { uid: number; request_id: string; tool: string }[] {
  return world.truth.effects.map((e) => ({ uid: e.callerUid, request_id: e.requestId, tool: e.tool }));
}

export const TEST_PACKAGE = 'com.example.test';

/** Committed rows of a table of the test provider, read after a run. */
export function testProviderRows(world: World, table: string): Record<string, unknown>[] {
  return [...world.storage(TEST_PACKAGE).snapshot(table).values()] as Record<string, unknown>[];
}

/** The test provider's audit events (its audit sink is the trace), without the trace's own fields. */
export function audits(world: World): JsonObject[] {
  return world.trace
    .ofKind('app.audit')
    .filter((e) => e.data.provider === TEST_PACKAGE)
    .map((e) => {
      const { tool, request_id, authorization, confirmation, outcome } = e.data as JsonObject;
      return { tool, request_id, authorization, confirmation, outcome } as JsonObject;
    });
}

/** The errors the SDK logged (tag CetpProvider, level E): an exception it caught in app code. */
export function providerErrors(world: World): string[] {
  return world.trace
    .ofKind('log')
    .filter((l) => l.data.tag === 'CetpProvider' && l.data.level === 'E')
    .map((l) => String(l.data.message));
}

/** Annotations of a sync write tool that always asks the user's confirmation. */
export const ALWAYS_CONFIRM = {
  effect: 'create',
  risk: 'high',
  destructive: false,
  idempotent: false,
  openWorld: false,
  confirmation: 'always',
  execution: 'sync',
} as const;
export const TEST_AUTHORITY = 'com.example.test.clawseed.tools';

export interface TestProviderSpec {
  readonly tools: readonly ProviderTool[];
  readonly descriptor?: Partial<CetpProviderDescriptor>;
  readonly options?: ProviderConfig['options'];
  /** The app's policy; default: allow everything. */
  readonly authorize?: (request: AuthorizationRequest) => AccessDecision | Promise<AccessDecision>;
  /** Default: the durable executor; null = none (write tools are refused, 10-05). */
  readonly executor?: null | ((context: AppContext) => MutationExecutor);
  readonly versions?: readonly number[];
  /** Use the SDK's default authorization (deny everything, 10-01). */
  readonly sdkDefaultAuthorization?: boolean;
}

/** The test provider: `spec` says its tools, descriptor, policy and executor (vectors/fixture-kit.ts builds on it too). */
export class TestToolProvider extends CetpV2ContentProvider {
  constructor(private readonly spec: TestProviderSpec) {
    super();
  }
  protected override config(): ProviderConfig {
    return {
      descriptor: {
        providerId: TEST_PACKAGE,
        providerName: 'Test Provider',
        description: 'A provider assembled by a test',
        scopes: [
          { name: 'test.read', description: 'Read test data', access: 'read', sensitivity: 'personal' },
          { name: 'test.write', description: 'Change test data', access: 'write', sensitivity: 'personal' },
        ],
        ...this.spec.descriptor,
      },
      tools: this.spec.tools,
      options: { versions: this.spec.versions ?? [1, 2], ...this.spec.options },
    };
  }
  protected override mutationExecutor(): MutationExecutor | null {
    if (this.spec.executor === null) return null;
    return (this.spec.executor ?? durableMutationExecutor)(this.context);
  }
  protected override authorize(request: AuthorizationRequest): AccessDecision | Promise<AccessDecision> {
    if (this.spec.sdkDefaultAuthorization) return super.authorize(request);
    return this.spec.authorize ? this.spec.authorize(request) : { kind: 'allow' };
  }
}

function testProviderPackage(spec: TestProviderSpec): PackageSpec {
  return providerPackage({
    packageName: TEST_PACKAGE,
    authority: TEST_AUTHORITY,
    versions: spec.versions ?? [1, 2],
  });
}

function testProviderApp(spec: TestProviderSpec): AppFactory {
  return () => {
    const provider = new TestToolProvider(spec);
    return {
      providers: { [CETP_PROVIDER]: provider },
      activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
    };
  };
}

/** A world with a provider assembled from `spec` (package TEST_PACKAGE) and the agent app. */
export function testProviderWorld(spec: TestProviderSpec, options: WorldOptions = {}): World {
  const world = new World({ recordContentCalls: true, ...options });
  world.install(testProviderPackage(spec), testProviderApp(spec));
  world.install(agentPackage(), () => ({}));
  return world;
}

/** World options with a scripted user who answers the confirmation screens with `decisions`, in order. */
export function userDecides(...decisions: UserDecision[]): WorldOptions {
  return { user: { kind: 'scripted', decisions } };
}

/** The test provider with one always-confirmed write tool `w`, and a user who answers `decisions`. */
export function confirmedWriteWorld(...decisions: UserDecision[]): World {
  return testProviderWorld(
    { tools: [writeTool('w', { annotations: ALWAYS_CONFIRM })] },
    userDecides(...decisions),
  );
}

/** An update of the test provider to the app `spec` (same signer); its durable store is kept. */
export function updateTestProvider(world: World, spec: TestProviderSpec): void {
  world.update(testProviderPackage(spec), testProviderApp(spec));
}

/**
 * From a client thread of a running world (`waiting` is its context): runs `body` as one transaction
 * on the test provider's own durable store, in the provider's process, and waits until it committed.
 * How a test stages what another app version, a restore from backup or a corrupted file left there.
 */
export async function stageProviderStore(
  world: World,
  waiting: AppContext,
  body: (tx: StoreTransaction) => Promise<void>,
): Promise<void> {
  const staged: { done: boolean; failure: unknown } = { done: false, failure: null };
  world.spawnIn(TEST_PACKAGE, 'test-store', async (ctx) => {
    try {
      await ctx.storage.transaction('test: stage the store', body);
    } catch (error) {
      staged.failure = error;
    } finally {
      staged.done = true;
    }
  });
  for (let waitedMs = 0; !staged.done; waitedMs++) {
    if (waitedMs === 60_000) throw new Error('the test provider did not stage its store within 60 s');
    await waiting.sleep(1);
  }
  if (staged.failure) throw staged.failure;
}

/** Runs `body` with a RawClient on the test provider. */
export function runOnTest(world: World, body: (client: RawClient) => Promise<void>, agent = AGENT) {
  return runAgentOn(world, TEST_AUTHORITY, body, agent);
}

/** runOnTest after a plain negotiate: how most tests of a negotiated session open. */
export function runNegotiated(world: World, body: (client: RawClient) => Promise<void>, agent = AGENT) {
  return runOnTest(
    world,
    async (c) => {
      await c.negotiate();
      await body(c);
    },
    agent,
  );
}

/** runNegotiated with one seeded request id (drawn after the negotiate): how most execute tests open. */
export function runRequest(
  world: World,
  body: (client: RawClient, requestId: string) => Promise<void>,
  agent = AGENT,
) {
  return runNegotiated(world, async (c) => body(c, c.ctx.seededUuid()), agent);
}

export async function runAgentOn(
  world: World,
  authority: string,
  body: (client: RawClient) => Promise<void>,
  agent = AGENT,
) {
  let failure: unknown = null;
  world.spawnIn(agent, 'test', async (ctx) => {
    try {
      await body(new RawClient(ctx, authority));
    } catch (error) {
      failure = error;
    }
  });
  const report = await world.run();
  if (failure) throw failure;
  return report;
}

/** A test tool's annotations: a low-risk sync create that never asks confirmation, with `over` on top. */
export function annotations<O extends Partial<ToolAnnotations> = Record<never, never>>(
  over: O = {} as O,
): ToolAnnotations & O {
  return {
    effect: 'create',
    risk: 'low',
    destructive: false,
    idempotent: false,
    openWorld: false,
    confirmation: 'never',
    execution: 'sync',
    ...over,
  } as ToolAnnotations & O;
}

/** A read tool returning `value(args)`; output schema accepts any object unless given. */
export function readTool(
  name: string,
  value: (call: ToolCall) => JsonValue,
  extra: Partial<ReadTool> = {},
): ReadTool {
  return {
    name,
    title: name,
    description: `Test read tool ${name}`,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    scopes: [],
    annotations: annotations({ effect: 'read' }),
    read: async (call) => value(call),
    ...extra,
  };
}

/** A write tool that records one row per execution in table `rows` (keyed by a counter). */
export function writeTool(name: string, extra: Partial<MutationTool> = {}): MutationTool {
  return {
    name,
    title: name,
    description: `Test write tool ${name}`,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { row: { type: 'integer' } }, required: ['row'] },
    scopes: [],
    annotations: annotations(),
    describeForConfirmation: (call) => ({
      object: `row for ${JSON.stringify(call.args)}`,
      action: `Run ${name}`,
      parameters: [['args', JSON.stringify(call.args)]],
      irreversible: 'The row cannot be removed.',
    }),
    mutate: async (_call, tx) => {
      const n = (((await tx.get('rows.meta', 'n')) as number | undefined) ?? 0) + 1;
      await tx.put('rows.meta', 'n', n);
      await tx.put('rows', String(n), n);
      return { row: n };
    },
    ...extra,
  };
}
