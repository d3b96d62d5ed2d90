/**
 * What a finished run looked like at the CETP level, read from the world after it ran — never from
 * the components' memory. Checkers (TigerBeetle-style oracles, apart from the components they judge)
 * work only from this:
 * - every ContentProvider.call with its request and reply Bundles (World.contentCalls), decoded;
 * - the world's ground truth (src/sim/ground-truth.ts): business effects declared through the public
 *   effect API and committed, every screen shown with the user's actual answer, what consumers
 *   returned to their agents;
 * - the reference consumer's audit events; user decisions; process deaths; fd leaks; the outcome.
 */

import type { JsonObject, JsonValue } from '../base/json.ts';
import { META_VERSIONS } from '../protocol/discovery.ts';
import { joinedKey, lowerCased } from '../protocol/names.ts';
import type { Bundle, BundleEntry } from '../sim/binder/bundle.ts';
import type { ContentCallRecord } from '../sim/content/content.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import type { AgentCallRecord, ScreenRecord } from '../sim/ground-truth.ts';
import type { RunReport, World } from '../sim/world.ts';
import type { FaultFreeRecord } from './fault-free-record.ts';
import { callOf, packageOf, type RunRecord, recordRun, reportOf } from './record.ts';

/** The methods a v1 provider serves (§8): the only calls that can be v1. */
const V1_METHODS: ReadonlySet<string> = new Set(['list_tools', 'execute_tool']);

export type ReplyView =
  | { readonly kind: 'none' }
  | { readonly kind: 'exception'; readonly name: string }
  | { readonly kind: 'null' }
  | BundleReplyView;

export interface BundleReplyView {
  readonly kind: 'bundle';
  readonly bundle: Bundle;
  readonly status: string | null;
  readonly errorCode: string | null;
  readonly retryable: boolean | null;
  readonly retryAfterMs: number | null;
  readonly data: JsonValue | undefined;
  readonly requestId: string | null;
}

/**
 * One call, decoded: who called whom, when and with which method as the world recorded it, and the
 * request and reply read. Request fields are present when the request carried them with the right type.
 */
export interface CallView
  extends Pick<
    ContentCallRecord,
    | 'id'
    | 'caller'
    | 'callerUid'
    | 'callerPid'
    | 'provider'
    | 'providerUid'
    | 'method'
    | 'step'
    | 't'
    | 'callerProcess'
    | 'providerProcess'
  > {
  /** protocol_version was an Int 2: a v2 call. A v1 call is a v1 method (list_tools, execute_tool)
   *  without protocol_version; negotiate never carries one and is neither. */
  readonly v2: boolean;
  readonly v1: boolean;
  readonly requestId: string | null;
  readonly sessionToken: string | null;
  readonly deadlineAtMs: number | null;
  readonly toolName: string | null;
  /** The exact args string sent (identity of the args, as the reference provider binds bytes). */
  readonly args: string | null;
  readonly resumeToken: string | null;
  readonly operationId: string | null;
  /** The request extras as sent (a snapshot), for keys not decoded above. */
  readonly request: Bundle | null;
  readonly reply: ReplyView;
  /**
   * The provider's answer when it answered but the reply never reached the caller (a lost reply):
   * what the provider decided, which the caller never saw. Null otherwise.
   */
  readonly lostAnswer: BundleReplyView | null;
  readonly replyStep: number | null;
  readonly replyT: number | null;
  /**
   * When the provider's handler ran, as the world saw it (src/sim/content/content.ts ServedInterval): the
   * provider process instance, the step its binder thread called ContentProvider.call, and the step
   * that call returned (null: never). Null for an in-process call or one that never reached a handler.
   */
  readonly served: {
    readonly pid: number;
    readonly fromStep: number;
    readonly untilStep: number | null;
  } | null;
  /**
   * `provider|callerUid|requestId`, `provider|toolName` and `provider|operationId`: the keys the
   * oracles index calls by, built once per call (a key built afresh for each lookup is hashed afresh).
   */
  readonly requestKey: string;
  readonly toolKey: string;
  readonly operationKey: string;
}

/**
 * A business effect, as the world recorded it (src/sim/ground-truth.ts): declared by the provider
 * through the public effect API (AppContext.declareEffect) and kept only if its transaction
 * committed. Where and when are the world's record; the fields the provider declared are facts about
 * the effect (which request, whose data, which object, which args), judged against the wire and
 * the screens.
 */
export interface EffectNote {
  /** The commit's trace event (null: declared outside a store transaction). */
  readonly seq: number | null;
  readonly step: number;
  readonly t: number;
  readonly provider: string;
  readonly pid: number;
  /** The UID the provider made it for (the caller it attributed the request to). */
  readonly uid: number;
  /** Whose data it touched. */
  readonly ownerUid: number;
  readonly requestId: string;
  readonly tool: string;
  readonly object: string | null;
  readonly args: JsonValue;
  /** The provider declared that its policy needed the user's approval for it (e.g. runtime risk, 3.4-12). */
  readonly approvalRequired: boolean;
}

/** Trace events that show an effect (none when it was declared outside a transaction). */
export function effectEvents(...effects: readonly EffectNote[]): number[] {
  return effects.flatMap((e) => (e.seq === null ? [] : [e.seq]));
}

/**
 * The reference SDK's own trace notes of its confirmation records (not ground truth: what the SDK
 * says it did). Oracles judge approvals from `screens`; these remain for the SDK's own diagnostics.
 */
export interface ConfirmationNote {
  readonly seq: number;
  readonly step: number;
  readonly provider: string;
  readonly event: string;
  readonly id: string;
  readonly kind: string;
  readonly uid: number;
  readonly requestId: string;
  readonly tool: string;
  readonly argsDigest: string;
  /** Scopes a grant confirmation is about (empty for plain confirmations). */
  readonly scopes: readonly string[];
}

export interface Observation {
  /** The run's record (record.ts): plain data, all an oracle may read of the world. */
  readonly record: RunRecord;
  readonly report: RunReport;
  readonly events: readonly TraceEvent[];
  readonly calls: readonly CallView[];
  readonly effects: readonly EffectNote[];
  readonly confirmations: readonly ConfirmationNote[];
  /** Every screen an Activity showed and the user's actual answer on it (the world's record). */
  readonly screens: readonly ScreenRecord[];
  /** What consumers' agent APIs returned to their agents (recorded by the scenario driver). */
  readonly agentCalls: readonly AgentCallRecord[];
  /** Audit events of apps (consumer execution events, provider audit). */
  readonly audits: readonly TraceEvent[];
  /** Step after which the scenario promised no more faults (for liveness), or null. */
  readonly quietFromStep: number | null;
  /** The fault-free replay of the requests that took effect (src/check/fault-free.ts), when one was made. */
  readonly faultFree?: FaultFreeRecord;
  /** Values derived from this observation, computed once by whichever oracle asks first (`memoOn`). */
  readonly memo: Map<symbol, unknown>;
}

/** The value type of a Bundle entry of type `T`. */
type EntryValue<T extends BundleEntry['type']> = { [E in BundleEntry as E['type']]: E['value'] }[T];

/** `b`'s value under `key` if it has type `type` (one lookup; any other type is null, without a warning). */
function typedValue<T extends BundleEntry['type']>(b: Bundle, key: string, type: T): EntryValue<T> | null {
  const e = b.getEntry(key);
  return e?.type === type ? (e.value as unknown as EntryValue<T>) : null;
}

function str(b: Bundle, key: string): string | null {
  return typedValue(b, key, 'String');
}

/** `text` read as JSON: undefined when there is none or it is not JSON. */
export function parseJson(text: string | null): JsonValue | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function viewReply(record: ContentCallRecord): ReplyView {
  const r = record.result;
  if (!r) return { kind: 'none' };
  if (r.kind === 'exception') return { kind: 'exception', name: r.exception };
  return r.reply === null ? { kind: 'null' } : viewBundleReply(r.reply);
}

function viewBundleReply(b: Bundle): BundleReplyView {
  return {
    kind: 'bundle',
    bundle: b,
    status: str(b, 'status'),
    errorCode: str(b, 'error_code'),
    retryable: typedValue(b, 'retryable', 'Boolean'),
    retryAfterMs: typedValue(b, 'retry_after_ms', 'Long'),
    data: parseJson(str(b, 'data')),
    requestId: str(b, 'request_id'),
  };
}

function viewLostAnswer(record: ContentCallRecord): BundleReplyView | null {
  const r = record.result;
  return r?.kind === 'exception' && r.undelivered ? viewBundleReply(r.undelivered) : null;
}

export function viewCall(record: ContentCallRecord): CallView {
  const view = viewOf(record);
  if (record.callerProcess === undefined && record.providerProcess === undefined) return view;
  // Rare (a provider in a process of its own, another user's process): the process names, in this
  // order after `t`, as the view always had them (an object spread on every call took V8's slow path).
  const { id, caller, callerUid, callerPid, provider, providerUid, method, step, t, ...rest } = view;
  return Object.assign(
    { id, caller, callerUid, callerPid, provider, providerUid, method, step, t },
    record.callerProcess !== undefined ? { callerProcess: record.callerProcess } : {},
    record.providerProcess !== undefined ? { providerProcess: record.providerProcess } : {},
    rest,
  );
}

function viewOf(record: ContentCallRecord): CallView {
  const e = record.extras;
  const pv = e?.getEntry('protocol_version');
  const args = e ? str(e, 'args') : null;
  const rid = e ? str(e, 'request_id') : null;
  const requestId = rid === null ? null : lowerCased(rid);
  const toolName = e ? str(e, 'tool_name') : null;
  const operationId = e ? str(e, 'operation_id') : null;
  return {
    id: record.id,
    caller: record.caller,
    callerUid: record.callerUid,
    callerPid: record.callerPid,
    provider: record.provider,
    providerUid: record.providerUid,
    method: record.method,
    step: record.step,
    t: record.t,
    v2: pv?.type === 'Int' && pv.value === 2,
    v1: pv === undefined && V1_METHODS.has(record.method),
    requestId,
    sessionToken: e ? str(e, 'session_token') : null,
    deadlineAtMs: e ? typedValue(e, 'deadline_at_ms', 'Long') : null,
    toolName,
    args,
    resumeToken: e ? str(e, 'resume_token') : null,
    operationId,
    request: e,
    reply: viewReply(record),
    lostAnswer: viewLostAnswer(record),
    replyStep: record.result?.step ?? null,
    replyT: record.result?.t ?? null,
    served: record.served ?? null,
    requestKey: joinedKey(`${record.provider}|${record.callerUid}|`, `${requestId}`),
    toolKey: joinedKey(`${record.provider}|`, `${toolName}`),
    operationKey: joinedKey(`${record.provider}|`, `${operationId}`),
  };
}

type Noted = { event: TraceEvent; note: JsonObject };

/** The reference SDK's confirmation notes on the run's commits. */
function confirmationNotes(events: readonly TraceEvent[]): Noted[] {
  const confirmation: Noted[] = [];
  for (const event of events) {
    if (event.kind !== 'store.commit' || !Array.isArray(event.data.notes)) continue;
    for (const n of event.data.notes) {
      if (typeof n !== 'object' || n === null || Array.isArray(n)) continue;
      if (n.cetp === 'confirmation') confirmation.push({ event, note: n });
    }
  }
  return confirmation;
}

/**
 * Orders calls by when they were answered (a lost reply counts when it was lost; unanswered calls
 * last), ties by when they were made. Oracles that ask "which answer came first" — not "which call
 * was made first" — sort with it: a call made earlier may be answered later.
 */
export function byAnswer(a: CallView, b: CallView): number {
  return (a.replyStep ?? Infinity) - (b.replyStep ?? Infinity) || a.id - b.id;
}

/** A value computed once per observation and kept in its `memo` under `slot`. */
export function memoOn<V>(obs: Observation, slot: symbol, compute: (obs: Observation) => V): V {
  const known = obs.memo.get(slot) as V | undefined;
  if (known !== undefined) return known;
  const value = compute(obs);
  obs.memo.set(slot, value);
  return value;
}

const BY_REQUEST_KEY: unique symbol = Symbol('cetp.check.calls-by-request-key');
const BY_OPERATION_KEY: unique symbol = Symbol('cetp.check.calls-by-operation-key');
const NO_CALLS: readonly CallView[] = Object.freeze([]);

/**
 * The calls whose `requestKey` is `key` (any method), in the order they were made: an index built
 * once per observation, so an oracle that looks up a request's calls per item does not scan every
 * call each time. A caller that needs more than the key re-applies its own test to these.
 */
export function callsWithRequestKey(obs: Observation, key: string): readonly CallView[] {
  return memoOn(obs, BY_REQUEST_KEY, () => groupBy(obs.calls, (c) => c.requestKey)).get(key) ?? NO_CALLS;
}

/** The calls whose `operationKey` is `key` (any method), in the order they were made (indexed once). */
export function callsWithOperationKey(obs: Observation, key: string): readonly CallView[] {
  return memoOn(obs, BY_OPERATION_KEY, () => groupBy(obs.calls, (c) => c.operationKey)).get(key) ?? NO_CALLS;
}

/** Groups items by a string key, keeping first-seen order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * The successful negotiate call that issued each session token, by provider then token (tokens are
 * 64 characters: no key strings are built per lookup). Computed once per observation.
 */
export function negotiatedBy(obs: Observation): ReadonlyMap<string, ReadonlyMap<string, CallView>> {
  return memoOn(obs, ISSUERS, issuersOf);
}

function issuersOf(obs: Observation): Map<string, Map<string, CallView>> {
  const table = new Map<string, Map<string, CallView>>();
  for (const c of obs.calls) {
    if (!succeeded(c, 'negotiate')) continue;
    const token = (c.reply.data as { session_token?: unknown } | undefined)?.session_token;
    if (typeof token !== 'string') continue;
    let ofProvider = table.get(c.provider);
    if (!ofProvider) {
      ofProvider = new Map();
      table.set(c.provider, ofProvider);
    }
    ofProvider.set(token, c);
  }
  return table;
}

const ISSUERS: unique symbol = Symbol('cetp.check.issuers');

/** The negotiate call that issued the session token `call` carries, if this run issued it. */
export function issuerOf(obs: Observation, call: CallView): CallView | undefined {
  return call.sessionToken === null
    ? undefined
    : negotiatedBy(obs).get(call.provider)?.get(call.sessionToken);
}

/**
 * Whether a reply shows the provider honoured the call's session: success or accepted, or any error
 * the provider decides only after the session check (spec order, §4: envelope, then session).
 */
export function sessionHonoured(c: CallView): boolean {
  if (c.reply.kind !== 'bundle') return false;
  if (c.reply.status === 'success' || c.reply.status === 'accepted') return true;
  return c.reply.status === 'error' && !BEFORE_SESSION.has(c.reply.errorCode ?? '');
}

/** Error codes a provider may answer before it looks at the session. */
const BEFORE_SESSION: ReadonlySet<string> = new Set([
  'NEGOTIATION_REQUIRED',
  'INVALID_REQUEST',
  'INVALID_ARGS', // args that are not JSON, read with the envelope
  'UNSUPPORTED_VERSION',
  'METHOD_NOT_FOUND',
  'INTERNAL_ERROR', // a misconfigured provider serves no v2 at all
]);

/**
 * The protocol versions a package's manifest declares on its discovery service (meta-data
 * `versions`, comma-separated): the provider's own published configuration, not its memory.
 */
export function declaredVersions(obs: Observation, packageName: string): number[] {
  const info = packageOf(obs.record, packageName);
  const listed = info?.manifest.services.flatMap((s) => (s.metaData[META_VERSIONS] ?? '').split(',')) ?? [];
  return listed.filter((v) => v.trim() !== '').map(Number);
}

/** The observation of a finished world (its record, read as the oracles read it). */
export function observe(world: World, report: RunReport, quietFromStep: number | null = null): Observation {
  return observeRecord(recordRun(world, report, quietFromStep));
}

/** `obs` with the fault-free replay made for it where the module ran (faults-transparent), if any. */
export function withFaultFree(obs: Observation, faultFree: FaultFreeRecord | undefined): Observation {
  return faultFree === undefined ? obs : { ...obs, faultFree };
}

/** The observation of a run's record: what every oracle judges, from the record alone. */
export function observeRecord(record: RunRecord): Observation {
  const events = record.events;
  const truth = record.truth;
  return {
    record,
    report: reportOf(record),
    events,
    calls: record.calls.map((c) => viewCall(callOf(c))),
    effects: truth.effects.map((e) => ({
      seq: e.seq,
      step: e.step,
      t: e.t,
      provider: e.provider,
      pid: e.pid,
      uid: e.callerUid,
      ownerUid: e.ownerUid,
      requestId: e.requestId,
      tool: e.tool,
      object: e.object ?? null,
      args: e.args,
      approvalRequired: e.approvalRequired === true,
    })),
    confirmations: confirmationNotes(events).map(({ event, note }) => ({
      seq: event.seq,
      step: event.step,
      provider: String(event.data.actor),
      event: String(note.event),
      id: String(note.id),
      kind: String(note.kind),
      uid: Number(note.uid),
      requestId: String(note.request_id),
      tool: String(note.tool),
      argsDigest: String(note.args_digest),
      scopes: Array.isArray(note.scopes) ? note.scopes.map(String) : [],
    })),
    screens: truth.screens,
    agentCalls: truth.agentCalls,
    audits: events.filter((e) => e.kind === 'app.audit'),
    quietFromStep: record.quietFromStep,
    memo: new Map(),
  };
}

/** A call answered with a Bundle of status `success`. */
export type SucceededCall = CallView & { readonly reply: BundleReplyView };

/** Whether `c` (a call of `method`, when given) was answered with a Bundle of status `success`. */
export function succeeded(c: CallView, method?: string): c is SucceededCall {
  return (
    (method === undefined || c.method === method) && c.reply.kind === 'bundle' && c.reply.status === 'success'
  );
}

/** The status of a decoded reply: 'success', 'accepted', 'error:CODE', 'null', 'exception:Name', 'none'. */
export function replyStatus(reply: ReplyView): string {
  switch (reply.kind) {
    case 'bundle':
      return reply.status === 'error' ? `error:${reply.errorCode}` : (reply.status ?? 'malformed');
    case 'exception':
      return `exception:${reply.name}`;
    default:
      return reply.kind;
  }
}

const PROVIDER_PROCESSES = Symbol('providerProcesses');

/**
 * The provider package whose provider a killed process `name` ran, or null when that process ran
 * none (the main process of an app whose provider has its own `android:process`): the run's calls
 * say where each provider ran (`providerProcess`, set where it is not the package's own name — a
 * `<pkg>:cetp` process, user 10's `<pkg>@u10`). A package no call reached counts as its own process.
 * The checkers that ask whether a provider restarted read kills through this (FIDELITY.md row 35.8c).
 */
export function providerOfProcess(obs: Observation, name: string): string | null {
  const { byProcess, split } = memoOn(obs, PROVIDER_PROCESSES, () => {
    const byProcess = new Map<string, string>();
    const split = new Set<string>();
    for (const c of obs.calls) {
      byProcess.set(c.providerProcess ?? c.provider, c.provider);
      if (c.providerProcess !== undefined) split.add(c.provider);
    }
    return { byProcess, split };
  });
  return byProcess.get(name) ?? (split.has(name) ? null : name);
}
