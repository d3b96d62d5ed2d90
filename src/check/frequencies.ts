/**
 * How often a campaign reached the situations its oracles need (issue 22, items 4 and 7), measured
 * from each run's observation — what went on the wire and what the world recorded — never from what
 * the generator meant to do. A green verdict on identity or clocks says little if no run presented a
 * foreign resume token, or no call arrived just after a session expired; these counts make such a gap
 * visible (`fuzz --json`: `frequencies`), and floors per property (src/fuzz/suites.ts) state what
 * a campaign must reach.
 *
 * Labels (each counted once per run in which it happened):
 * - `attack:<kind>` — identity attacks: `foreign-resume-token` (an execute_tool presenting a resume
 *   token the provider issued to another UID), `foreign-session` (a v2 call carrying a session token
 *   negotiated by another package), `session-after-resign` (a v2 call on a session negotiated before
 *   the caller's package, or a package of its UID, was re-signed), `other-uid-operation` (get_ or
 *   cancel_operation naming an operation accepted for another UID), `rid-collision-across-uids`
 *   (execute_tool calls of two UIDs under one request_id to one provider), `other-user` (a v2 call by
 *   the same package from another Android user — another UID, same appId — carrying the session
 *   token or the request_id its copy in the other user obtained: 2.2-09, 6-02).
 * - `clock:<clock>:before|after` — a call arriving within CLOCK_MARGIN (10%) of a duration's bound,
 *   before or after it: `session` (expires_at of the session it carries), `resume-token` (the resume
 *   token's lifetime, from the token's issue), `grant` (a scope grant's lifetime, from the grant's
 *   resume), `window` (a re-send of a request_id, from its first send, against the negotiated
 *   idempotency_window_seconds), `poll-after` (a get_operation against the poll_after_ms of the
 *   operation's previous answer), `retry-after` (a re-send against the retry_after_ms its request
 *   was answered with), `deadline` (arrival against the call's deadline_at_ms, margin DEADLINE_MARGIN_MS);
 *   `clock:deadline:during` — a call that arrived before its deadline and was answered after it.
 * - `after:<event>:<call>` — a lifecycle event (`restart` of a provider, `resign-rotate`,
 *   `resign-new-key`, `reinstall`, `reboot`) followed by a call inside a window opened before it:
 *   `session` (a v2 call on a session negotiated before, not yet expired), `resume` (a resume token
 *   issued before, within its lifetime), `retry` (a request_id first sent before, within the window),
 *   `poll` / `cancel` (an operation accepted before), `negotiate` (any negotiation after it).
 * - `method:<m>:repeated|duplicated` — a caller sends the same call (method, request_id) again after
 *   its answer, or while the first is still unanswered; `race:<m1>+<m2>` — calls of two methods to one
 *   provider in flight at once (any callers). Only the protocol's methods (METHODS): a malformed
 *   call's made-up method name is not counted.
 * - `device:<behaviour>` — the device behaviours of issue 35 a run met (device-labels.ts).
 * - `app:<behaviour>` — what an app's manifest offers beyond one process of one user (app-labels.ts).
 */
import { V2_METHOD_NAMES } from '../protocol/methods.ts';
import { joinedKey } from '../protocol/names.ts';
import { APP_LABELS, appLabels } from './app-labels.ts';
import type { CheckContext } from './checker.ts';
import { DEVICE_LABELS, deviceLabels } from './device-labels.ts';
import { methodLabels } from './method-labels.ts';
import { type CallView, memoOn, negotiatedBy, type Observation, providerOfProcess } from './observation.ts';
import { uidOf as uidAtEnd } from './record.ts';

/** Durations a black-box client cannot read off the wire: the reference SDK's (src/providers/sdk). */
export interface ClockBounds {
  readonly resumeTokenTtlMs: number;
  readonly grantTtlMs: number;
}

export const REFERENCE_BOUNDS: ClockBounds = {
  resumeTokenTtlMs: 600_000,
  grantTtlMs: 30 * 24 * 3_600_000,
};

/** "Just before / just after" a bound: within this fraction of the duration. */
export const CLOCK_MARGIN = 0.1;
/** For deadlines (no duration on the wire): 10% of the 30 s a client usually allows. */
export const DEADLINE_MARGIN_MS = 3_000;

export const ATTACKS = [
  'foreign-resume-token',
  'foreign-session',
  'session-after-resign',
  'other-uid-operation',
  'rid-collision-across-uids',
  'other-user',
] as const;
export const CLOCKS = [
  'session',
  'resume-token',
  'grant',
  'window',
  'poll-after',
  'retry-after',
  'deadline',
] as const;
export const LIFECYCLE_EVENTS = [
  'restart',
  'resign-rotate',
  'resign-new-key',
  'reinstall',
  'reboot',
] as const;
export const FOLLOW_UPS = ['session', 'resume', 'retry', 'poll', 'cancel', 'negotiate'] as const;
/** The protocol's methods (src/protocol/methods.ts), in its order: the order of the labels. */
const METHODS = V2_METHOD_NAMES;
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS);

export type Clock = (typeof CLOCKS)[number];

const margin = (bound: number): number => Math.max(1, Math.round(bound * CLOCK_MARGIN));

/** Whether two UIDs are the same app's in two Android users (UserHandle: PER_USER_RANGE 100000). */
const otherUser = (a: number, b: number): boolean =>
  a % 100_000 === b % 100_000 && Math.floor(a / 100_000) !== Math.floor(b / 100_000);

/** A session used by another caller than its negotiator: another package's, or its own in another user. */
function sessionAttacks(issuer: CallView, c: CallView): string[] {
  if (issuer.caller !== c.caller) return ['attack:foreign-session'];
  return otherUser(issuer.callerUid, c.callerUid) ? ['attack:other-user'] : [];
}

/** 'before' / 'after' when `t` is within `m` of `boundAt`, else null. */
function side(t: number, boundAt: number, m: number): 'before' | 'after' | null {
  const d = t - boundAt;
  if (d >= -m && d < 0) return 'before';
  if (d >= 0 && d <= m) return 'after';
  return null;
}

function answeredAt(c: CallView): number | null {
  return c.replyT;
}

interface Issued {
  readonly uid: number;
  readonly step: number;
  readonly t: number;
  readonly grant: boolean;
}

interface LifecycleEvent {
  readonly kind: (typeof LIFECYCLE_EVENTS)[number];
  readonly step: number;
  /** The package it happened to (null: the whole device). */
  readonly pkg: string | null;
  /** That package's UID after the run (a re-sign with rotation keeps it: its other packages count). */
  readonly uid: number | null;
}

/** Every label the run reached (see the header). Memoised on the observation. */
export function runLabels(
  obs: Observation,
  ctx: CheckContext,
  bounds: ClockBounds = REFERENCE_BOUNDS,
): Set<string> {
  return memoOn(obs, LABELS, () => {
    const labels = computeLabels(obs, ctx, bounds);
    for (const l of appLabels(obs.record.events, obs.record.calls, new Set(ctx.providersUnderTest)))
      labels.add(l);
    return labels;
  });
}

const LABELS: unique symbol = Symbol('cetp.check.frequencies');

/** Where a call fell against its own deadline_at_ms: near it (either side), or answered past it. */
function deadlineLabels(c: CallView, labels: Set<string>): void {
  if (c.deadlineAtMs === null) return;
  const s = side(c.t, c.deadlineAtMs, DEADLINE_MARGIN_MS);
  if (s) labels.add(`clock:deadline:${s}`);
  if (c.t < c.deadlineAtMs && c.replyT !== null && c.replyT > c.deadlineAtMs)
    labels.add('clock:deadline:during');
}

/** The session's expiry (its negotiate answer's expires_at; NaN if none), parsed once per issuer. */
function expiryOf(issuer: CallView, known: Map<CallView, number>): number {
  let at = known.get(issuer);
  if (at === undefined) {
    const data = issuer.reply.kind === 'bundle' ? (issuer.reply.data as { expires_at?: unknown }) : undefined;
    at = typeof data?.expires_at === 'string' ? Date.parse(data.expires_at) : Number.NaN;
    known.set(issuer, at);
  }
  return at;
}

function computeLabels(obs: Observation, ctx: CheckContext, bounds: ClockBounds): Set<string> {
  const labels = new Set<string>();
  const under = new Set(ctx.providersUnderTest);
  const calls = obs.calls.filter((c) => under.has(c.provider));
  const issuers = negotiatedBy(obs);
  const tokens = new Map<string, Issued>();
  const operations = new Map<string, Issued>();
  const firstSent = new Map<string, CallView>();
  const firstByApp = new Map<string, CallView>();
  /** `provider|operationId` → the latest answer time and poll_after_ms for it. */
  const pollAfter = new Map<string, { t: number; ms: number }>();
  /** requestKey → the latest retry_after_ms answer. */
  const retryAfter = new Map<string, { t: number; ms: number }>();
  /** `provider|uid` → grant times. */
  const grants = new Map<string, number[]>();
  const ridUids = new Map<string, Set<number>>();
  const uidOf = new Map<string, number>();
  const events = lifecycleEvents(obs, under);
  const expiry = new Map<CallView, number>();

  const windowOf = (c: CallView): number | null => {
    const issuer = c.sessionToken === null ? undefined : issuers.get(c.provider)?.get(c.sessionToken);
    const data = issuer?.reply.kind === 'bundle' ? issuer.reply.data : undefined;
    const s = (data as { limits?: { idempotency_window_seconds?: unknown } } | undefined)?.limits
      ?.idempotency_window_seconds;
    return typeof s === 'number' ? s * 1000 : null;
  };

  // Calls in the order they were made.
  for (const c of calls) {
    if (!uidOf.has(c.caller)) uidOf.set(c.caller, c.callerUid);
    const issuer = c.sessionToken === null ? undefined : issuers.get(c.provider)?.get(c.sessionToken);
    if (issuer && c.method !== 'negotiate') {
      for (const l of sessionAttacks(issuer, c)) labels.add(l);
      const expires = expiryOf(issuer, expiry);
      const issuedAt = answeredAt(issuer) ?? issuer.t;
      if (Number.isFinite(expires)) {
        const s = side(c.t, expires, margin(expires - issuedAt));
        if (s) labels.add(`clock:session:${s}`);
      }
      for (const e of events) {
        if (e.kind.startsWith('resign') && issuer.step < e.step && e.step < c.step) {
          const uid = e.pkg === null ? undefined : (uidOf.get(e.pkg) ?? uidAtEnd(obs.record, e.pkg));
          if (e.pkg === c.caller || uid === c.callerUid) labels.add('attack:session-after-resign');
        }
      }
      for (const e of eventsBetween(events, issuer.step, c.step, c)) {
        if (!Number.isFinite(expires) || c.t < expires) labels.add(`after:${e.kind}:session`);
      }
    }
    if (c.method === 'negotiate') {
      for (const e of events) if (e.step < c.step && touches(e, c)) labels.add(`after:${e.kind}:negotiate`);
    }
    deadlineLabels(c, labels);
    if (c.method === 'execute_tool' && c.requestId !== null) {
      const ridKey = joinedKey(`${c.provider}|`, c.requestId);
      const uids = ridUids.get(ridKey) ?? new Set<number>();
      if ([...uids].some((u) => otherUser(u, c.callerUid))) labels.add('attack:other-user');
      ridUids.set(ridKey, uids.add(c.callerUid));
      if (uids.size > 1) labels.add('attack:rid-collision-across-uids');
      const first = firstSent.get(c.requestKey);
      if (first) {
        const w = windowOf(first) ?? windowOf(c);
        if (w !== null) {
          const s = side(c.t, first.t + w, margin(w));
          if (s) labels.add(`clock:window:${s}`);
        }
        for (const e of eventsBetween(events, first.step, c.step, c))
          if (w === null || c.t < first.t + w) labels.add(`after:${e.kind}:retry`);
      } else firstSent.set(c.requestKey, c);
      // Also a re-send by the same app whatever its UID now (a reinstalled or re-signed caller
      // re-sends what its journal held): the lifecycle follow-up.
      const byApp = joinedKey(`${c.provider}|${c.caller}|`, c.requestId);
      const held = firstByApp.get(byApp);
      if (held) {
        const w = windowOf(held) ?? windowOf(c);
        for (const e of eventsBetween(events, held.step, c.step, c))
          if (w === null || c.t < held.t + w) labels.add(`after:${e.kind}:retry`);
      } else firstByApp.set(byApp, c);
      const ra = retryAfter.get(c.requestKey);
      if (ra) {
        const s = side(c.t, ra.t + ra.ms, margin(ra.ms));
        if (s) labels.add(`clock:retry-after:${s}`);
      }
      if (c.resumeToken !== null) {
        const issued = tokens.get(`${c.provider}|${c.resumeToken}`);
        if (issued) {
          if (issued.uid !== c.callerUid) labels.add('attack:foreign-resume-token');
          const s = side(c.t, issued.t + bounds.resumeTokenTtlMs, margin(bounds.resumeTokenTtlMs));
          if (s) labels.add(`clock:resume-token:${s}`);
          for (const e of eventsBetween(events, issued.step, c.step, c))
            if (c.t < issued.t + bounds.resumeTokenTtlMs) labels.add(`after:${e.kind}:resume`);
          if (issued.grant && c.replyT !== null) {
            const key = `${c.provider}|${c.callerUid}`;
            grants.set(key, [...(grants.get(key) ?? []), c.replyT]);
          }
        }
      } else {
        for (const g of grants.get(`${c.provider}|${c.callerUid}`) ?? []) {
          const s = side(c.t, g + bounds.grantTtlMs, margin(bounds.grantTtlMs));
          if (s) labels.add(`clock:grant:${s}`);
        }
      }
    }
    if ((c.method === 'get_operation' || c.method === 'cancel_operation') && c.operationId !== null) {
      const op = operations.get(c.operationKey);
      if (op) {
        if (op.uid !== c.callerUid) labels.add('attack:other-uid-operation');
        const kind = c.method === 'get_operation' ? 'poll' : 'cancel';
        for (const e of eventsBetween(events, op.step, c.step, c)) labels.add(`after:${e.kind}:${kind}`);
      }
      const pa = pollAfter.get(c.operationKey);
      if (c.method === 'get_operation' && pa) {
        const s = side(c.t, pa.t + pa.ms, margin(pa.ms));
        if (s) labels.add(`clock:poll-after:${s}`);
      }
    }
    // What the answer issued (only answers the caller received count: a lost one issued nothing).
    const reply = c.reply.kind === 'bundle' ? c.reply : null;
    if (reply === null || c.replyT === null) continue;
    const token = reply.bundle.getString('resume_token');
    if (token !== null && c.method === 'execute_tool')
      tokens.set(`${c.provider}|${token}`, {
        uid: c.callerUid,
        step: c.replyStep ?? c.step,
        t: c.replyT,
        grant: reply.errorCode === 'AUTH_REQUIRED',
      });
    const data = reply.data as { operation_id?: unknown; poll_after_ms?: unknown } | undefined;
    if (reply.status === 'accepted' && typeof data?.operation_id === 'string') {
      const key = `${c.provider}|${data.operation_id}`;
      if (!operations.has(key))
        operations.set(key, { uid: c.callerUid, step: c.replyStep ?? c.step, t: c.replyT, grant: false });
    }
    if (typeof data?.poll_after_ms === 'number') {
      const opId = typeof data.operation_id === 'string' ? data.operation_id : c.operationId;
      if (opId !== null) pollAfter.set(`${c.provider}|${opId}`, { t: c.replyT, ms: data.poll_after_ms });
    }
    if (reply.retryAfterMs !== null && c.method === 'execute_tool')
      retryAfter.set(c.requestKey, { t: c.replyT, ms: reply.retryAfterMs });
  }
  methodLabels(calls, KNOWN_METHODS, labels);
  for (const l of deviceLabels(obs.record.events)) labels.add(l);
  return labels;
}

/**
 * Whether lifecycle event `e` concerns call `c`: its provider restarted, was reinstalled or re-signed
 * under an unrelated key (an uninstall and install: its data wiped); its caller was reinstalled or
 * re-signed (or, through a rotation, a package sharing its UID); any reboot.
 */
function touches(e: LifecycleEvent, c: CallView): boolean {
  if (e.pkg === null) return true;
  if (e.pkg === c.provider) return e.kind !== 'resign-rotate';
  if (e.kind === 'restart') return false;
  return e.pkg === c.caller || (e.kind === 'resign-rotate' && e.uid === c.callerUid);
}

const NO_EVENTS: readonly LifecycleEvent[] = Object.freeze([]);

function eventsBetween(
  events: readonly LifecycleEvent[],
  fromStep: number,
  toStep: number,
  c: CallView,
): readonly LifecycleEvent[] {
  if (events.length === 0) return NO_EVENTS;
  return events.filter((e) => fromStep < e.step && e.step < toStep && touches(e, c));
}

function lifecycleEvents(obs: Observation, under: ReadonlySet<string>): LifecycleEvent[] {
  const out: LifecycleEvent[] = [];
  const reboots = new Set<number>();
  for (const e of obs.events) {
    if (e.kind === 'device.reboot') {
      reboots.add(e.step);
      out.push({ kind: 'reboot', step: e.step, pkg: null, uid: null });
    } else if (e.kind === 'fault') {
      const f = e.data.fault as { kind?: unknown; package?: unknown; rotate?: unknown } | undefined;
      const pkg = typeof f?.package === 'string' ? f.package : null;
      if (pkg === null) continue;
      const uid = uidAtEnd(obs.record, pkg);
      if (f?.kind === 'resign')
        out.push({ kind: f.rotate === true ? 'resign-rotate' : 'resign-new-key', step: e.step, pkg, uid });
      else if (f?.kind === 'reinstall') out.push({ kind: 'reinstall', step: e.step, pkg, uid });
    }
  }
  for (const e of obs.events) {
    if (e.kind !== 'process.kill' || reboots.has(e.step)) continue;
    const pkg = providerOfProcess(obs, String(e.data.actor));
    if (pkg !== null && under.has(pkg)) out.push({ kind: 'restart', step: e.step, pkg, uid: null });
  }
  return out;
}

/** Every label a campaign could report (for `--json` and the floors' test: absent means 0). */
export function allLabels(): string[] {
  const out: string[] = [];
  for (const a of ATTACKS) out.push(`attack:${a}`);
  for (const c of CLOCKS) out.push(`clock:${c}:before`, `clock:${c}:after`);
  out.push('clock:deadline:during');
  for (const e of LIFECYCLE_EVENTS) for (const f of FOLLOW_UPS) out.push(`after:${e}:${f}`);
  for (const m of METHODS) out.push(`method:${m}:repeated`, `method:${m}:duplicated`);
  for (let i = 0; i < METHODS.length; i++)
    for (let j = i; j < METHODS.length; j++) {
      const [m1, m2] = [METHODS[i] as string, METHODS[j] as string].sort();
      out.push(`race:${m1}+${m2}`);
    }
  out.push(...DEVICE_LABELS, ...APP_LABELS);
  return out;
}

/** In how many runs of a campaign each label happened. */
export interface Frequencies {
  readonly runs: number;
  /** Label → runs, every label of allLabels() (0 included), sorted by label. */
  readonly counts: Readonly<Record<string, number>>;
}

export class FrequencyTally {
  private runs = 0;
  private readonly counts = new Map<string, number>();

  add(labels: ReadonlySet<string>): void {
    this.runs++;
    for (const l of labels) this.counts.set(l, (this.counts.get(l) ?? 0) + 1);
  }

  get frequencies(): Frequencies {
    const counts: Record<string, number> = {};
    for (const l of [...new Set([...allLabels(), ...this.counts.keys()])].sort())
      counts[l] = this.counts.get(l) ?? 0;
    return { runs: this.runs, counts };
  }
}

export const NO_FREQUENCIES: Frequencies = Object.freeze({ runs: 0, counts: Object.freeze({}) });

/** The floors a campaign missed: `{label, floor, share}` for each label below its floor (share of runs). */
export function floorGaps(
  f: Frequencies,
  floors: Readonly<Record<string, number>>,
): { label: string; floor: number; share: number }[] {
  const gaps: { label: string; floor: number; share: number }[] = [];
  for (const [label, floor] of Object.entries(floors)) {
    const share = f.runs === 0 ? 0 : (f.counts[label] ?? 0) / f.runs;
    if (share < floor) gaps.push({ label, floor, share: Math.round(share * 1000) / 1000 });
  }
  return gaps.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
