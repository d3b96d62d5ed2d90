/**
 * CetpV2ContentProvider — the provider SDK base class (spec §10). A provider app extends it and
 * supplies its descriptor and scope catalogue, its tools, an authorization policy (default deny,
 * 10-01) and a mutation executor (10-06); the base owns the protocol over simulated Binder:
 *
 * - call() captures Binder.getCallingUid() synchronously before anything else (7.1-01);
 * - dual stack: no protocol_version ⇒ v1 on a dual-stack provider (4-09), UNSUPPORTED_VERSION on a
 *   v2-only one (2.2-16); protocol_version must be 2 (4-08);
 * - negotiate (§2.2), get_provider_info (§3.2), list_tools (§3.3), execute_tool (execute/),
 *   get_operation / cancel_operation (operations.ts), METHOD_NOT_FOUND otherwise (4-07);
 * - the §4.1 envelope on every v2 method but negotiate, then the session (2.2-14), then the
 *   capability the method needs (2.3-02, 5-06);
 * - RATE_LIMITED past max_concurrent_requests in-flight execute_tool calls per UID (5-17);
 * - descriptors validated at start-up (catalogue.ts); operations recovered after a restart;
 * - planted bugs (the fuzzer's mutants) substitute named parts at start-up (planted.ts).
 */
import {
  classifyProtocolVersion,
  type ExecuteToolRequest,
  echoedRequestId,
  type ListToolsResponse,
  type NegotiateResponse,
  type OperationRequest,
  type Received,
  readEnvelope,
  selectCapabilities,
  selectVersion,
  sha256Hex,
  V2_METHODS,
  type V2Envelope,
  type V2MethodName,
} from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { ContentProvider } from '../../sim/content/content-provider.ts';
import { isoInstant } from '../../sim/core/clock.ts';
import { buildCatalogue, providerInfo, toolDescriptor, visibleTo } from './catalogue.ts';
import { CetpConfirmActivity } from './confirmations.ts';
import { executeTool } from './execute/index.ts';
import { Gates } from './gates.ts';
import { CallerResolver, identityFingerprint } from './identity.ts';
import { cancelOperation, getOperation, recoverOperations } from './operations.ts';
import { assertProviderOptions } from './options-check.ts';
import { REFERENCE_PARTS } from './parts.ts';
import { plantBugs } from './planted.ts';
import { applyReadings } from './readings.ts';
import { errorBundle, successBundle } from './responses.ts';
import type { Runtime } from './runtime.ts';
import { type Session, SessionTable } from './sessions.ts';
import {
  type AccessDecision,
  type AuthorizationRequest,
  type CallerIdentity,
  type CetpProviderDescriptor,
  DEFAULT_PROVIDER_OPTIONS,
  type MutationExecutor,
  type ProviderOptions,
  type ProviderTool,
} from './types.ts';
import { handleV1 } from './v1.ts';

export interface ProviderConfig {
  readonly descriptor: CetpProviderDescriptor;
  readonly tools: readonly ProviderTool[];
  readonly options?: Partial<Omit<ProviderOptions, 'limits' | 'variants'>> & {
    readonly limits?: Partial<ProviderOptions['limits']>;
    readonly variants?: Partial<ProviderOptions['variants']>;
  };
}

/** The method and request id an error Bundle echoes. */
function echoOf(method: V2MethodName, requestId: string): { method: V2MethodName; requestId: string } {
  return { method, requestId };
}

export abstract class CetpV2ContentProvider extends ContentProvider {
  private runtime: Runtime | null = null;
  private callers: CallerResolver | null = null;

  /** The app's descriptor, tools and options. */
  protected abstract config(): ProviderConfig;

  /** The app's atomic boundary for write tools (10-06); null refuses every write tool (10-05). */
  protected mutationExecutor(): MutationExecutor | null {
    return null;
  }

  /** The app's authorization policy. The SDK default denies everything (10-01). */
  protected authorize(_request: AuthorizationRequest): AccessDecision | Promise<AccessDecision> {
    return { kind: 'deny', reason: 'This app is not allowed to use these tools.' };
  }

  /** The confirmation Activity to register under CONFIRM_ACTIVITY in the app's activities. */
  static confirmationActivity(provider: () => CetpV2ContentProvider): () => CetpConfirmActivity {
    return () => {
      const rt = provider().runtime;
      return new CetpConfirmActivity({
        providerName: rt?.descriptor.providerName ?? 'Provider',
        scopeCatalogue: rt?.descriptor.scopes ?? [],
        grantTtlMs: 30 * 24 * 3_600_000,
      });
    };
  }

  override onCreate(): void {
    const config = this.config();
    // Options below their floors would fail every negotiate later, silently (issue 30): refuse now.
    assertProviderOptions(`provider ${this.context.packageName}: options`, config.options);
    const base = DEFAULT_PROVIDER_OPTIONS;
    // Object.assign rather than spreads: same result without V8's slow spread path (Node 20).
    const options: ProviderOptions = Object.assign({}, base, config.options, {
      limits: Object.assign({}, base.limits, config.options?.limits),
      variants: Object.assign({}, base.variants, config.options?.variants),
    });
    const gates = new Gates(options.disabledRules);
    const parts = plantBugs(applyReadings(REFERENCE_PARTS, options.variants), options.plantedBugs);
    const executor = this.mutationExecutor();
    const catalogue = buildCatalogue(
      config.descriptor,
      this.context.packageName,
      config.tools,
      executor !== null,
      gates,
    );
    for (const i of catalogue.providerIssues) {
      this.context.log('E', 'CetpProvider', `provider descriptor: ${i.message}`);
    }
    for (const d of catalogue.disabled) {
      this.context.log(
        'E',
        'CetpProvider',
        `tool ${d.name} disabled: ${d.issues.map((i) => i.message).join('; ')}`,
      );
    }
    const provider = this;
    this.runtime = {
      context: this.context,
      descriptor: config.descriptor,
      catalogue,
      options,
      gates,
      parts,
      sessions: new SessionTable(this.context, gates, parts.sessionOwnedBy),
      executor,
      async authorize(request) {
        return provider.authorize(request);
      },
      inFlight: new Map(),
      workers: new Map(),
      memoryOperations: new Map(),
    };
    const rt = this.runtime;
    this.context.spawn('cetp-recovery', () => recoverOperations(rt));
  }

  /**
   * The planted bugs this instance runs with (null before onCreate): whether the app passed a run's
   * variant through, which `--mutant` against a user's provider needs (src/check/fixture.ts).
   */
  plantedBugs(): ReadonlySet<string> | null {
    return this.runtime?.options.plantedBugs ?? null;
  }

  /** Drops every session (the "expire sessions" fault; a capability change, 2.3-06). */
  expireSessions(): void {
    this.runtime?.sessions.clear();
  }

  /**
   * Work an app does after an execution's reply is built and before call() returns it (a disk flush,
   * a metrics upload). The SDK runs it while the execution still holds its admission slot: the
   * Binder thread is still busy, and max_concurrent_requests counts a call in flight until it
   * returns (5-17; src/check/checkers/admission.ts). Override this rather than wrapping call(),
   * whose tail would run after the slot is freed and admit one execution too many. Unset (the
   * default), nothing is awaited.
   */
  protected replyTail?(reply: Bundle): Promise<void>;

  override call(
    _authority: string,
    method: string,
    _arg: string | null,
    extras: Bundle | null,
  ): Promise<Bundle> {
    const rt = this.requireRuntime();
    // The calling UID is read first, before any await (7.1-01): rt.parts.enter.
    return rt.parts.enter(this.context, (uid) => this.dispatch(rt, uid, method, extras ?? new Bundle()));
  }

  private requireRuntime(): Runtime {
    if (!this.runtime) throw new Error('CetpV2ContentProvider used before onCreate');
    return this.runtime;
  }

  private async dispatch(rt: Runtime, uid: number, method: string, extras: Bundle): Promise<Bundle> {
    this.callers ??= new CallerResolver(this.context);
    const caller = this.callers.resolve(uid);
    // What an error echoes before the envelope is read; past it, the envelope's request_id.
    const rawRequestId = echoedRequestId(extras);
    if (rt.catalogue.providerIssues.some((i) => i.ruleIds.length === 0 || rt.gates.on(...i.ruleIds))) {
      // A misconfigured descriptor (provider_id outside the package, bad scope catalogue): no v2 service.
      if (classifyProtocolVersion(extras).kind !== 'absent' || method === 'negotiate') {
        return errorBundle(
          echoOf(method === 'negotiate' ? 'negotiate' : 'list_tools', rawRequestId),
          'INTERNAL_ERROR',
          {
            retryable: false,
            message: 'This provider is misconfigured and cannot serve CETP v2.',
          },
        );
      }
    }
    if (method === 'negotiate') return this.negotiate(rt, caller, extras);
    const version = classifyProtocolVersion(extras);
    if (version.kind === 'absent') {
      if (rt.options.versions.includes(1) && rt.gates.on('CETP-4-09'))
        return handleV1(rt, caller, method, extras);
      return errorBundle(echoOf('list_tools', rawRequestId), 'UNSUPPORTED_VERSION', {
        message: 'This provider speaks CETP v2 only; send protocol_version=2.',
      });
    }
    if (!(method in V2_METHODS) || method === 'negotiate') {
      return errorBundle(echoOf('list_tools', rawRequestId), 'METHOD_NOT_FOUND');
    }
    const m = method as V2MethodName;
    if (version.kind === 'wrong_type') {
      return errorBundle(echoOf(m, rawRequestId), 'INVALID_REQUEST', {
        message: 'protocol_version must be an Int.',
      });
    }
    if (version.version !== 2) return errorBundle(echoOf(m, rawRequestId), 'UNSUPPORTED_VERSION');
    if (extras.typeOf('session_token') !== 'String' || extras.getString('session_token') === '') {
      // A missing session is NEGOTIATION_REQUIRED (5-07), not a malformed envelope.
      if (rt.gates.on('CETP-2.2-14', 'CETP-5-07'))
        return errorBundle(echoOf(m, rawRequestId), 'NEGOTIATION_REQUIRED');
    }
    const read = readEnvelope(extras, m);
    if (!read.ok) {
      const first = read.issues[0];
      if (m === 'execute_tool' && read.issues.every((i) => i.path === 'args' && i.code !== 'missing_key')) {
        // args that are present but not JSON are bad arguments, not a bad envelope.
        return errorBundle(echoOf(m, rawRequestId), 'INVALID_ARGS', {
          message: 'The arguments are not valid JSON.',
        });
      }
      return errorBundle(echoOf(m, rawRequestId), 'INVALID_REQUEST', {
        message: `Malformed request${first?.path ? ` (${first.path})` : ''}.`,
      });
    }
    const envelope = read.value as V2Envelope;
    const checked = rt.sessions.check(envelope.sessionToken ?? null, uid, identityFingerprint(caller));
    if (!checked.ok && rt.gates.on('CETP-2.2-14', 'CETP-10-04')) {
      if (checked.reason === 'foreign_uid' && rt.options.variants.sessionMisuse === 'invalid_request') {
        return errorBundle(echoOf(m, rawRequestId), 'INVALID_REQUEST', {
          message: 'The session token belongs to another caller.',
        });
      }
      return errorBundle(echoOf(m, rawRequestId), 'NEGOTIATION_REQUIRED');
    }
    const session = checked.ok ? checked.session : this.anySession(rt, uid);
    const needed = V2_METHODS[m].requires;
    if (
      needed !== 'core' &&
      rt.gates.on('CETP-2.3-02', 'CETP-5-06') &&
      !session.capabilities.includes(needed)
    ) {
      return errorBundle(echoOf(m, rawRequestId), 'UNSUPPORTED_CAPABILITY', {
        message: `${method} needs ${needed}, not negotiated.`,
      });
    }
    switch (m) {
      case 'get_provider_info':
        return successBundle({ method: m, requestId: envelope.requestId }, providerInfo(rt.descriptor));
      case 'list_tools':
        return successBundle(
          { method: m, requestId: envelope.requestId },
          await this.listTools(rt, caller, session),
        );
      case 'execute_tool':
        return this.executeLimited(rt, caller, session, read.value as Received<ExecuteToolRequest>, extras);
      case 'get_operation':
        return getOperation(rt, caller, session, read.value as Received<OperationRequest>);
      case 'cancel_operation':
        return cancelOperation(rt, caller, read.value as Received<OperationRequest>);
      default:
        return errorBundle(echoOf(m, rawRequestId), 'METHOD_NOT_FOUND');
    }
  }

  /** max_concurrent_requests per UID (5-17, NOTES 17): rejected before reservation, not recorded. */
  private async executeLimited(
    rt: Runtime,
    caller: CallerIdentity,
    session: Session,
    req: Received<ExecuteToolRequest>,
    extras: Bundle,
  ): Promise<Bundle> {
    const inFlight = rt.inFlight.get(caller.uid) ?? 0;
    if (rt.gates.on('CETP-5-17') && inFlight >= session.limits.maxConcurrentRequests) {
      return errorBundle(
        { method: 'execute_tool', requestId: req.requestId },
        'RATE_LIMITED',
        rt.parts.rateLimited(),
      );
    }
    rt.inFlight.set(caller.uid, inFlight + 1);
    try {
      const reply = await executeTool(rt, caller, session, req, extras);
      if (this.replyTail) await this.replyTail(reply);
      return reply;
    } finally {
      rt.inFlight.set(caller.uid, (rt.inFlight.get(caller.uid) ?? 1) - 1);
    }
  }

  private negotiate(rt: Runtime, caller: CallerIdentity, extras: Bundle): Bundle {
    const echo = { method: 'negotiate' as const, requestId: null };
    const read = readEnvelope(extras, 'negotiate');
    if (!read.ok) {
      return errorBundle(echo, 'INVALID_REQUEST', {
        message:
          'negotiate needs consumer_versions (int[], descending) and consumer_capabilities (JSON array).',
      });
    }
    const v2 = rt.options.versions.filter((v) => v >= 2);
    const version = selectVersion(read.value.consumerVersions, v2);
    if (version === null && rt.gates.on('CETP-2.2-15')) {
      return errorBundle(echo, 'UNSUPPORTED_VERSION', {
        message: `No common protocol version; this provider supports ${rt.options.versions.join(', ')}.`,
      });
    }
    const capabilities = rt.gates.on('CETP-2.2-06')
      ? selectCapabilities(read.value.consumerCapabilities, rt.options.capabilities)
      : [...rt.options.capabilities];
    const limits = rt.options.limits;
    const now = rt.context.currentTimeMillis();
    const session = rt.sessions.open({
      uid: caller.uid,
      identity: identityFingerprint(caller),
      version: 2,
      capabilities,
      limits,
      expiresAtMs: now + rt.options.sessionTtlMs,
    });
    const data: NegotiateResponse = {
      selected_version: 2,
      provider_id: rt.descriptor.providerId,
      provider_name: rt.descriptor.providerName,
      session_token: session.token,
      expires_at: isoInstant(session.expiresAtMs),
      capabilities,
      limits: {
        max_request_bytes: limits.maxRequestBytes,
        max_inline_result_bytes: limits.maxInlineResultBytes,
        max_concurrent_requests: limits.maxConcurrentRequests,
        idempotency_window_seconds: limits.idempotencyWindowSeconds,
      },
    } as NegotiateResponse;
    return successBundle({ method: 'negotiate', requestId: null }, data);
  }

  /** The tools this caller may discover, rendered for the session; revision digests exactly that (NOTES 13). */
  private async listTools(rt: Runtime, caller: CallerIdentity, session: Session): Promise<ListToolsResponse> {
    const tools = [];
    for (const c of rt.catalogue.tools.values()) {
      // Only an asynchronous visibility policy costs an await (the others answer as before).
      const visible = visibleTo(c.tool, caller, rt.context, rt.gates);
      if (visible instanceof Promise ? await visible : visible)
        tools.push(toolDescriptor(c.tool, session.capabilities));
    }
    const revision = `tools-${sha256Hex(JSON.stringify(tools)).slice(0, 16)}`;
    return { revision, tools } as ListToolsResponse;
  }

  /** With the session rules ablated, calls run under a permissive stand-in session. */
  private anySession(rt: Runtime, uid: number): Session {
    return {
      token: '',
      uid,
      identity: '',
      version: 2,
      capabilities: rt.options.capabilities,
      limits: rt.options.limits,
      expiresAtMs: Number.MAX_SAFE_INTEGER,
    };
  }
}
