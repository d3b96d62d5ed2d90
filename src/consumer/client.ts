/**
 * CetpClient — the consumer's connection to ONE v2 provider (spec §2.2, §3, §4.1).
 *
 * Lifecycle, as a tagged union: idle → ready {session, details, tools} on a successful negotiate;
 * unavailable {until} after a transient failure (Binder death, UNAVAILABLE, RATE_LIMITED: tried
 * again later); disabled {reason} after a definitive one (a refusal, an invalid answer, a failed
 * security check) for the rest of the consumer process's life — never downgraded to v1 (8-03, 8-08,
 * 8-09).
 *
 * - negotiate is the first v2 call (2.2-01); after EVERY negotiation the client reads provider info
 *   and list_tools before any tool is executed (3.3-05); descriptors are re-used when the revision
 *   is unchanged (3.3-04).
 * - every other call carries the 4.1 envelope: protocol_version=2, the current session_token, a
 *   request_id and a fresh deadline_at_ms (2.2-13, 3.3-01, 3.3-02, 4.1-01 … 4.1-05).
 * - a read (provider info, list_tools) has a new request_id, kept across its own retries (4.1-12,
 *   4.1-13).
 * - optional methods are never sent unless negotiated (2.3-04, 4-05, 4-06, 8-06).
 */
import { type Capability, V2_METHODS, type V2MethodName, writeRequest } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { Waiter } from '../sim/core/scheduler.ts';
import { type AttemptReason, recordAudit } from './audit.ts';
import {
  type ConsumerTool,
  type ProviderDetails,
  readProviderDetails,
  readToolList,
  type ToolCatalogue,
} from './catalogue.ts';
import type { DiscoveredProvider } from './discovery.ts';
import type { ExecutionJournal } from './journal.ts';
import type { ConsumerConfig } from './options.ts';
import { readV2 } from './reads.ts';
import { decideTransportRetry } from './retry.ts';
import { type NegotiationFailure, negotiate, type Session } from './session.ts';
import { type CallOutcome, ProviderChannel } from './transport.ts';

export type ClientState =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'ready';
      readonly session: Session;
      readonly details: ProviderDetails;
      readonly catalogue: ToolCatalogue;
    }
  | {
      readonly kind: 'unavailable';
      readonly reason: string;
      /** Not asked again by a listing before this (wall ms). */
      readonly untilMs: number;
      /** The provider's own retry_after_ms, as a wall-clock time (0 when it named none). */
      readonly retryAfterUntilMs: number;
    }
  | { readonly kind: 'disabled'; readonly reason: string };

export type ConnectResult =
  | { readonly ok: true; readonly session: Session }
  | {
      readonly ok: false;
      readonly temporary: boolean;
      readonly reason: string;
      readonly retryAfterMs?: number;
    };

export interface AttemptInfo {
  readonly executionId: string;
  readonly reason: AttemptReason;
}

export interface SendOptions {
  readonly requestId: string;
  readonly fill?: (extras: Bundle) => void;
  readonly attempt?: AttemptInfo;
}

/** An unavailable provider is not asked again for this long unless it named a retry_after_ms. */
const UNAVAILABLE_BACKOFF_MS = 5_000;

export class CetpClient {
  readonly channel: ProviderChannel;
  private stateValue: ClientState = { kind: 'idle' };
  private generation = 0;
  private connectWaiters: Waiter<ConnectResult>[] | null = null;
  private attemptCounts = new Map<string, number>();
  private cachedCatalogue: ToolCatalogue | null = null;

  constructor(
    readonly context: AppContext,
    readonly provider: DiscoveredProvider,
    readonly config: ConsumerConfig,
    readonly journal: ExecutionJournal,
  ) {
    this.channel = new ProviderChannel(context, provider.authority, config);
  }

  get state(): ClientState {
    return this.stateValue;
  }

  get providerId(): string | null {
    return this.stateValue.kind === 'ready' ? this.stateValue.session.providerId : null;
  }

  get session(): Session | null {
    return this.stateValue.kind === 'ready' ? this.stateValue.session : null;
  }

  get details(): ProviderDetails | null {
    return this.stateValue.kind === 'ready' ? this.stateValue.details : null;
  }

  tools(): ConsumerTool[] {
    return this.stateValue.kind === 'ready' ? [...this.stateValue.catalogue.tools.values()] : [];
  }

  tool(name: string): ConsumerTool | undefined {
    return this.stateValue.kind === 'ready' ? this.stateValue.catalogue.tools.get(name) : undefined;
  }

  get catalogue(): ToolCatalogue | null {
    return this.stateValue.kind === 'ready' ? this.stateValue.catalogue : null;
  }

  /**
   * Makes the client ready (negotiate, provider info, list_tools), once at a time. A provider that
   * was temporarily unavailable is not asked again before its back-off ends, unless `force` (an
   * execution already under way, whose own retry policy paces it).
   */
  async connect(force = false): Promise<ConnectResult> {
    const state = this.stateValue;
    if (state.kind === 'ready') return { ok: true, session: state.session };
    if (state.kind === 'disabled') return { ok: false, temporary: false, reason: state.reason };
    if (state.kind === 'unavailable' && !force && this.context.currentTimeMillis() < state.untilMs) {
      return { ok: false, temporary: true, reason: state.reason };
    }
    if (this.connectWaiters !== null) {
      const waiter = this.context.waiter<ConnectResult>(`connect to ${this.provider.packageName}`);
      this.connectWaiters.push(waiter);
      return waiter.wait();
    }
    this.connectWaiters = [];
    let result: ConnectResult = { ok: false, temporary: true, reason: 'aborted' };
    try {
      result = await this.negotiateAndList();
    } finally {
      const waiting = this.connectWaiters ?? [];
      this.connectWaiters = null;
      for (const w of waiting) w.wake(result);
    }
    return result;
  }

  /**
   * NEGOTIATION_REQUIRED answered a call made with `stale`: negotiate again (once for everyone who
   * saw the same stale session) and re-read the tool list (3.3-05).
   */
  async renegotiate(stale: Session): Promise<ConnectResult> {
    const state = this.stateValue;
    if (state.kind === 'ready' && state.session.generation === stale.generation)
      this.stateValue = { kind: 'idle' };
    return this.connectPatiently();
  }

  /**
   * connect(), retrying transient failures (Binder death, UNAVAILABLE, RATE_LIMITED) a bounded
   * number of times with backoff and retry_after_ms — for an execution that is already wanted.
   */
  async connectPatiently(): Promise<ConnectResult> {
    for (let retries = 0; ; retries++) {
      const state = this.stateValue;
      if (state.kind === 'unavailable') {
        // Honour the provider's retry_after_ms (5-27), unless it is beyond our patience.
        const wait = state.retryAfterUntilMs - this.context.currentTimeMillis();
        if (wait > this.config.retry.maxRetryAfterMs) {
          return { ok: false, temporary: true, reason: state.reason, retryAfterMs: wait };
        }
        if (wait > 0) await this.context.sleep(wait);
      }
      const result = await this.connect(true);
      if (result.ok || !result.temporary) return result;
      const decision = decideTransportRetry(retries, this.config);
      if (!decision.retry) return result;
      const after = result.retryAfterMs ?? 0;
      if (after > this.config.retry.maxRetryAfterMs) return result;
      if (after === 0) await this.context.sleep(decision.delayMs);
    }
  }

  /** Sends one v2 method with the current session's envelope. Never throws. */
  async send(
    method: V2MethodName,
    options: SendOptions,
  ): Promise<{ outcome: CallOutcome; session: Session } | (ConnectResult & { ok: false })> {
    const connected = await this.connect(true);
    if (!connected.ok) return connected;
    const session = connected.session;
    const needed = V2_METHODS[method].requires;
    const { gates } = this.config;
    if (
      needed !== 'core' &&
      !session.capabilities.includes(needed as Capability) &&
      !this.config.parts.callsUnnegotiated(gates)
    ) {
      return { ok: false, temporary: false, reason: `${needed}_not_negotiated` };
    }
    const extras = new Bundle();
    writeRequest(extras, method as 'get_provider_info', {
      protocolVersion: 2,
      sessionToken: session.token,
      requestId: options.requestId,
      deadlineAtMs: this.context.currentTimeMillis() + this.config.callDeadlineMs,
    });
    options.fill?.(extras);
    if (options.attempt) {
      const n = (this.attemptCounts.get(options.attempt.executionId) ?? 0) + 1;
      this.attemptCounts.set(options.attempt.executionId, n);
      recordAudit(this.context, {
        event: 'execution.attempt',
        execution_id: options.attempt.executionId,
        request_id: options.requestId,
        method,
        attempt: n,
        reason: options.attempt.reason,
      });
    }
    return { outcome: await this.channel.call(method, extras), session };
  }

  private async negotiateAndList(): Promise<ConnectResult> {
    this.generation++;
    const negotiated = await negotiate(this.channel, this.provider.packageName, this.config, this.generation);
    if (!negotiated.ok) return this.fail(negotiated, null);
    let session = negotiated.session;
    // The client stays not-ready (others wait) until provider info and the tool list are read.
    const again = () => negotiate(this.channel, this.provider.packageName, this.config, ++this.generation);
    const read = (method: 'get_provider_info' | 'list_tools', current: Session) =>
      readV2(this.context, this.channel, this.config, method, current, again);
    const info = await read('get_provider_info', session);
    if (!info.ok) return this.fail(info, session.providerId);
    session = info.session;
    const details = readProviderDetails(
      info.data,
      this.provider.packageName,
      session.providerId,
      this.config,
    );
    if ('invalid' in details)
      return this.fail({ ok: false, temporary: false, reason: 'invalid_provider_info' }, session.providerId);
    let catalogue = this.cachedCatalogue;
    if (catalogue === null || this.config.gates.on('CETP-3.3-05')) {
      const listed = await read('list_tools', session);
      if (!listed.ok) return this.fail(listed, session.providerId);
      session = listed.session;
      const revision = (listed.data as { revision?: unknown }).revision;
      if (catalogue === null || catalogue.revision !== revision) {
        const checked = readToolList(
          listed.data,
          session.providerId,
          session.capabilities,
          details.scopeNames,
          this.config,
        );
        if ('invalid' in checked)
          return this.fail({ ok: false, temporary: false, reason: 'invalid_tool_list' }, session.providerId);
        catalogue = checked;
      }
    }
    this.cachedCatalogue = catalogue;
    this.stateValue = { kind: 'ready', session, details, catalogue };
    recordAudit(this.context, {
      event: 'provider.ready',
      package: this.provider.packageName,
      provider_id: session.providerId,
      capabilities: [...session.capabilities],
      revision: catalogue.revision,
    });
    return { ok: true, session };
  }

  private fail(failure: NegotiationFailure, providerId: string | null): ConnectResult {
    const now = this.context.currentTimeMillis();
    this.stateValue = failure.temporary
      ? {
          kind: 'unavailable',
          reason: failure.reason,
          untilMs: now + Math.max(failure.retryAfterMs ?? 0, UNAVAILABLE_BACKOFF_MS),
          retryAfterUntilMs: failure.retryAfterMs === undefined ? 0 : now + failure.retryAfterMs,
        }
      : { kind: 'disabled', reason: failure.reason };
    recordAudit(this.context, {
      event: 'provider.disabled',
      package: this.provider.packageName,
      provider_id: providerId,
      reason: failure.reason,
      temporary: failure.temporary,
    });
    return failure;
  }
}
