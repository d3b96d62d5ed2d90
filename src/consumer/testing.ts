/**
 * Test helpers for the consumer: a world with the reference consumer app and any of the reference
 * providers, a runner for agent code inside the consumer's process, readers of what the consumer
 * sent on the wire (World.contentCalls) and of its audit events, and a scripted provider for
 * answers no honest provider gives. Not part of the public API. A test file imports the kit whole
 * (`import * as kit from './testing.ts'`) rather than a list of its names.
 */

import type { JsonObject, JsonValue } from '../base/json.ts';
import { sha256Hex } from '../protocol/index.ts';
import { ALERTS_PACKAGE, alertsApp, alertsPackage } from '../providers/apps/alerts.ts';
import { LEGACY_PACKAGE, legacyApp, legacyPackage } from '../providers/apps/legacy.ts';
import { PAYMENTS_PACKAGE, paymentsApp, paymentsPackage } from '../providers/apps/payments.ts';
import { READ_TOOL_ANNOTATIONS } from '../providers/hostile/payloads.ts';
import { v2Accepted as accepted, v2Success as success, v2Error } from '../providers/hostile/wire.ts';
import { CETP_PROVIDER, providerPackage } from '../providers/sdk/manifest.ts';
import type { ProviderOptions } from '../providers/sdk/types.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { ContentCallRecord } from '../sim/content/content.ts';
import type { ActivitySpec, PackageSpec } from '../sim/pm/manifest.ts';
import { LambdaProvider } from '../sim/testing.ts';
import { Activity, RESULT_OK } from '../sim/ui/activity.ts';
import { type RunReport, World, type WorldOptions } from '../sim/world.ts';
import { bridgeIn, CONSUMER_PACKAGE, type ConsumerAppOptions, consumerApp, consumerPackage } from './app.ts';
import type { ExternalToolBridge } from './bridge.ts';
import type { ToolOutcome } from './outcomes.ts';

export const CONSUMER = CONSUMER_PACKAGE;
export { ALERTS_PACKAGE, LEGACY_PACKAGE, PAYMENTS_PACKAGE };

export type ReferenceProvider = 'alerts' | 'payments' | 'legacy';

export interface ConsumerWorldOptions {
  readonly providers?: readonly ReferenceProvider[];
  readonly world?: WorldOptions;
  readonly consumer?: ConsumerAppOptions;
  readonly alerts?: Partial<ProviderOptions>;
  readonly payments?: Partial<ProviderOptions>;
}

/** A world with the consumer app and the chosen reference providers (default: all three). */
export function consumerWorld(options: ConsumerWorldOptions = {}): World {
  const world = new World({ recordContentCalls: true, ...options.world });
  for (const p of options.providers ?? ['alerts', 'payments', 'legacy']) {
    if (p === 'alerts') world.install(alertsPackage(), alertsApp(options.alerts));
    if (p === 'payments') world.install(paymentsPackage(), paymentsApp(options.payments));
    if (p === 'legacy') world.install(legacyPackage(), legacyApp());
  }
  world.install(consumerPackage(), consumerApp(options.consumer));
  return world;
}

export interface ConsumerRun<T> {
  readonly value: T;
  readonly report: RunReport;
}

/** Runs `body` on a thread of the consumer's process, then the world to its end. */
export async function runConsumer<T>(
  world: World,
  body: (bridge: ExternalToolBridge, ctx: AppContext) => Promise<T>,
  thread = 'agent',
): Promise<ConsumerRun<T>> {
  let result: { value: T } | null = null;
  let failure: unknown = null;
  world.spawnIn(CONSUMER, thread, async (ctx) => {
    try {
      result = { value: await body(bridgeIn(ctx), ctx) };
    } catch (error) {
      failure = error;
    }
  });
  const report = await world.run();
  if (failure) throw failure;
  if (result === null) throw new Error(`the consumer thread did not finish (${report.outcome.kind})`);
  return { value: (result as { value: T }).value, report };
}

/** Runs the consumer executing the scripted provider's `tools` one after another (args `{}`). */
export function executeScripted(world: World, ...tools: string[]): Promise<ConsumerRun<ToolOutcome[]>> {
  return runConsumer(world, async (bridge) => {
    const outcomes: ToolOutcome[] = [];
    for (const tool of tools) outcomes.push(await bridge.execute(SCRIPTED_PACKAGE, tool, {}));
    return outcomes;
  });
}

/** Every ContentProvider.call the consumer made, optionally to one provider package. */
export function consumerCalls(world: World, provider?: string): ContentCallRecord[] {
  return (world.contentCalls ?? []).filter(
    (c) => c.caller === CONSUMER && (provider === undefined || c.provider === provider),
  );
}

/** The consumer's audit events (trace kind app.audit), optionally of one event name. */
export function auditEvents(world: World, event?: string): JsonObject[] {
  return world.trace
    .ofKind('app.audit')
    .filter((e) => e.data.actor === CONSUMER && (event === undefined || e.data.event === event))
    .map((e) => e.data);
}

/** Business effects the world recorded (declared through AppContext.declareEffect, committed). */
export function effectNotes(world: World): { uid: number; request_id: string; tool: string }[] {
  return world.truth.effects.map((e) => ({ uid: e.callerUid, request_id: e.requestId, tool: e.tool }));
}

/** The package spec with its discovery service's meta-data replaced wholesale. */
/** A consumer world option: the user approves the next `n` prompts. */
export function approvingUser(n: number): { user: { kind: 'scripted'; decisions: 'approve'[] } } {
  return { user: { kind: 'scripted', decisions: Array<'approve'>(n).fill('approve') } };
}

/** payments.reconcile_accounts with cancellation, cancelled at its first progress report. */
export function reconcileCancelledAtProgress(bridge: ExternalToolBridge) {
  const cancel = bridge.cancellation();
  return bridge.execute(
    PAYMENTS_PACKAGE,
    'reconcile_accounts',
    {},
    { cancel, onProgress: () => cancel.cancel() },
  );
}

/** payments.transfer args from the caller's own checking account (payments accounts are per UID). */
export function transferArgs(uid: number, amount = 10, reference = 'Books') {
  return {
    from_account: `CHK-${uid}`,
    to_iban: 'DE89370400440532013000',
    amount,
    currency: 'EUR',
    reference,
  };
}

export function withMetaData(spec: PackageSpec, metaData: Record<string, string>): PackageSpec {
  const services = (spec.manifest.services ?? []).map((s) => ({ ...s, metaData }));
  return { ...spec, manifest: { ...spec.manifest, services } };
}

/** Kills `process` after `ms` of virtual time (a harness thread). */
export function killAfter(world: World, process: string, ms: number): void {
  world.spawn(`kill ${process} after ${ms}ms`, async () => {
    await world.scheduler.sleep(ms);
    world.killProcess(process, { kind: 'killed', reason: 'test' });
  });
}

/**
 * Restarts the consumer from a harness thread `name`: once `ready()` holds (asked every `pollMs`), the
 * consumer is killed and, `downMs` later, started again to resume its pending executions, whose
 * outcomes go to `resumed`.
 */
export function restartConsumer(
  world: World,
  restart: { name: string; ready: () => boolean; pollMs: number; downMs: number; resumed?: ToolOutcome[] },
): void {
  world.spawn(restart.name, async () => {
    while (!restart.ready()) await world.scheduler.sleep(restart.pollMs);
    world.killProcess(CONSUMER, { kind: 'killed', reason: 'test' });
    await world.scheduler.sleep(restart.downMs);
    world.spawnIn(CONSUMER, 'resume', async (ctx) => {
      const outcomes = await bridgeIn(ctx).resumePending();
      restart.resumed?.push(...outcomes);
    });
  });
}

// ---- a scripted provider: honest framing, scripted answers ----

export const SCRIPTED_PACKAGE = 'com.example.scripted';
export const SCRIPTED_AUTHORITY = 'com.example.scripted.clawseed.tools';
export const SCRIPTED_ACTIVITY = 'ScriptedConfirmActivity';

/** A read tool descriptor (wire form); `patch` overrides fields, `annotations` annotation fields. */
export function toolDescriptor(
  name: string,
  patch: JsonObject = {},
  annotations: JsonObject = {},
): JsonObject {
  return {
    name,
    title: `Tool ${name}`,
    description: `Scripted tool ${name}`,
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    scopes: [],
    annotations: { ...READ_TOOL_ANNOTATIONS, ...annotations },
    ...patch,
  };
}

export interface ScriptedCall {
  readonly method: string;
  readonly extras: Bundle;
  readonly context: AppContext;
  /** 1-based count of calls of this method so far. */
  readonly n: number;
  readonly requestId: string;
}

export interface ScriptedSpec {
  readonly packageName?: string;
  readonly authority?: string;
  readonly versions?: readonly number[];
  readonly metaData?: Readonly<Record<string, string>>;
  readonly providerId?: string;
  readonly capabilities?: readonly string[];
  readonly limits?: Partial<Record<string, number>>;
  readonly tools?: readonly JsonValue[];
  readonly revision?: string | ((n: number) => string);
  readonly providerInfo?: JsonObject;
  /** Answers any method; return undefined to fall back to the honest default. */
  readonly answer?: (call: ScriptedCall) => Bundle | null | undefined | Promise<Bundle | null | undefined>;
  readonly activities?: readonly ActivitySpec[];
  /** Last word on the package (e.g. meta-data without `versions`, forceQueryable, no service). */
  readonly patchPackage?: (spec: PackageSpec) => PackageSpec;
}

/** Installs a provider that frames the protocol honestly and answers as `spec.answer` says. */
export function installScripted(
  world: World,
  spec: ScriptedSpec,
): { packageName: string; authority: string } {
  const packageName = spec.packageName ?? SCRIPTED_PACKAGE;
  const authority = spec.authority ?? SCRIPTED_AUTHORITY;
  const pkg = providerPackage({
    packageName,
    authority,
    versions: spec.versions ?? [2],
    activities: [{ name: SCRIPTED_ACTIVITY, exported: false }, ...(spec.activities ?? [])],
    ...(spec.metaData ? { metaData: spec.metaData } : {}),
  });
  world.install(spec.patchPackage ? spec.patchPackage(pkg) : pkg, () => {
    const counts = new Map<string, number>();
    const provider = new LambdaProvider(async (self, method, _arg, extras) => {
      const n = (counts.get(method) ?? 0) + 1;
      counts.set(method, n);
      const ex = extras ?? new Bundle();
      const call: ScriptedCall = {
        method,
        extras: ex,
        context: self.context,
        n,
        requestId: ex.getString('request_id') ?? '',
      };
      const scripted = await spec.answer?.(call);
      if (scripted !== undefined) return scripted;
      return honestAnswer(spec, packageName, call);
    });
    return {
      providers: { [CETP_PROVIDER]: provider },
      activities: { [SCRIPTED_ACTIVITY]: () => new ApproveAtOnce() },
    };
  });
  return { packageName, authority };
}

function honestAnswer(spec: ScriptedSpec, packageName: string, call: ScriptedCall): Bundle {
  const providerId = spec.providerId ?? packageName;
  switch (call.method) {
    case 'negotiate':
      return success(null, {
        selected_version: 2,
        provider_id: providerId,
        provider_name: 'Scripted',
        session_token: `token-${call.n}`,
        capabilities: [...(spec.capabilities ?? offered(call.extras))],
        limits: {
          max_request_bytes: 65_536,
          max_inline_result_bytes: 262_144,
          max_concurrent_requests: 4,
          idempotency_window_seconds: 86_400,
          ...spec.limits,
        },
      });
    case 'get_provider_info':
      return success(
        call.requestId,
        spec.providerInfo ?? {
          provider_id: providerId,
          provider_name: 'Scripted',
          description: 'A scripted provider',
          scopes: [],
        },
      );
    case 'list_tools': {
      const revision =
        typeof spec.revision === 'function' ? spec.revision(call.n) : (spec.revision ?? 'rev-1');
      return success(call.requestId, { revision, tools: [...(spec.tools ?? [toolDescriptor('lookup')])] });
    }
    case 'execute_tool':
      return success(call.requestId, { kind: 'inline', value: {} });
    default:
      return errorReply(call.requestId, 'METHOD_NOT_FOUND', { retryable: false });
  }
}

function offered(extras: Bundle): string[] {
  try {
    return JSON.parse(extras.getString('consumer_capabilities') ?? '[]') as string[];
  } catch {
    return [];
  }
}

/** Replies of a scripted provider: the hostile providers' wire helpers (src/providers/hostile/wire.ts). */
export { accepted, success };

export interface ErrorInit {
  readonly retryable: boolean;
  readonly message?: string;
  readonly retryAfterMs?: number;
  readonly details?: JsonValue;
  readonly resumeToken?: string;
}

/** An error reply written as given (it may break §5: that is the point of scripting it). */
export function errorReply(requestId: string, code: string, init: ErrorInit): Bundle {
  return v2Error(requestId, { ...init, code, message: init.message ?? 'Scripted error.' });
}

/** The scripted provider's own confirmation screen: finishes at once with RESULT_OK. */
class ApproveAtOnce extends Activity {
  override onCreate(): void {
    this.setResult(RESULT_OK);
    this.finish();
  }
}

/** A scripted file result: `content` served, `declare` overriding what data says. */
export function fileReply(
  c: ScriptedCall,
  content: JsonValue,
  declare: { size_bytes?: number; sha256?: string } = {},
) {
  return rawFileReply(c, new TextEncoder().encode(JSON.stringify(content)), declare);
}

/** A scripted file result of exactly these bytes. */
export function rawFileReply(
  c: ScriptedCall,
  bytes: Uint8Array,
  declare: { size_bytes?: number; sha256?: string } = {},
) {
  const path = `r-${c.n}.json`;
  c.context.writeFile(path, bytes);
  const fd = c.context.openFile(path, 'r');
  c.context.spawn('close', async () => {
    await c.context.yield();
    fd.close();
  });
  const reply = success(c.requestId, {
    kind: 'file',
    media_type: 'application/json',
    size_bytes: bytes.length,
    sha256: sha256Hex(bytes),
    ...declare,
  });
  reply.putParcelFileDescriptor('result_fd', fd);
  return reply;
}
