/**
 * What user oracles see of a finished run (src/subjects/user-oracle-types.ts), read from the world's
 * record — never from the app: the app's durable storage at the end (the tables its commits wrote,
 * as committed; the SDK's `cetp.*` bookkeeping left out) and its history (every execute_tool
 * request on the wire with its calls and outcome, its process deaths and data wipes). Both are plain,
 * frozen data, computed once per observation and package.
 */

import canonicalize from 'canonicalize';
import type { JsonValue } from '../base/json.ts';
import type {
  AppState,
  HistoryCall,
  LifecycleEvent,
  RequestHistory,
  RequestOutcome,
  RunHistory,
  StoredTable,
} from '../subjects/user-oracle-types.ts';
import type { BundleReplyView, CallView, EffectNote, Observation } from './observation.ts';
import { memoOn, parseJson, providerOfProcess, replyStatus } from './observation.ts';
import { storedRows } from './record.ts';

/** Tables of the provider SDK's own bookkeeping (src/providers/sdk/records.ts): not the app's state. */
export const SDK_TABLE_PREFIX = 'cetp.';

/** Every table `pkg`'s commits wrote in this run, in first-write order. */
function tablesOf(obs: Observation, pkg: string): string[] {
  const names = new Set<string>();
  for (const c of obs.record.truth.commits)
    if (c.packageName === pkg) for (const w of c.writes) names.add(w.table);
  return [...names];
}

function tableOf(obs: Observation, pkg: string, table: string): StoredTable {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of storedRows(obs.record, pkg, table)) out[k] = v;
  return Object.freeze(out);
}

const STATES: unique symbol = Symbol('cetp.check.history.states');
const HISTORIES: unique symbol = Symbol('cetp.check.history.histories');
const SDK_STATES: unique symbol = Symbol('cetp.check.history.sdk-states');

function perPackage<V>(obs: Observation, slot: symbol, pkg: string, compute: () => V): V {
  const table = memoOn(obs, slot, () => new Map<string, V>());
  let value = table.get(pkg);
  if (value === undefined) {
    value = compute();
    table.set(pkg, value);
  }
  return value;
}

/** `pkg`'s durable storage at the end of the run: its own tables (not `cetp.*`). */
export function appState(obs: Observation, pkg: string): AppState {
  return perPackage(obs, STATES, pkg, () => {
    const out: Record<string, StoredTable> = {};
    for (const t of tablesOf(obs, pkg)) if (!t.startsWith(SDK_TABLE_PREFIX)) out[t] = tableOf(obs, pkg, t);
    return Object.freeze(out);
  });
}

/** `pkg`'s SDK bookkeeping tables at the end of the run (for results no answer carried). */
function sdkState(obs: Observation, pkg: string): AppState {
  return perPackage(obs, SDK_STATES, pkg, () => {
    const out: Record<string, StoredTable> = {};
    for (const t of tablesOf(obs, pkg)) if (t.startsWith(SDK_TABLE_PREFIX)) out[t] = tableOf(obs, pkg, t);
    return Object.freeze(out);
  });
}

/** The trace seqs of `pkg`'s wipes (pm.uninstall: a reinstall or a re-sign under another key too). */
export function wipeSeqs(obs: Observation, pkg: string): number[] {
  return obs.events.filter((e) => e.kind === 'pm.uninstall' && e.data.package === pkg).map((e) => e.seq);
}

/** The steps of `pkg`'s wipes. */
function wipeSteps(obs: Observation, pkg: string): number[] {
  return obs.events.filter((e) => e.kind === 'pm.uninstall' && e.data.package === pkg).map((e) => e.step);
}

/** Which install of the app a call made at `step` reached (a call has a step, not a trace seq). */
function incarnationAtStep(wipes: readonly number[], step: number): number {
  // Faults due at a step are applied before that step's task runs (the scheduler's beforeStep
  // hook): a call made in a wipe's step is made after the wipe.
  return wipes.filter((s) => s <= step).length;
}

/** Terminal operation answers seen, by `provider|operation_id`: the get_operation reply's data. */
function operationEnds(obs: Observation): Map<string, { state: string; data: Record<string, unknown> }> {
  const ends = new Map<string, { state: string; data: Record<string, unknown> }>();
  for (const c of obs.calls) {
    if (c.method !== 'get_operation') continue;
    const reply = answerOf(c);
    if (reply?.status !== 'success') continue;
    const data = (reply.data ?? {}) as Record<string, unknown>;
    const state = data.state;
    if (state === 'succeeded' || state === 'failed' || state === 'cancelled')
      ends.set(c.operationKey, { state, data });
  }
  return ends;
}

/**
 * A v2 result's value (§4.2: `{ kind: 'inline', value }`); for `{ kind: 'file', … }` (4.5) the JSON
 * the provider wrote behind the reply's `result_fd` (`file`), null when it cannot be read as such.
 * Anything else (a v1 answer) is the result as it is.
 */
function resultValue(data: JsonValue | undefined, file: () => JsonValue = () => null): JsonValue {
  if (data === undefined) return null;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    if (data.kind === 'inline' && 'value' in data) return data.value ?? null;
    if (data.kind === 'file') return file();
  }
  return data;
}

/**
 * The JSON behind a file result's `result_fd`, as the world knows the bytes (a file's content; a
 * pipe's bytes once every writer closed it, from the ground truth's file results); null when the
 * bytes are not known whole, were torn or rewritten, or are not JSON.
 */
function fileJson(obs: Observation, reply: BundleReplyView): JsonValue {
  const entry = reply.bundle.getEntry('result_fd');
  const target = entry?.type === 'ParcelFileDescriptor' ? entry.value?.description.target : undefined;
  if (target === undefined) return null;
  const key = target.kind === 'pipe' ? `pipe#${target.pipe.id}:write` : `file:${target.file.path}`;
  if (target.kind === 'pipe' && target.pipe.writers > 0) return null;
  const written = obs.record.truth.fileResults.filter((r) => r.target === key);
  // A file written through a descriptor, or torn at a power loss, no longer holds the reply's bytes.
  const torn = obs.events.some((e) => e.kind === 'fs.torn' && `file:${String(e.data.path)}` === key);
  const bytes =
    target.kind === 'pipe' ? written[0]?.bytes : written.length > 0 || torn ? null : target.file.bytes;
  if (!bytes) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as JsonValue;
  } catch {
    return null;
  }
}

/** What the provider answered a call: the delivered reply, or the one lost on the way back. */
function answerOf(c: CallView): BundleReplyView | null {
  if (c.reply.kind === 'bundle') return c.reply;
  return c.lostAnswer;
}

function outcomeOfCall(
  obs: Observation,
  c: CallView,
  ends: ReadonlyMap<string, { state: string; data: Record<string, unknown> }>,
): RequestOutcome {
  const reply = answerOf(c);
  if (!reply) return { kind: 'unknown' };
  if (reply.status === 'success')
    return { kind: 'succeeded', result: frozen(resultValue(reply.data, () => fileJson(obs, reply))) };
  if (reply.status === 'error')
    return { kind: 'error', code: reply.errorCode ?? 'UNKNOWN', retryable: reply.retryable };
  if (reply.status !== 'accepted') return { kind: 'unknown' };
  const operationId = (reply.data as { operation_id?: unknown } | undefined)?.operation_id;
  const end = ends.get(`${c.provider}|${String(operationId)}`);
  if (!end) return { kind: 'unknown' };
  if (end.state === 'succeeded')
    return { kind: 'succeeded', result: frozen(resultValue(end.data.result as JsonValue)) };
  if (end.state === 'cancelled') return { kind: 'cancelled' };
  const error = end.data.error as { error_code?: unknown; retryable?: unknown } | undefined;
  return {
    kind: 'error',
    code: String(error?.error_code ?? 'UNKNOWN'),
    retryable: typeof error?.retryable === 'boolean' ? error.retryable : null,
  };
}

/**
 * A request's outcome from its calls: a success if any call (or its operation) succeeded; otherwise
 * an error only when every call was answered with one and the world recorded no effect for it (the
 * last such answer); anything else may have taken effect: unknown.
 */
function outcomeOf(outcomes: readonly RequestOutcome[], effects: number): RequestOutcome {
  const success = outcomes.find((o) => o.kind === 'succeeded');
  if (success) return success;
  if (effects > 0 || outcomes.some((o) => o.kind === 'unknown')) return { kind: 'unknown' };
  return outcomes[outcomes.length - 1] ?? { kind: 'unknown' };
}

/**
 * A frozen deep copy: what user code reads must not be able to change what the next oracle sees
 * (a reply's data is the observation's own object). Iterative: a hostile caller's args may nest
 * deeper than the stack.
 */
function frozen<T extends JsonValue | undefined>(value: T): T {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  const root: { v: JsonValue } = { v: null };
  const todo: [JsonValue, Record<string, JsonValue> | JsonValue[], string | number][] = [
    [value, root as never, 'v'],
  ];
  const made: object[] = [];
  for (let item = todo.pop(); item !== undefined; item = todo.pop()) {
    const [from, into, key] = item;
    let copy: JsonValue = from;
    if (Array.isArray(from)) {
      const list: JsonValue[] = new Array(from.length).fill(null);
      for (let i = 0; i < from.length; i++) todo.push([from[i] as JsonValue, list, i]);
      copy = list;
    } else if (from !== null && typeof from === 'object') {
      const object: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(from)) if (v !== undefined) todo.push([v, object, k]);
      copy = object;
    }
    (into as Record<string | number, JsonValue>)[key] = copy;
    if (copy !== null && typeof copy === 'object') made.push(copy);
  }
  for (const o of made) Object.freeze(o);
  return root.v as T;
}

/** The calls of one request: same caller UID, request_id, tool, args bytes and install of the app. */
interface CallGroup {
  readonly base: string;
  readonly args: string | null;
  readonly incarnation: number;
  readonly calls: CallView[];
}

/**
 * `pkg`'s execute_tool calls grouped into requests, in first-call order. A call without args (a
 * resume that carries only its token) joins the latest request of its (UID, request_id, tool).
 */
function callGroups(obs: Observation, pkg: string): CallGroup[] {
  const groups: CallGroup[] = [];
  const byKey = new Map<string, CallGroup>();
  const latest = new Map<string, CallGroup>();
  const wipes = wipeSteps(obs, pkg);
  for (const c of obs.calls) {
    if (c.provider !== pkg || c.method !== 'execute_tool' || c.requestId === null || c.toolName === null)
      continue;
    const incarnation = incarnationAtStep(wipes, c.step);
    const base = `${c.callerUid}|${c.requestId}|${incarnation}|${c.toolName}`;
    const joined = c.args === null ? latest.get(base) : byKey.get(`${base}|${c.args}`);
    if (joined) {
      joined.calls.push(c);
      continue;
    }
    const group: CallGroup = { base, args: c.args, incarnation, calls: [c] };
    groups.push(group);
    byKey.set(`${base}|${c.args}`, group);
    latest.set(base, group);
  }
  return groups;
}

/**
 * Each committed effect of `pkg`, given to the request it was made for: same UID, request_id, tool
 * and install; among several (the same request_id sent with other args), the one whose args it
 * names, else the one that succeeded, else the last.
 */
function effectsByGroup(
  obs: Observation,
  pkg: string,
  wipes: readonly number[],
  groups: readonly CallGroup[],
): Map<CallGroup, EffectNote[]> {
  const byBase = new Map<string, CallGroup[]>();
  for (const g of groups) byBase.set(g.base, [...(byBase.get(g.base) ?? []), g]);
  const out = new Map<CallGroup, EffectNote[]>();
  for (const e of obs.effects) {
    if (e.provider !== pkg) continue;
    const incarnation = e.seq === null ? 0 : wipes.filter((s) => s < (e.seq as number)).length;
    const candidates = byBase.get(`${e.uid}|${e.requestId}|${incarnation}|${e.tool}`) ?? [];
    const args = canonical(e.args);
    const succeeded = (g: CallGroup) =>
      g.calls.some((c) => answerOf(c)?.status === 'success' || answerOf(c)?.status === 'accepted');
    const group =
      candidates.find(
        (g) => g.args !== null && args !== undefined && canonical(parseJson(g.args)) === args,
      ) ??
      candidates.find(succeeded) ??
      candidates[candidates.length - 1];
    if (group) out.set(group, [...(out.get(group) ?? []), e]);
  }
  return out;
}

/** Canonical JSON, or undefined for a value nested too deep to serialise (a hostile caller's args). */
export function canonical(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

const EFFECTS_OF: unique symbol = Symbol('cetp.check.history.effects-of');

/** The committed effects the world recorded for a request of `runHistory` (its own, not a copy's). */
export function effectsOfRequest(obs: Observation, request: RequestHistory): readonly EffectNote[] {
  return (
    (obs.memo.get(EFFECTS_OF) as Map<RequestHistory, readonly EffectNote[]> | undefined)?.get(request) ?? []
  );
}

/** `pkg`'s history in this run: its execute_tool requests, process deaths and wipes. */
export function runHistory(obs: Observation, pkg: string): RunHistory {
  return perPackage(obs, HISTORIES, pkg, () => {
    const ends = operationEnds(obs);
    const wipes = wipeSeqs(obs, pkg);
    const groups = callGroups(obs, pkg);
    const effects = effectsByGroup(obs, pkg, wipes, groups);
    const requests: RequestHistory[] = [];
    const effectsOf = new Map<RequestHistory, readonly EffectNote[]>();
    for (const group of groups) {
      const { calls, incarnation } = group;
      const first = calls[0] as CallView;
      const own = effects.get(group) ?? [];
      const history: HistoryCall[] = calls.map((c) => ({
        callId: c.id,
        step: c.step,
        t: c.t,
        answer: c.reply.kind === 'bundle' || !c.lostAnswer ? replyStatus(c.reply) : replyStatus(c.lostAnswer),
        delivered: c.reply.kind === 'bundle' || !c.lostAnswer,
      }));
      const request: RequestHistory = Object.freeze({
        requestId: first.requestId as string,
        callerUid: first.callerUid,
        callerPackage: first.caller,
        tool: first.toolName as string,
        args: frozen(parseJson(group.args)),
        calls: Object.freeze(history.map((h) => Object.freeze(h))),
        outcome: Object.freeze(
          outcomeOf(
            calls.map((c) => outcomeOfCall(obs, c, ends)),
            own.length,
          ),
        ),
        incarnation,
        effects: own.length,
      });
      requests.push(request);
      effectsOf.set(request, own);
    }
    memoOn(obs, EFFECTS_OF, () => new Map<RequestHistory, readonly EffectNote[]>());
    const known = obs.memo.get(EFFECTS_OF) as Map<RequestHistory, readonly EffectNote[]>;
    for (const [r, e] of effectsOf) known.set(r, e);
    const lifecycle: LifecycleEvent[] = [];
    for (const e of obs.events) {
      if (e.kind === 'process.kill' && providerOfProcess(obs, String(e.data.actor)) === pkg)
        lifecycle.push(Object.freeze({ kind: 'restart', step: e.step, seq: e.seq }));
      else if (e.kind === 'pm.uninstall' && e.data.package === pkg)
        lifecycle.push(Object.freeze({ kind: 'wipe', step: e.step, seq: e.seq }));
    }
    return Object.freeze({
      packageName: pkg,
      requests: Object.freeze(requests),
      lifecycle: Object.freeze(lifecycle),
      incarnations: wipes.length,
    });
  });
}

/**
 * The result the provider SDK recorded for a request (its `cetp.requests` record), when the app
 * runs on the SDK and the record is still there: what a request that took effect returned even when
 * no answer was ever seen.
 */
export function recordedResult(
  obs: Observation,
  pkg: string,
  uid: number,
  requestId: string,
): JsonValue | undefined {
  const table = sdkState(obs, pkg)['cetp.requests'] ?? {};
  for (const row of Object.values(table)) {
    const r = row as { uid?: unknown; requestId?: unknown; state?: unknown; result?: JsonValue };
    if (r.uid === uid && String(r.requestId).toLowerCase() === requestId && r.state === 'succeeded')
      return r.result ?? undefined;
  }
  return undefined;
}
