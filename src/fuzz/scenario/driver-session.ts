/**
 * The session family of the raw protocol driver: what every command of an actor goes through — one
 * ContentProvider client per provider, negotiation and the session it yields, the v2 envelope (with
 * one renegotiation), request ids, args from the fixtures' pools, sleeping to a clock's edge, and
 * launching a resolution. The command families (driver-execute, driver-misuse, driver-clocks,
 * driver-settle) are functions of a DriverCore; driver.ts dispatches a command to them.
 */

import { caches } from '../../base/caches.ts';
import type { JsonValue } from '../../base/json.ts';
import type { AppContext } from '../../sim/app/context.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import type { ContentProviderClient } from '../../sim/content/content.ts';
import { TIMED_OUT, type Waiter } from '../../sim/core/scheduler.ts';
import { authorityForUser, userIdOf } from '../../sim/pm/user-handle.ts';
import type { PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { ActorState } from './actor-state.ts';
import { fillArgs, type ProviderFixture } from './fixtures.ts';
import { CROSS_MARGIN, type RidRef, SHARED_REQUEST_IDS } from './model.ts';
import { resultFields } from './placeholders.ts';

/** What a v2 consumer offers unless a scenario says otherwise (CETP-2.2-02: descending). */
export const DEFAULT_VERSIONS: readonly number[] = [2, 1];

/**
 * ActivityOptions.setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED):
 * the agents target 34, where a PendingIntent sender lends its background-start rights only with
 * this opt-in (BackgroundActivityStartController); without it a resolution launched while another
 * app's Activity covers the agent is aborted with RESULT_CANCELED.
 */
const LEND_BACKGROUND_START = { pendingIntentBackgroundActivityStartAllowed: true } as const;

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
export const ALL_CAPS_JSON = JSON.stringify(ALL_CAPS);

export class DriverCore {
  private readonly clients = new Map<string, ContentProviderClient>();
  /** The capabilities this client offers, as the JSON it sends in every negotiate. */
  capsJson = ALL_CAPS_JSON;
  versions: readonly number[] = DEFAULT_VERSIONS;
  /** Providers whose operations this actor observes (ContentResolver.registerContentObserver). */
  readonly observed = new Set<string>();
  /** Set by an operation change notification (a oneway onChange on one of our Binder threads). */
  changed = false;
  changeWaiter: Waiter<void> | null = null;

  constructor(
    readonly ctx: AppContext,
    readonly state: ActorState,
    /** The other actors (fixed for the run: every actor's state exists before any driver starts). */
    readonly others: readonly ActorState[],
    readonly providers: readonly ProviderFixture[],
    /** Whether every fault of the scenario has been applied (for `after-faults`). */
    readonly faultsDone: () => boolean = () => true,
  ) {}

  provider(name: string): ProviderFixture {
    return this.providers.find((p) => p.name === name) ?? (this.providers[0] as ProviderFixture);
  }

  /**
   * The first other actor that has what `has` asks for, waiting for one a little (20 s of virtual
   * time): the others run concurrently and may not have reached it yet.
   */
  async otherWith(has: (o: ActorState) => boolean): Promise<ActorState | null> {
    for (let i = 0; i < 20 && !this.others.some(has); i++) await this.ctx.sleep(1_000);
    return this.others.find(has) ?? null;
  }

  /**
   * The authority this actor names `p` by: user 0's provider, as `0@authority` from another user
   * (a10, holding INTERACT_ACROSS_USERS: the provider sees its user-10 UID; FIDELITY.md row 35.8c).
   */
  authorityOf(p: ProviderFixture): string {
    return userIdOf(this.ctx.uid) === 0 ? p.authority : authorityForUser(0, p.authority);
  }

  /** One ContentProvider.call through an unstable client; null on a Binder failure. */
  async call(p: ProviderFixture, method: string, extras: Bundle): Promise<Bundle | null> {
    const authority = this.authorityOf(p);
    let client = this.clients.get(authority);
    try {
      if (!client) {
        client =
          (await this.ctx.contentResolver.acquireUnstableContentProviderClient(authority)) ?? undefined;
        if (!client) return null;
        this.clients.set(authority, client);
      }
      const reply = await client.call(method, null, extras);
      // A client owns the fds it receives: read nothing, close them (leaks are the provider's alone).
      reply?.getParcelFileDescriptor('result_fd')?.close();
      return reply;
    } catch {
      this.clients.delete(authority);
      return null;
    }
  }

  async negotiate(p: ProviderFixture): Promise<string | null> {
    const b = new Bundle();
    b.putIntArray('consumer_versions', [...this.versions]);
    b.putString('consumer_capabilities', this.capsJson);
    const at = this.ctx.currentTimeMillis();
    const reply = await this.call(p, 'negotiate', b);
    if (reply?.getString('status') !== 'success') return null;
    const data = parseObject(reply.getString('data')) as {
      session_token?: unknown;
      expires_at?: unknown;
      limits?: { idempotency_window_seconds?: unknown; max_concurrent_requests?: unknown };
    };
    const token = typeof data.session_token === 'string' ? data.session_token : null;
    if (token) {
      this.state.sessions.set(p.name, token);
      const expiresAt = typeof data.expires_at === 'string' ? Date.parse(data.expires_at) : Number.NaN;
      const window = data.limits?.idempotency_window_seconds;
      const max = data.limits?.max_concurrent_requests;
      this.state.negotiated.set(p.name, {
        at,
        expiresAt: Number.isFinite(expiresAt) ? expiresAt : at + 3_600_000,
        windowMs: typeof window === 'number' ? window * 1000 : 86_400_000,
        maxConcurrent: typeof max === 'number' ? max : 4,
      });
    }
    return token;
  }

  async session(p: ProviderFixture): Promise<string> {
    if (this.state.stolenSession) {
      const s = this.state.stolenSession;
      this.state.stolenSession = null;
      return s;
    }
    return this.state.sessions.get(p.name) ?? (await this.negotiate(p)) ?? '';
  }

  /** A v2 call; on a Binder failure or NEGOTIATION_REQUIRED, renegotiate and send it once more. */
  async v2(
    p: ProviderFixture,
    method: string,
    fill: (b: Bundle) => void,
    rid: string,
    expired: boolean | number = false,
  ) {
    let reply: Bundle | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const b = new Bundle();
      b.putInt('protocol_version', 2);
      b.putString('session_token', await this.session(p));
      b.putString('request_id', rid);
      const budget = typeof expired === 'number' ? expired : expired ? -1 : 30_000;
      b.putLong('deadline_at_ms', this.ctx.currentTimeMillis() + budget);
      fill(b);
      reply = await this.call(p, method, b);
      if (method === 'get_operation') rememberOwn(this.state, reply);
      if (reply && reply.getString('error_code') !== 'NEGOTIATION_REQUIRED') return reply;
      await this.negotiate(p);
    }
    return reply;
  }

  rid(ref: RidRef): string {
    if (ref.kind === 'fresh') {
      const rid = this.ctx.seededUuid();
      this.state.rids.push(rid);
      return rid;
    }
    if (ref.kind === 'last') return this.state.sent.at(-1)?.rid ?? this.rid({ kind: 'fresh' });
    const pool: readonly string[] =
      ref.kind === 'reuse'
        ? this.state.rids
        : ref.kind === 'shared'
          ? SHARED_REQUEST_IDS
          : this.others.flatMap((o) => o.rids);
    if (pool.length === 0) return this.rid({ kind: 'fresh' });
    const rid = pool[ref.index % pool.length] as string;
    // An id this actor did not make up is one of its own from now on (for `reuse`).
    if (!this.state.rids.includes(rid)) this.state.rids.push(rid);
    return rid;
  }

  /** The pool's args at `index` (modulo), with this actor's UID and its own/others' ids filled in. */
  argsAt(pool: readonly JsonValue[], index: number): string {
    return fillArgs(
      jsonOf(pool[index % pool.length] as JsonValue),
      this.ctx.uid,
      (field) => this.state.own.get(field),
      pool,
      (field) => this.others.map((o) => o.own.get(field)).find((v) => v !== undefined),
    );
  }

  /** Sleeps until `bound` ∓ CROSS_MARGIN/2 of `duration` (never into the past). */
  async sleepAround(bound: number, duration: number, side: 'before' | 'after'): Promise<void> {
    const half = Math.max(1, Math.round((duration * CROSS_MARGIN) / 2));
    const target = side === 'before' ? bound - half : bound + half;
    const ms = target - this.ctx.currentTimeMillis();
    if (ms > 0) await this.ctx.sleep(ms);
  }

  notePollAfter(reply: Bundle | null): void {
    const ms = (parseObject(reply?.getString('data') ?? null) as { poll_after_ms?: unknown }).poll_after_ms;
    if (typeof ms === 'number')
      this.state.lastOpAnswer = { at: this.ctx.currentTimeMillis(), pollAfterMs: ms };
  }

  /** Launches a resolution and waits (at most a minute of virtual time) for the Activity's result. */
  async launch(pi: PendingIntent | null): Promise<void> {
    if (!pi) return;
    const done = this.ctx.waiter<void>('activity result');
    this.ctx.spawn(
      'launch-resolution',
      async () => {
        try {
          await this.ctx.startIntentSenderForResult(pi, null, 0, LEND_BACKGROUND_START);
        } finally {
          done.wake(undefined);
        }
      },
      { daemon: true },
    );
    const result = await done.waitFor(60_000);
    void (result === TIMED_OUT);
  }
}

export function parseObject(text: string | null): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** JSON of the fixtures' args (constants, shared by every run): serialised once each. */
const argsJson = caches.weakMap<object, string>('fuzz/driver: args JSON by value');

function jsonOf(value: JsonValue): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let json = argsJson.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    argsJson.set(value, json);
  }
  return json;
}

/**
 * Keeps the string fields of a successful result (inline, or of a succeeded operation) as the
 * actor's own (for `$OWN:field` args).
 */
export function rememberOwn(state: ActorState, reply: Bundle | null): void {
  if (reply?.getString('status') !== 'success') return;
  for (const [field, value] of resultFields(parseObject(reply.getString('data'))))
    state.own.set(field, value);
}
