/**
 * A v2 provider connection (spec §2.2, §3.3, §4.1): negotiate, then list_tools, then calls.
 *
 * - negotiate comes first (2.2-01) and offers [2, 1] — we speak v1 too (0-02, 2.2-02) — and the
 *   capabilities this app implements as a JSON array (2.2-03). The answer is untrusted: a version
 *   we did not offer, capabilities we did not ask for, a token over 256 bytes or a provider_id
 *   outside the package's namespace (3.1-02) disable the provider. A failed negotiation never
 *   falls back to v1 (8-03, 8-08, 8-09); a transient one (Binder death, UNAVAILABLE,
 *   RATE_LIMITED) is tried again later.
 * - after EVERY negotiation list_tools is read in the new session before anything is executed in
 *   it (3.3-05); a kept catalogue is re-used only for an unchanged revision (3.3-04), within the
 *   policy's count and lifetime (a catalogue compiled afresh is always right, a kept one saves work).
 * - every later call carries protocol_version 2, the session's token, a request_id and a deadline
 *   (4.1-01 … 4.1-05); optional methods only when negotiated (2.3-04), which the callers check.
 */
import { type AppContext, Bundle, protocol } from '../../../index.ts';
import { type Catalogue, readCatalogue } from './catalogue.ts';
import { type CallResult, type Channel, closeAll } from './channel.ts';
import { backoffMs, type Policy } from './policy.ts';

export interface Session {
  readonly token: string;
  readonly providerId: string;
  readonly capabilities: readonly string[];
  readonly maxRequestBytes: number;
  readonly maxInlineResultBytes: number;
  readonly catalogue: Catalogue;
}

export type Connected =
  | { readonly ok: true; readonly session: Session }
  | { readonly ok: false; readonly temporary: boolean };

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'ready'; readonly session: Session }
  | { readonly kind: 'down'; readonly untilMs: number }
  | { readonly kind: 'disabled' };

const TRANSIENT = new Set(['UNAVAILABLE', 'RATE_LIMITED']);

export class Connection {
  private state: State = { kind: 'idle' };
  /** Catalogues by revision; which one a session uses is decided by that session's list_tools. */
  private readonly catalogues = new Map<string, Catalogue>();
  /** When each kept catalogue was compiled (its lifetime counts from there). */
  private readonly keptAt = new Map<string, number>();
  private waiting: ((result: Connected) => boolean)[] | null = null;

  constructor(
    private readonly context: AppContext,
    readonly channel: Channel,
    readonly packageName: string,
    private readonly policy: Policy,
  ) {}

  get session(): Session | null {
    return this.state.kind === 'ready' ? this.state.session : null;
  }

  /** Ready, or why not. `patient`: an execution waits out a provider that is briefly down. */
  async connect(patient = false): Promise<Connected> {
    for (let attempt = 0; ; attempt++) {
      const s = this.state;
      if (s.kind === 'ready') return { ok: true, session: s.session };
      if (s.kind === 'disabled') return { ok: false, temporary: false };
      const now = this.context.currentTimeMillis();
      if (s.kind === 'down' && now < s.untilMs) {
        if (!patient || attempt >= this.policy.maxRetries) return { ok: false, temporary: true };
        await this.context.sleep(Math.max(s.untilMs - now, backoffMs(this.policy, attempt)));
      }
      const result = await this.once();
      if (result.ok || !result.temporary || !patient || attempt >= this.policy.maxRetries) return result;
    }
  }

  /** NEGOTIATION_REQUIRED answered a call made in `stale`: a new session (once for everyone). */
  async renegotiate(stale: Session): Promise<Connected> {
    if (this.state.kind === 'ready' && this.state.session.token === stale.token)
      this.state = { kind: 'idle' };
    return this.connect(true);
  }

  /** One negotiation at a time; callers arriving meanwhile share its result. */
  private async once(): Promise<Connected> {
    if (this.waiting !== null) {
      const waiter = this.context.waiter<Connected>(`connect ${this.packageName}`);
      this.waiting.push((r) => waiter.wake(r));
      return waiter.wait();
    }
    this.waiting = [];
    let result: Connected = { ok: false, temporary: true };
    try {
      result = await this.negotiateAndList();
    } finally {
      const waiting = this.waiting ?? [];
      this.waiting = null;
      for (const wake of waiting) wake(result);
    }
    return result;
  }

  private async negotiateAndList(again = 0): Promise<Connected> {
    const request = {
      consumerVersions: this.policy.conduct.offeredVersions(),
      consumerCapabilities: [...this.policy.capabilities],
    };
    const extras = new Bundle();
    protocol.writeRequest(extras, 'negotiate', request);
    const reply = await this.channel.call('negotiate', extras);
    if (reply.kind !== 'reply') return this.down(reply.kind === 'lost' || !reply.permanent, 0);
    closeAll(reply.bundle);
    const read = protocol.readResponseBundle(reply.bundle, 'negotiate');
    if (!read.ok) return this.down(false, 0);
    if (read.value.status === 'error') {
      const e = read.value.error;
      const transient = TRANSIENT.has(e.code) || (e.code === 'INTERNAL_ERROR' && e.retryable);
      return this.down(transient, e.retryAfterMs ?? 0);
    }
    if (read.value.status !== 'success') return this.down(false, 0);
    const answer = read.value.data;
    const valid =
      answer.selected_version === 2 &&
      protocol.checkNegotiateResponse(answer, request).length === 0 &&
      protocol.isProviderIdInNamespace(answer.provider_id, this.packageName);
    if (!valid) return this.down(false, 0);
    const partial = {
      token: answer.session_token,
      providerId: answer.provider_id,
      capabilities: [...answer.capabilities],
      maxRequestBytes: answer.limits.max_request_bytes,
      maxInlineResultBytes: Math.min(answer.limits.max_inline_result_bytes, 1_048_576),
    };
    const catalogue =
      this.policy.conduct.catalogueWithoutListing(this.catalogues) ?? (await this.listTools(partial));
    if (catalogue === 'renegotiate') return again < 2 ? this.negotiateAndList(again + 1) : this.down(true, 0);
    if (catalogue === null) return this.down(true, 0);
    const session: Session = { ...partial, catalogue };
    this.state = { kind: 'ready', session };
    return { ok: true, session };
  }

  /** list_tools in this session: one read, one request_id across its retries (4.1-12, 4.1-13). */
  private async listTools(session: Omit<Session, 'catalogue'>): Promise<Catalogue | null | 'renegotiate'> {
    const requestId = this.context.seededUuid();
    for (let retries = 0; retries <= this.policy.maxRetries; retries++) {
      const reply = await this.sendIn(session, 'list_tools', requestId);
      if (reply.kind === 'lost' || (reply.kind === 'refused' && !reply.permanent)) {
        await this.context.sleep(backoffMs(this.policy, retries));
        continue;
      }
      if (reply.kind === 'refused') return null;
      closeAll(reply.bundle);
      const b = reply.bundle;
      if (b.getString('status') === 'error') {
        if (b.getString('error_code') === 'NEGOTIATION_REQUIRED' && retries === 0) return 'renegotiate';
        return null;
      }
      if (b.getString('status') !== 'success' || b.getString('request_id') !== requestId) return null;
      let data: unknown;
      try {
        data = JSON.parse(b.getString('data') ?? '');
      } catch {
        return null;
      }
      const revision = (data as { revision?: unknown } | null)?.revision;
      this.forgetOld();
      const cached = this.policy.conduct.keptCatalogue(this.catalogues, revision);
      if (cached) return cached;
      const catalogue = readCatalogue(data, session.capabilities, this.policy.answers.clipChars);
      if (catalogue) this.keep(catalogue);
      return catalogue;
    }
    return null;
  }

  /** Sends a v2 method in `session` with the §4.1 envelope; `fill` adds the method's own keys. */
  sendIn(
    session: Pick<Session, 'token'>,
    method: protocol.V2MethodName,
    requestId: string,
    fill: (extras: Bundle) => void = () => {},
  ): Promise<CallResult> {
    const extras = new Bundle();
    protocol.writeRequest(extras, 'get_provider_info', {
      protocolVersion: 2,
      sessionToken: session.token,
      requestId,
      deadlineAtMs: this.context.currentTimeMillis() + this.policy.deadlineMs,
    });
    fill(extras);
    return this.channel.call(method, extras);
  }

  private down(temporary: boolean, retryAfterMs: number): Connected {
    const untilMs = this.context.currentTimeMillis() + Math.max(retryAfterMs, this.policy.tryAgainAfterMs);
    this.state = temporary ? { kind: 'down', untilMs } : { kind: 'disabled' };
    return { ok: false, temporary };
  }

  /** Keeps a compiled catalogue by revision, at most the policy's count (the oldest goes first). */
  private keep(catalogue: Catalogue): void {
    if (this.policy.catalogueRevisions === 0) return;
    this.catalogues.delete(catalogue.revision);
    this.catalogues.set(catalogue.revision, catalogue);
    this.keptAt.set(catalogue.revision, this.context.currentTimeMillis());
    for (const revision of this.catalogues.keys()) {
      if (this.catalogues.size <= this.policy.catalogueRevisions) break;
      this.catalogues.delete(revision);
      this.keptAt.delete(revision);
    }
  }

  /** Drops the kept catalogues older than the policy's lifetime. */
  private forgetOld(): void {
    const lifetime = this.policy.catalogueLifetimeMs;
    if (lifetime === null) return;
    const now = this.context.currentTimeMillis();
    for (const [revision, at] of this.keptAt)
      if (now - at > lifetime) {
        this.catalogues.delete(revision);
        this.keptAt.delete(revision);
      }
  }
}
