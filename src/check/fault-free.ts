/**
 * What `faults-transparent` (src/check/checkers/faults-transparent.ts) compares, as plain data: the
 * requests that took effect in a run (from storage attribution, src/check/checkers/storage.ts), the
 * business state the run left, and the record of a fault-free replay of those requests (made in a
 * fresh world by src/fuzz/fault-free-replay.ts). Generated values (ids from the app's PRNG, the
 * clock's instants) differ between two worlds; `Matcher` pairs them up by first appearance, one to
 * one, and refuses any other difference.
 */
import type { JsonValue } from '../base/json.ts';
import type { CommitWrite } from '../sim/ground-truth.ts';
import type { CheckContext } from './checker.ts';
import { type BusinessCommit, businessCommits, SDK_TABLE_PREFIX } from './checkers/storage.ts';
import { type EffectNote, memoOn, type Observation } from './observation.ts';

export type { FaultFreeRecord, ReplayedRequest } from './fault-free-record.ts';

/** A request that took effect in the run: business writes or declared effects after the last wipe. */
export interface RunRequest {
  readonly key: string;
  readonly provider: string;
  readonly uid: number;
  readonly callerPackage: string;
  readonly requestId: string;
  readonly tool: string;
  readonly args: string;
  /** The trace event of its first business commit (or effect): the request's place in effect order. */
  readonly firstSeq: number;
  readonly commits: readonly BusinessCommit[];
  readonly effects: readonly EffectNote[];
}

export type RunRequests =
  | { readonly ok: true; readonly requests: readonly RunRequest[] }
  | { readonly ok: false; readonly reason: string };

const isBusiness = (table: string, extra: ReadonlySet<string> | undefined) =>
  !table.startsWith(SDK_TABLE_PREFIX) && !(extra?.has(table) ?? false);

/** The trace event of `pkg`'s last uninstall (its data wiped), or -1. */
export function lastWipe(obs: Observation, pkg: string): number {
  let seq = -1;
  for (const e of obs.events) if (e.kind === 'pm.uninstall' && e.data.package === pkg) seq = e.seq;
  return seq;
}

/**
 * The requests that took effect in the run, in effect (first commit) order — or why that set is
 * ambiguous: a business write no request can be held to (an Activity's, a cancel's, a pending
 * confirmation's record), a request sent with different tools or args, an effect with no call.
 */
export function runRequests(obs: Observation, ctx: CheckContext): RunRequests {
  return memoOn(obs, RUN_REQUESTS, () => compute(obs, ctx));
}
const RUN_REQUESTS: unique symbol = Symbol('cetp.check.fault-free.requests');

function compute(obs: Observation, ctx: CheckContext): RunRequests {
  const judged = ctx.providersUnderTest.filter((p) => !(ctx.hostile ?? []).includes(p));
  const wipe = new Map(judged.map((p) => [p, lastWipe(obs, p)]));
  const after = (pkg: string, seq: number) => seq > (wipe.get(pkg) ?? Infinity);
  const attributed = businessCommits(obs, ctx).filter((b) => after(b.provider, b.commit.seq));
  const seen = new Set(attributed.map((b) => b.commit.seq));
  for (const c of obs.record.truth.commits) {
    if (!wipe.has(c.packageName) || !after(c.packageName, c.seq) || seen.has(c.seq)) continue;
    const w = c.writes.find((x) => isBusiness(x.table, ctx.bookkeepingTables?.get(c.packageName)));
    if (w)
      return {
        ok: false,
        reason: `commit #${c.seq} ("${c.tx}") wrote ${w.table}/${w.key} and no request that took effect can be held to it`,
      };
  }
  const groups = new Map<string, { commits: BusinessCommit[]; effects: EffectNote[]; first: number }>();
  const group = (key: string, seq: number) => {
    const g = groups.get(key) ?? { commits: [], effects: [], first: seq };
    groups.set(key, g);
    return g;
  };
  for (const b of attributed) group(`${b.provider}|${b.uid}|${b.requestId}`, b.commit.seq).commits.push(b);
  for (const e of obs.effects) {
    if (!wipe.has(e.provider)) continue;
    const seq = e.seq ?? obs.events.find((x) => x.step >= e.step)?.seq ?? Infinity;
    if (!after(e.provider, seq)) continue;
    group(`${e.provider}|${e.uid}|${e.requestId.toLowerCase()}`, seq).effects.push(e);
  }
  const calls = new Map<string, (typeof obs.calls)[number][]>();
  for (const c of obs.calls) {
    if (c.method !== 'execute_tool' || !c.v2 || c.requestId === null) continue;
    const same = calls.get(c.requestKey);
    if (same) same.push(c);
    else calls.set(c.requestKey, [c]);
  }
  const out: RunRequest[] = [];
  for (const [key, g] of groups) {
    const [provider = '', uidText = '', requestId = ''] = key.split('|');
    // The call whose handling made its first commit, else every call of it that was not refused.
    const own = g.commits.find((b) => b.call)?.call;
    const sent = own
      ? [own]
      : (calls.get(key) ?? []).filter((c) => {
          const a = c.reply.kind === 'bundle' ? c.reply : c.lostAnswer;
          return a === null || a.status !== 'error' || a.errorCode === 'USER_ACTION_REQUIRED';
        });
    const shapes = new Set(sent.map((c) => `${c.toolName}\u0000${c.args}`));
    const call = sent[0];
    if (!call || shapes.size !== 1 || call.toolName === null || call.args === null)
      return {
        ok: false,
        reason: `request ${requestId} of uid ${uidText} took effect but ${call ? 'was sent with different tools or args' : 'no execute_tool call of it is on the wire'}`,
      };
    out.push({
      key,
      provider,
      uid: Number(uidText),
      callerPackage: call.caller,
      requestId,
      tool: call.toolName,
      args: call.args,
      firstSeq: g.first,
      commits: g.commits,
      effects: g.effects,
    });
  }
  out.sort((a, b) => a.firstSeq - b.firstSeq);
  return { ok: true, requests: out };
}

/** A live row of business state: which request (by index in effect order) created it, and where. */
export interface StateRow {
  readonly provider: string;
  readonly table: string;
  readonly key: string;
  readonly value: JsonValue | null;
  readonly creator: number;
  /** The commits (trace events) that wrote it, in order. */
  readonly seqs: readonly number[];
}

/** A business write, with its provider, commit (trace event) and the index of its request. */
export type IndexedWrite = CommitWrite & {
  readonly provider: string;
  readonly seq: number;
  readonly request: number;
};

/** Folds business writes (in commit order) into the live rows each request created, by request index. */
export function foldState(writes: readonly IndexedWrite[], requests: number): StateRow[][] {
  const live = new Map<string, StateRow>();
  for (const w of [...writes].sort((x, y) => x.seq - y.seq)) {
    const id = `${w.provider}\u0000${w.table}\u0000${w.key}`;
    const prior = live.get(id);
    if (w.deleted) live.delete(id);
    else
      live.set(id, {
        provider: w.provider,
        table: w.table,
        key: w.key,
        value: w.value,
        creator: prior?.creator ?? w.request,
        seqs: [...(prior?.seqs ?? []), w.seq],
      });
  }
  const out: StateRow[][] = Array.from({ length: requests }, () => []);
  for (const row of live.values()) out[row.creator]?.push(row);
  return out;
}

/** A number that reads as an instant of the simulated clock (epoch ms or s, 2017–2039). */
function clockNumber(n: number): boolean {
  return (n >= 1.5e12 && n <= 2.2e12) || (n >= 1.5e9 && n <= 2.2e9);
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An instant of the clock: a clock-like number or an ISO-8601 date-time. */
export function clockLike(v: string | number): boolean {
  return typeof v === 'number' ? clockNumber(v) : ISO_INSTANT.test(v);
}

/**
 * Pairs the run's generated values with the replay's, one to one, by first appearance. A string that
 * was sent as an argument in both worlds (`fixed`) must be itself; other strings may stand for one
 * other string of the other world. Instants of the clock (clockLike) are not identities: when a
 * request ran differs between the two worlds, and several requests may share an instant in one and
 * not in the other, so any instant matches any instant. Every other value must be equal.
 */
export class Matcher {
  readonly forward = new Map<string, string>();
  private readonly backward = new Map<string, string>();
  constructor(private readonly fixed: ReadonlySet<string>) {}

  /** The replay's value for a run's value (itself when none is paired). */
  translate(v: string): string {
    return this.forward.get(v) ?? v;
  }

  private pair(a: string, b: string): boolean {
    const fa = this.forward.get(a);
    const fb = this.backward.get(b);
    if (fa !== undefined || fb !== undefined) return fa === b && fb === a;
    if (a !== b && (this.fixed.has(a) || this.fixed.has(b))) return false;
    this.forward.set(a, b);
    this.backward.set(b, a);
    return true;
  }

  /** The first path (`.field[1]`) where `a` (run) and `b` (replay) differ, or null (pairs recorded). */
  unify(a: JsonValue | null | undefined, b: JsonValue | null | undefined, path = ''): string | null {
    if (typeof a === 'string' && typeof b === 'string') {
      if (clockLike(a) && clockLike(b)) return null;
      return this.pair(a, b) ? null : path || '(value)';
    }
    if (typeof a === 'number' && typeof b === 'number')
      return a === b || (clockLike(a) && clockLike(b)) ? null : path || '(value)';
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return `${path} (length ${a.length} vs ${b.length})`;
      for (let i = 0; i < a.length; i++) {
        const d = this.unify(a[i], b[i], `${path}[${i}]`);
        if (d !== null) return d;
      }
      return null;
    }
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const k of keys) {
        const d = this.unify(a[k], b[k], `${path}.${k}`);
        if (d !== null) return d;
      }
      return null;
    }
    return a === b ? null : path || '(value)';
  }
}

function isObject(v: unknown): v is { readonly [k: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every string leaf of a JSON text (the args a request was sent with). */
export function stringLeaves(text: string): string[] {
  const out: string[] = [];
  try {
    pushLeaves(JSON.parse(text), out);
  } catch {
    // Args that are not JSON have no leaves to pair.
  }
  return out;
}

/** Pushes every string leaf of `v` onto `out`, depth first (a module function: keep-names names a nested one per call). */
function pushLeaves(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) pushLeaves(x, out);
  else if (isObject(v)) for (const x of Object.values(v)) pushLeaves(x, out);
}

/** `text` (JSON args) with every string leaf `translate` knows replaced (the replay's ids). */
export function translateArgs(text: string, translate: (s: string) => string): string {
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') return translate(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  try {
    return JSON.stringify(walk(JSON.parse(text) as JsonValue));
  } catch {
    return text;
  }
}

/** A run request's business writes (request index `request`), as foldState takes them. */
export function writesOf(r: RunRequest, request: number): IndexedWrite[] {
  const out: IndexedWrite[] = [];
  for (const b of r.commits)
    for (const w of b.writes)
      out.push({
        table: w.table,
        key: w.key,
        deleted: w.deleted,
        value: w.value,
        provider: b.provider,
        seq: b.commit.seq,
        request,
      });
  return out;
}
