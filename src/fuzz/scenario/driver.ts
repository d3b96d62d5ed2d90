/**
 * The raw protocol driver: runs one actor's commands against the providers, keeping what a client
 * keeps (session tokens, request ids used, the last resolution and operation) and sharing enough
 * with the other actors that commands can misuse each other's tokens and operations.
 */

import { caches } from '../../base/caches.ts';
import type { JsonValue } from '../../base/json.ts';
import { Bundle } from '../../sim/bundle.ts';
import type { ContentProviderClient } from '../../sim/content.ts';
import type { AppContext } from '../../sim/context.ts';
import type { PendingIntent } from '../../sim/pending-intent.ts';
import { type Task, TIMED_OUT, type Waiter } from '../../sim/scheduler.ts';
import { fillArgs, type ProviderFixture } from './fixtures.ts';
import { type HostileHost, sendHostileBatch } from './malformed.ts';
import {
  type ActorName,
  type Command,
  CROSS_MARGIN,
  DEADLINE_CROSS_MS,
  GRANT_TTL_MS,
  type MalformedFlaw,
  RESUME_TOKEN_TTL_MS,
  type RidRef,
  SHARED_REQUEST_IDS,
} from './model.ts';
import { resultFields } from './placeholders.ts';

/** What one actor knows; other actors may read it (that is how misuse is expressed). */
/** What a v2 consumer offers unless a scenario says otherwise (CETP-2.2-02: descending). */
const DEFAULT_VERSIONS: readonly number[] = [2, 1];

export interface ActorState {
  readonly name: ActorName;
  readonly rids: string[];
  /** Executions sent so far, for `retry`. */
  readonly sent: { provider: string; tool: string; rid: string; args: string; at: number }[];
  /** Per provider, the session this actor last negotiated: when, until when, and its limits. */
  readonly negotiated: Map<
    string,
    { at: number; expiresAt: number; windowMs: number; maxConcurrent: number }
  >;
  /** Scope grants this actor's user approved: for which call, and when (for `cross grant`). */
  readonly grants: { provider: string; tool: string; args: string; at: number }[];
  /** The last answer about lastOp that named a poll_after_ms: when, and the pause it asked for. */
  lastOpAnswer: { at: number; pollAfterMs: number } | null;
  sessions: Map<string, string>;
  lastToken: { provider: string; token: string; rid: string; tool: string; args: string } | null;
  lastOp: { provider: string; operationId: string; rid: string } | null;
  readonly ops: { provider: string; operationId: string; rid: string }[];
  stolenSession: string | null;
  /** Request ids answered success or accepted (a journal's "done"), for a resolving `retry`. */
  readonly completed: string[];
  /** Duplicate sends still racing (spawned tasks): the settle phase waits for them. */
  readonly duplicates: Task[];
  /** String fields of the actor's successful results, latest first wins (for `$OWN:field` args). */
  readonly own: Map<string, string>;
}

export function newActorState(name: ActorName): ActorState {
  return {
    name,
    rids: [],
    sent: [],
    negotiated: new Map(),
    grants: [],
    lastOpAnswer: null,
    sessions: new Map(),
    lastToken: null,
    lastOp: null,
    ops: [],
    stolenSession: null,
    completed: [],
    duplicates: [],
    own: new Map(),
  };
}

type ExecuteCommand = Extract<Command, { kind: 'execute' }>;

/** What a re-send needs of an execution sent before: where, which tool, which args, which request id. */
type Resent = Pick<ActorState['sent'][number], 'provider' | 'tool' | 'rid' | 'args'>;

/** One execute_tool send of an execute command: the request id, args and resume token it carries. */
interface Sending {
  readonly p: ProviderFixture;
  readonly c: ExecuteCommand;
  readonly requestId: string;
  readonly argsJson: string;
  readonly token: string | null;
}

/**
 * ActivityOptions.setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED):
 * the agents target 34, where a PendingIntent sender lends its background-start rights only with
 * this opt-in (BackgroundActivityStartController); without it a resolution launched while another
 * app's Activity covers the agent is aborted with RESULT_CANCELED.
 */
const LEND_BACKGROUND_START = { pendingIntentBackgroundActivityStartAllowed: true } as const;

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
const ALL_CAPS_JSON = JSON.stringify(ALL_CAPS);

export class RawDriver {
  private readonly clients = new Map<string, ContentProviderClient>();
  /** The capabilities this client offers, as the JSON it sends in every negotiate. */
  private capsJson = ALL_CAPS_JSON;
  private versions: readonly number[] = DEFAULT_VERSIONS;
  /** Providers whose operations this actor observes (ContentResolver.registerContentObserver). */
  private readonly observed = new Set<string>();
  /** Set by an operation change notification (a oneway onChange on one of our Binder threads). */
  private changed = false;
  private changeWaiter: Waiter<void> | null = null;

  constructor(
    readonly ctx: AppContext,
    readonly state: ActorState,
    /** The other actors (fixed for the run: every actor's state exists before any driver starts). */
    private readonly others: readonly ActorState[],
    private readonly providers: readonly ProviderFixture[],
    /** Whether every fault of the scenario has been applied (for `after-faults`). */
    private readonly faultsDone: () => boolean = () => true,
  ) {}

  private provider(name: string): ProviderFixture {
    return this.providers.find((p) => p.name === name) ?? (this.providers[0] as ProviderFixture);
  }

  private other(): ActorState | null {
    return this.others[0] ?? null;
  }

  /**
   * The first other actor that has what `has` asks for, waiting for one a little (20 s of virtual
   * time): the others run concurrently and may not have reached it yet.
   */
  private async otherWith(has: (o: ActorState) => boolean): Promise<ActorState | null> {
    for (let i = 0; i < 20 && !this.others.some(has); i++) await this.ctx.sleep(1_000);
    return this.others.find(has) ?? null;
  }

  /** One ContentProvider.call through an unstable client; null on a Binder failure. */
  private async call(p: ProviderFixture, method: string, extras: Bundle): Promise<Bundle | null> {
    let client = this.clients.get(p.authority);
    try {
      if (!client) {
        client =
          (await this.ctx.contentResolver.acquireUnstableContentProviderClient(p.authority)) ?? undefined;
        if (!client) return null;
        this.clients.set(p.authority, client);
      }
      const reply = await client.call(method, null, extras);
      // A client owns the fds it receives: read nothing, close them (leaks are the provider's alone).
      reply?.getParcelFileDescriptor('result_fd')?.close();
      return reply;
    } catch {
      this.clients.delete(p.authority);
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

  private async session(p: ProviderFixture): Promise<string> {
    if (this.state.stolenSession) {
      const s = this.state.stolenSession;
      this.state.stolenSession = null;
      return s;
    }
    return this.state.sessions.get(p.name) ?? (await this.negotiate(p)) ?? '';
  }

  /** A v2 call; on a Binder failure or NEGOTIATION_REQUIRED, renegotiate and send it once more. */
  private async v2(
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
      if (method === 'get_operation') this.rememberOwn(reply);
      if (reply && reply.getString('error_code') !== 'NEGOTIATION_REQUIRED') return reply;
      await this.negotiate(p);
    }
    return reply;
  }

  private rid(ref: RidRef): string {
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

  async run(command: Command): Promise<void> {
    switch (command.kind) {
      case 'negotiate':
        this.capsJson = JSON.stringify(command.caps);
        this.versions = command.versions ?? DEFAULT_VERSIONS;
        for (const p of this.providers) await this.negotiate(p);
        return;
      case 'execute':
        return this.execute(command);
      case 'retry': {
        // A resolving retry re-sends a request that was done, if any (its effect must not repeat in
        // this incarnation of the provider; after a reinstall it may).
        const done = command.resolve
          ? this.state.sent.filter((e) => this.state.completed.includes(e.rid))
          : [];
        const pool = done.length > 0 ? done : this.state.sent;
        const prior = pool[command.index % Math.max(1, pool.length)];
        if (!prior) return;
        if (command.afterMs > 0) await this.ctx.sleep(command.afterMs);
        // A retry may be the send that starts the operation (the first one's answer was lost): resend
        // remembers it, so it is settled too.
        const reply = await this.resend(prior);
        if (command.resolve && reply) await this.resumeAfter(prior, reply);
        return;
      }
      case 'poll':
      case 'cancel': {
        if (command.kind === 'cancel' && command.afterMs > 0) await this.ctx.sleep(command.afterMs);
        const op = command.other
          ? (await this.otherWith((o) => o.lastOp !== null))?.lastOp
          : this.state.lastOp;
        if (!op) return;
        const wrongRid = command.kind === 'poll' && command.wrongRid === true;
        const reply = await this.v2(
          this.provider(op.provider),
          command.kind === 'poll' ? 'get_operation' : 'cancel_operation',
          (b) => b.putString('operation_id', op.operationId),
          wrongRid ? this.ctx.seededUuid() : op.rid,
        );
        if (op === this.state.lastOp) this.notePollAfter(reply);
        return;
      }
      case 'steal-session': {
        const other = await this.otherWith((o) => o.sessions.size > 0);
        const token = other ? [...other.sessions.values()][0] : undefined;
        this.state.stolenSession = token ?? null;
        return;
      }
      case 'resume-foreign':
        await this.resumeForeign();
        return;
      case 'collide': {
        const prior = (await this.otherWith((o) => o.sent.length > 0))?.sent.at(-1);
        if (!prior) return;
        const entry = { ...prior, at: this.ctx.currentTimeMillis() };
        if (!this.state.rids.includes(prior.rid)) this.state.rids.push(prior.rid);
        this.state.sent.push(entry);
        await this.resend(entry);
        return;
      }
      case 'after-faults':
        for (let i = 0; i < 400 && !this.faultsDone(); i++) await this.ctx.sleep(50);
        return;
      case 'malformed':
        await this.malformed(this.provider(command.provider), command.flaw);
        return;
      case 'hostile-batch':
        await sendHostileBatch(this.hostileHost(this.provider(command.provider)), command);
        return;
      case 'v1-list':
        await this.call(this.provider(command.provider), 'list_tools', new Bundle());
        return;
      case 'wait':
        await this.ctx.sleep(command.ms);
        return;
      case 'cross':
        await this.cross(command.clock, command.side);
        return;
      case 'resume-held':
        await this.resumeHeld();
        return;
      case 'duplicate-call':
        await this.duplicateCall(command.method);
        return;
    }
  }

  /**
   * What an app does with a journaled request the provider asks to authorize or confirm again (after
   * a reinstall wiped its grants and records): launches the resolution, waits for the user, resumes
   * with the same request_id, tool and args (at most three rounds).
   */
  private async resumeAfter(prior: Resent, first: Bundle): Promise<void> {
    let reply: Bundle | null = first;
    for (let round = 0; round < 3 && reply; round++) {
      const code = reply.getString('error_code');
      if (code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') return;
      const token = reply.getString('resume_token') ?? '';
      await this.launch(reply.getPendingIntent('resolution'));
      reply = await this.resend(prior, false, token);
    }
  }

  /** Resumes this actor's own held resolution: its token, request_id, tool and args (as held). */
  private async resumeHeld(): Promise<void> {
    const t = this.state.lastToken;
    if (!t) return;
    await this.resend(t, false, t.token);
  }

  /**
   * One call sent twice at once, same method and request_id: a poll or cancel of this actor's last
   * operation (nothing if it has none), or a listing of that operation's provider (else the first).
   */
  private async duplicateCall(method: Extract<Command, { kind: 'duplicate-call' }>['method']): Promise<void> {
    const op = this.state.lastOp;
    const onOperation = method === 'get_operation' || method === 'cancel_operation';
    if (onOperation && !op) return;
    const p = op ? this.provider(op.provider) : (this.providers[0] as ProviderFixture);
    const rid = onOperation && op ? op.rid : this.ctx.seededUuid();
    const fill = (b: Bundle) => {
      if (onOperation && op) b.putString('operation_id', op.operationId);
    };
    const copy = this.ctx.spawn(`duplicate-${method}`, async () => {
      await this.v2(p, method, fill, rid);
    });
    this.state.duplicates.push(copy);
    const reply = await this.v2(p, method, fill, rid);
    if (onOperation && op === this.state.lastOp) this.notePollAfter(reply);
  }

  /** Sleeps until `bound` ∓ CROSS_MARGIN/2 of `duration` (never into the past). */
  private async sleepAround(bound: number, duration: number, side: 'before' | 'after'): Promise<void> {
    const half = Math.max(1, Math.round((duration * CROSS_MARGIN) / 2));
    const target = side === 'before' ? bound - half : bound + half;
    const ms = target - this.ctx.currentTimeMillis();
    if (ms > 0) await this.ctx.sleep(ms);
  }

  /**
   * Re-sends an execution (same request_id, tool and args; with `token`, a resume) and remembers its
   * answer; `deadlineMs`: the budget it allows.
   */
  private async resend(
    prior: Resent,
    deadlineMs: number | boolean = false,
    token: string | null = null,
  ): Promise<Bundle | null> {
    const p = this.provider(prior.provider);
    const reply = await this.v2(
      p,
      'execute_tool',
      (b) => {
        b.putString('tool_name', prior.tool);
        b.putString('args', prior.args);
        if (token !== null) b.putString('resume_token', token);
      },
      prior.rid,
      deadlineMs,
    );
    if (reply) this.remember(p, prior.rid, reply);
    return reply;
  }

  /** A fresh execution of `tool` with `args` (sent, remembered). */
  private async fresh(provider: string, tool: string, args: string, deadlineMs: number | boolean = false) {
    const p = this.provider(provider);
    const rid = this.rid({ kind: 'fresh' });
    const entry = { provider: p.name, tool, rid, args, at: this.ctx.currentTimeMillis() };
    this.state.sent.push(entry);
    return this.resend(entry, deadlineMs);
  }

  /** The first tool of the first provider with its first args: something to send when nothing was. */
  private anyExecution(): { provider: string; tool: string; args: string } {
    const p = this.providers[0] as ProviderFixture;
    const tool = Object.keys(p.tools)[0] ?? 'none';
    return { provider: p.name, tool, args: this.argsAt(p.tools[tool] ?? [{}], 0) };
  }

  private async cross(
    clock: Extract<Command, { kind: 'cross' }>['clock'],
    side: 'before' | 'after',
  ): Promise<void> {
    switch (clock) {
      case 'session': {
        const prior = this.state.sent.at(-1);
        const target = prior ? this.provider(prior.provider) : (this.providers[0] as ProviderFixture);
        if (!this.state.negotiated.has(target.name)) await this.negotiate(target);
        const s = this.state.negotiated.get(target.name);
        if (!s) return;
        await this.sleepAround(s.expiresAt, s.expiresAt - s.at, side);
        if (prior) await this.resend(prior);
        else {
          const e = this.anyExecution();
          await this.fresh(e.provider, e.tool, e.args);
        }
        return;
      }
      case 'window': {
        const prior = this.state.sent[0];
        if (!prior) return;
        const w = this.state.negotiated.get(prior.provider)?.windowMs ?? 86_400_000;
        await this.sleepAround(prior.at + w, w, side);
        await this.resend(prior);
        return;
      }
      case 'grant': {
        const g = this.state.grants.at(-1);
        if (!g) return;
        await this.sleepAround(g.at + GRANT_TTL_MS, GRANT_TTL_MS, side);
        await this.fresh(g.provider, g.tool, g.args);
        return;
      }
      case 'poll-after': {
        const op = this.state.lastOp;
        if (!op) return;
        const poll = async () => {
          const reply = await this.v2(
            this.provider(op.provider),
            'get_operation',
            (b) => b.putString('operation_id', op.operationId),
            op.rid,
          );
          this.notePollAfter(reply);
          return reply;
        };
        // The last answer asked for a pause: cross it; none did (or it ended): ask now, then cross.
        if (!this.state.lastOpAnswer) await poll();
        const answer = this.state.lastOpAnswer;
        if (!answer) return;
        this.state.lastOpAnswer = null;
        await this.sleepAround(answer.at + answer.pollAfterMs, answer.pollAfterMs, side);
        await poll();
        return;
      }
      case 'retry-after':
        await this.burst(side);
        return;
      case 'deadline': {
        const prior = this.state.sent.at(-1);
        const budget = side === 'before' ? DEADLINE_CROSS_MS : -DEADLINE_CROSS_MS;
        if (prior) await this.resend(prior, budget);
        else {
          const e = this.anyExecution();
          await this.fresh(e.provider, e.tool, e.args, budget);
        }
        return;
      }
    }
  }

  /**
   * max_concurrent_requests + 1 executions at once (fresh ids, the last tool this actor sent, else
   * any): those answered RATE_LIMITED are re-sent just before or after their retry_after_ms.
   */
  private async burst(side: 'before' | 'after'): Promise<void> {
    const e = this.state.sent.at(-1) ?? this.anyExecution();
    const p = this.provider(e.provider);
    if (!this.state.negotiated.has(p.name)) await this.negotiate(p);
    const n = (this.state.negotiated.get(p.name)?.maxConcurrent ?? 4) + 1;
    const entries = Array.from({ length: n }, () => ({
      provider: p.name,
      tool: e.tool,
      rid: this.rid({ kind: 'fresh' }),
      args: e.args,
      at: this.ctx.currentTimeMillis(),
    }));
    this.state.sent.push(...entries);
    const limited: { entry: (typeof entries)[number]; at: number; ms: number }[] = [];
    const tasks = entries.map((entry, i) =>
      this.ctx.spawn(`burst-${i}`, async () => {
        const reply = await this.resend(entry);
        const ms = reply?.getString('error_code') === 'RATE_LIMITED' ? reply.getLong('retry_after_ms') : null;
        if (ms !== null) limited.push({ entry, at: this.ctx.currentTimeMillis(), ms });
      }),
    );
    this.state.duplicates.push(...tasks);
    for (let i = 0; i < 60 && tasks.some((t) => t.alive); i++) await this.ctx.sleep(50);
    for (const l of limited) {
      await this.sleepAround(l.at + l.ms, l.ms, side);
      await this.resend(l.entry);
    }
  }

  private notePollAfter(reply: Bundle | null): void {
    const ms = (parseObject(reply?.getString('data') ?? null) as { poll_after_ms?: unknown }).poll_after_ms;
    if (typeof ms === 'number')
      this.state.lastOpAnswer = { at: this.ctx.currentTimeMillis(), pollAfterMs: ms };
  }

  private send(s: Sending): Promise<Bundle | null> {
    const { c } = s;
    return this.v2(
      s.p,
      'execute_tool',
      (b) => {
        b.putString('tool_name', c.tool);
        b.putString('args', s.argsJson);
        if (s.token !== null) b.putString('resume_token', s.token);
        if (c.confirmedFlag) b.putBoolean('confirmed', true);
      },
      s.requestId,
      c.expiredDeadline,
    );
  }

  /** Sends once, raced by `duplicates` identical copies (retries after a timeout, still in flight). */
  private raced(s: Sending): Promise<Bundle | null> {
    for (let i = 0; i < s.c.duplicates; i++) {
      const task = this.ctx.spawn(`duplicate-${i}`, async () => {
        const copy = await this.send(s);
        if (copy) this.remember(s.p, s.requestId, copy);
      });
      this.state.duplicates.push(task);
    }
    return this.send(s);
  }

  private async execute(c: ExecuteCommand): Promise<void> {
    const p = this.provider(c.provider);
    const pool = p.tools[c.tool] ?? [{}];
    const args = this.argsAt(pool, c.args);
    const rid = this.rid(c.rid);
    this.state.sent.push({ provider: p.name, tool: c.tool, rid, args, at: this.ctx.currentTimeMillis() });
    let reply = await this.raced({ p, c, requestId: rid, argsJson: args, token: null });
    for (let round = 0; round < 3 && reply; round++) {
      this.remember(p, rid, reply);
      const code = reply.getString('error_code');
      if ((code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') || c.resolve === 'none') return;
      const token = reply.getString('resume_token') ?? '';
      // Scope grants are resolved honestly; the chosen misbehaviour applies to confirmations.
      // (a late resume crosses the token's lifetime whichever resolution issued it)
      const late = c.resolve === 'late-before' || c.resolve === 'late-after';
      const mode = code === 'AUTH_REQUIRED' && !late ? 'honest' : c.resolve;
      // Any resolution's token is there for the other actors to misuse (resume-foreign).
      this.state.lastToken = { provider: p.name, token, rid, tool: c.tool, args };
      const issuedAt = this.ctx.currentTimeMillis();
      if (mode !== 'skip-ui') await this.launch(reply.getPendingIntent('resolution'));
      if (code === 'AUTH_REQUIRED')
        this.state.grants.push({ provider: p.name, tool: c.tool, args, at: this.ctx.currentTimeMillis() });
      if (mode === 'foreign') return; // the other actor may resume it (see resumeForeign)
      if (mode === 'late-before' || mode === 'late-after')
        await this.sleepAround(
          issuedAt + RESUME_TOKEN_TTL_MS,
          RESUME_TOKEN_TTL_MS,
          mode === 'late-before' ? 'before' : 'after',
        );
      const resumeRid = mode === 'other-rid' ? this.rid({ kind: 'fresh' }) : rid;
      const resumeArgs = mode === 'altered-args' ? this.argsAt(pool, c.args + 1) : args;
      reply = await this.raced({ p, c, requestId: resumeRid, argsJson: resumeArgs, token });
      if (mode !== 'honest' && mode !== 'late-before' && mode !== 'late-after') {
        if (reply) this.remember(p, resumeRid, reply);
        return;
      }
    }
    if (reply) this.remember(p, rid, reply);
  }

  /** A call with one deliberate flaw in its envelope or args. */
  private async malformed(p: ProviderFixture, flaw: MalformedFlaw): Promise<void> {
    const tool = Object.keys(p.tools)[0] ?? 'none';
    const b = new Bundle();
    b.putInt('protocol_version', 2);
    b.putString('session_token', await this.session(p));
    b.putString('request_id', this.ctx.seededUuid());
    b.putLong('deadline_at_ms', this.ctx.currentTimeMillis() + 30_000);
    b.putString('tool_name', tool);
    b.putString('args', this.argsAt(p.tools[tool] ?? [{}], 0));
    let method = 'execute_tool';
    switch (flaw) {
      case 'unknown-keys':
        b.putString('x_future_field', 'ignored');
        b.putInt('x_priority', 3);
        break;
      case 'no-request-id':
        b.remove('request_id');
        break;
      case 'request-id-not-uuid':
        b.putString('request_id', 'request-1');
        break;
      case 'protocol-version-long':
        b.putLong('protocol_version', 2);
        break;
      case 'deadline-int':
        b.putInt('deadline_at_ms', 1);
        break;
      case 'args-not-json':
        b.putString('args', '{"symbol": ');
        break;
      case 'args-schema-mismatch':
        b.putString('args', '{"unexpected": [1, 2, 3]}');
        break;
      case 'no-session':
        b.remove('session_token');
        break;
      case 'unknown-method':
        method = 'execute_tool_v3';
        break;
    }
    await this.call(p, method, b);
  }

  /** What a batch of structural malformed calls (malformed.ts) needs of this driver. */
  private hostileHost(p: ProviderFixture): HostileHost {
    return {
      ctx: this.ctx,
      session: () => this.session(p),
      args: (tool) => this.argsAt(p.tools[tool] ?? [{}], 0),
      operationId: () => (this.state.lastOp?.provider === p.name ? this.state.lastOp.operationId : null),
      operationRid: () => (this.state.lastOp?.provider === p.name ? this.state.lastOp.rid : null),
      call: async (method, extras) => {
        const reply = await this.call(p, method, extras ?? new Bundle());
        // A valid-after-all execution (unknown keys only) may start an operation: settle it too.
        const rid = extras?.typeOf('request_id') === 'String' ? extras.getString('request_id') : null;
        if (reply && method === 'execute_tool' && rid) this.remember(p, rid, reply);
        return reply;
      },
    };
  }

  /** Resumes the other actor's last resolution with its token (a foreign caller). */
  async resumeForeign(): Promise<void> {
    // The other actor may not have reached its confirmation yet: wait for it a little (virtual time).
    const t = (await this.otherWith((o) => o.lastToken !== null))?.lastToken;
    if (!t) return;
    const p = this.provider(t.provider);
    await this.v2(
      p,
      'execute_tool',
      (b) => {
        b.putString('tool_name', t.tool);
        b.putString('args', t.args);
        b.putString('resume_token', t.token);
      },
      t.rid,
    );
  }

  /** The pool's args at `index` (modulo), with this actor's UID filled in. */
  private argsAt(pool: readonly JsonValue[], index: number): string {
    return fillArgs(
      jsonOf(pool[index % pool.length] as JsonValue),
      this.ctx.uid,
      (field) => this.state.own.get(field),
      pool,
    );
  }

  private remember(p: ProviderFixture, rid: string, reply: Bundle): void {
    const status = reply.getString('status');
    if ((status === 'success' || status === 'accepted') && !this.state.completed.includes(rid))
      this.state.completed.push(rid);
    this.rememberOwn(reply);
    if (reply.getString('status') !== 'accepted') return;
    const operationId = (JSON.parse(reply.getString('data') ?? '{}') as { operation_id?: string })
      .operation_id;
    if (!operationId) return;
    const op = { provider: p.name, operationId, rid };
    this.state.lastOp = op;
    this.notePollAfter(reply);
    if (!this.state.ops.some((o) => o.operationId === operationId)) this.state.ops.push(op);
    this.observe(p);
  }

  /**
   * Observes the provider's operation URIs, as an Android client that does not want to poll blindly
   * does: the SDK notifies content://<authority>/operations/<id> when an operation ends, and
   * system_server delivers onChange to us oneway, on one of our Binder threads (pid 0, in order).
   * The settle phase then polls as soon as something changed instead of after its full pause.
   */
  private observe(p: ProviderFixture): void {
    if (this.observed.has(p.name)) return;
    this.observed.add(p.name);
    try {
      this.ctx.contentResolver.registerContentObserver(`content://${p.authority}/operations`, true, {
        onChange: () => {
          this.changed = true;
          this.changeWaiter?.wake(undefined);
        },
      });
    } catch {
      // Not resolvable or not permitted for this actor: it keeps polling.
    }
  }

  /** Waits `ms` of virtual time, or less if an operation change notification arrives. */
  private async pauseUnlessChanged(ms: number): Promise<void> {
    if (!this.changed) {
      const waiter = this.ctx.waiter<void>('operation change or poll pause');
      this.changeWaiter = waiter;
      await waiter.waitFor(ms);
      this.changeWaiter = null;
    }
    this.changed = false;
  }

  /**
   * Keeps the string fields of a successful result (inline, or of a succeeded operation) as the
   * actor's own (for `$OWN:field` args).
   */
  private rememberOwn(reply: Bundle | null): void {
    if (reply?.getString('status') !== 'success') return;
    for (const [field, value] of resultFields(parseObject(reply.getString('data'))))
      this.state.own.set(field, value);
  }

  /** Launches a resolution and waits (at most a minute of virtual time) for the Activity's result. */
  private async launch(pi: PendingIntent | null): Promise<void> {
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

  /** After the faults: poll every operation this actor started until it ends (bounded). */
  async settle(): Promise<void> {
    // Sessions are negotiated lazily, with every capability, only with providers holding an operation.
    this.capsJson = ALL_CAPS_JSON;
    this.versions = DEFAULT_VERSIONS;
    for (const op of this.state.ops) this.observe(this.provider(op.provider));
    for (const op of this.state.ops) {
      const p = this.provider(op.provider);
      let renegotiated = false;
      for (let i = 0; i < 30; i++) {
        const reply = await this.v2(
          p,
          'get_operation',
          (b) => b.putString('operation_id', op.operationId),
          op.rid,
        );
        const state = (JSON.parse(reply?.getString('data') ?? '{}') as { state?: string }).state;
        if (state === 'succeeded' || state === 'failed' || state === 'cancelled') break;
        const code = reply?.getString('error_code');
        if (code === 'RESULT_EXPIRED') break;
        if (code === 'INVALID_REQUEST') {
          // NOTES 8a: a provider may refuse a session token it does not hold for this caller as
          // INVALID_REQUEST rather than NEGOTIATION_REQUIRED; renegotiate once before giving up.
          if (renegotiated) break;
          renegotiated = true;
          await this.negotiate(p);
          continue;
        }
        if (code === 'UNSUPPORTED_CAPABILITY') await this.negotiate(p);
        await this.pauseUnlessChanged(2_000);
      }
    }
  }
}

function parseObject(text: string | null): Record<string, unknown> {
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
const argsJson = caches.weakMap<object, string>('properties/driver: args JSON by value');

function jsonOf(value: JsonValue): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let json = argsJson.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    argsJson.set(value, json);
  }
  return json;
}
