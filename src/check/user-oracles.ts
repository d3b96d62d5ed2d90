/**
 * Your own oracles as checkers (src/subjects/user-oracle-types.ts): a fixture's `invariants`, each the
 * oracle `invariant:<id>`, and its `model`, the oracle `model:<fixture name>`. They judge every run
 * like cetp-sim's own oracles — from the world's record, read into plain data (src/check/history.ts)
 * — so a violation is shrunk, written to a replay file and replayed like any other.
 *
 * User code can be wrong too: an invariant or a model step that throws something other than an
 * assertion is reported as that oracle's `crash` with the error's message, and never stops the
 * campaign. Which rule ids they guard is the user's to say (`ruleIds`, default none).
 */
import canonicalize from 'canonicalize';
import type { JsonValue } from '../base/json.ts';
import type {
  AppState,
  Invariant,
  ModelRequest,
  RequestHistory,
  RunHistory,
  ToolModel,
} from '../subjects/user-oracle-types.ts';
import { type Checker, type FailureClass, type Violation, violation } from './checker.ts';
import { appState, canonical, effectsOfRequest, recordedResult, runHistory, wipeSeqs } from './history.ts';
import type { Observation } from './observation.ts';

/** What the oracles need of a fixture: its name, package and own oracles. */
export interface UserOracleSubject {
  readonly name: string;
  readonly packageName: string;
  readonly invariants?: readonly Invariant[];
  readonly model?: ToolModel<unknown>;
}

export const INVARIANT_PREFIX = 'invariant:';
export const MODEL_PREFIX = 'model:';

/** An error thrown by an assertion library (node:assert, chai/vitest `expect`): a violation, not a crash. */
function isAssertion(error: unknown): error is Error {
  return error instanceof Error && error.name === 'AssertionError';
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The violation messages an invariant's result means (see InvariantResult); empty: it held. */
function messagesOf(result: unknown): string[] | 'promise' {
  if (result === undefined || result === true) return [];
  if (result === false) return ['returned false'];
  if (typeof result === 'string') return [result];
  if (Array.isArray(result)) return result.map(String);
  if (isThenable(result)) return 'promise';
  return [
    `returned ${JSON.stringify(result) ?? String(result)} (expected nothing, a boolean, a message or messages)`,
  ];
}

function invariantChecker(subject: UserOracleSubject, invariant: Invariant): Checker {
  const checker: Checker = {
    id: `${INVARIANT_PREFIX}${invariant.id}`,
    ruleIds: invariant.ruleIds ?? [],
    description: `${subject.name}: ${invariant.description ?? invariant.id} (your invariant)`,
    check(obs: Observation): Violation[] {
      const say = (message: string, cls: FailureClass = 'correctness') =>
        violation(checker, `invariant ${invariant.id} of ${subject.name}: ${message}`, { class: cls });
      let seen: [AppState, RunHistory];
      try {
        seen = [appState(obs, subject.packageName), runHistory(obs, subject.packageName)];
      } catch (error) {
        return [say(`cetp-sim could not read this run for it: ${describeError(error)}`, 'crash')];
      }
      let result: unknown;
      try {
        result = invariant.check(...seen);
      } catch (error) {
        if (isAssertion(error)) return [say(error.message)];
        return [
          say(
            `the check threw ${describeError(error)} (an error in the invariant, not an assertion)`,
            'crash',
          ),
        ];
      }
      const messages = messagesOf(result);
      if (messages === 'promise')
        return [
          say(
            'the check returned a Promise: invariants are synchronous (state and history are plain data)',
            'crash',
          ),
        ];
      return messages.map((m) => say(m));
    },
  };
  return checker;
}

/** Maps and Sets as plain values (entries), for comparing and showing a model. */
export function plain(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value)
      out[typeof k === 'string' ? k : JSON.stringify(plain(k, depth + 1))] = plain(v, depth + 1);
    return out;
  }
  if (value instanceof Set)
    return [...value].map((v) => plain(v, depth + 1)).sort((a, b) => cmp(canonicalize(a), canonicalize(b)));
  if (Array.isArray(value)) return value.map((v) => plain(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v, depth + 1);
  return out;
}

function cmp(a: string | undefined, b: string | undefined): number {
  return (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function pathStep(key: string | number): string {
  return typeof key === 'number'
    ? `[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? `.${key}`
      : `[${JSON.stringify(key)}]`;
}

/** The first place two plain values differ, in words (null: equal). */
export function firstDifference(expected: unknown, actual: unknown, at = ''): string | null {
  if (canonicalize(expected) === canonicalize(actual)) return null;
  const where = at === '' ? 'the whole model' : at.replace(/^\./, '');
  const isObject = (v: unknown) => typeof v === 'object' && v !== null;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const d = firstDifference(expected[i], actual[i], `${at}${pathStep(i)}`);
      if (d !== null) return d;
    }
    return `${where}: the model has ${expected.length} items, storage ${actual.length}`;
  }
  if (isObject(expected) && isObject(actual) && !Array.isArray(expected) && !Array.isArray(actual)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!(k in a))
        return `${at}${pathStep(k)}`.replace(/^\./, '') + `: in the model (${show(e[k])}), not in storage`;
    for (const k of Object.keys(a))
      if (!(k in e))
        return `${at}${pathStep(k)}`.replace(/^\./, '') + `: in storage (${show(a[k])}), not in the model`;
    for (const k of Object.keys(e)) {
      const d = firstDifference(e[k], a[k], `${at}${pathStep(k)}`);
      if (d !== null) return d;
    }
  }
  return `${where}: the model has ${show(expected)}, storage ${show(actual)}`;
}

/** The first top-level key (of an object model, or a Map's) where two plain values differ, if any. */
function firstKey(expected: unknown, actual: unknown): string | null {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isRecord(expected) || !isRecord(actual)) return null;
  for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)]))
    if (canonicalize(expected[k]) !== canonicalize(actual[k])) return k;
  return null;
}

/** The last applied request whose args or result name `key` (an id the app made), if any. */
function lastNaming(requests: readonly (ModelRequest & { calls: readonly number[] })[], key: string | null) {
  if (key === null) return undefined;
  const needle = JSON.stringify(key);
  return [...requests]
    .reverse()
    .find((r) => (canonical(r.args) ?? '').includes(needle) || (canonical(r.result) ?? '').includes(needle));
}

/** A request that took effect, where in the run it did, and what it returned. */
interface Applied {
  readonly request: RequestHistory;
  readonly order: readonly [number, number, number];
}

/**
 * The requests of the app's last incarnation that took effect, once each, in effect order: those
 * with a declared business effect by the step and trace event of their first committed effect, the
 * others (no effect declared) by the step their first success was answered.
 */
function effective(obs: Observation, subject: UserOracleSubject, tools: ReadonlySet<string>): Applied[] {
  const pkg = subject.packageName;
  const history = runHistory(obs, pkg);
  const lastWipe = Math.max(-1, ...wipeSeqs(obs, pkg));
  const callsById = new Map(obs.calls.map((c) => [c.id, c]));
  const out: Applied[] = [];
  for (const request of history.requests) {
    if (request.incarnation !== history.incarnations || !tools.has(request.tool)) continue;
    const effect = effectsOfRequest(obs, request).find((e) => e.seq !== null && e.seq > lastWipe);
    if (effect) {
      out.push({ request, order: [effect.step, 0, effect.seq as number] });
      continue;
    }
    if (request.effects > 0 || request.outcome.kind !== 'succeeded') continue;
    const answered = request.calls
      .map((h) => callsById.get(h.callId))
      .filter((c) => c !== undefined && (c.reply.kind === 'bundle' || c.lostAnswer !== null))
      .map((c) => c?.served?.untilStep ?? c?.replyStep ?? c?.step ?? 0);
    out.push({
      request,
      order: [Math.min(...answered, Number.MAX_SAFE_INTEGER), 1, request.calls[0]?.callId ?? 0],
    });
  }
  return out.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2]);
}

function resultOf(obs: Observation, pkg: string, request: RequestHistory): JsonValue | undefined {
  if (request.outcome.kind === 'succeeded' && request.outcome.result !== null) return request.outcome.result;
  return (
    recordedResult(obs, pkg, request.callerUid, request.requestId) ??
    (request.outcome.kind === 'succeeded' ? null : undefined)
  );
}

function modelChecker(subject: UserOracleSubject, model: ToolModel<unknown>): Checker {
  const tools = new Set(Object.keys(model.tools));
  const checker: Checker = {
    id: `${MODEL_PREFIX}${subject.name}`,
    ruleIds: model.ruleIds ?? [],
    description: `${subject.name}: its storage equals the model run over the requests that took effect, once each (your model)`,
    check(obs: Observation): Violation[] {
      const say = (message: string, cls: FailureClass = 'correctness') =>
        violation(checker, `model of ${subject.name}: ${message}`, { class: cls });
      const requests: (ModelRequest & { calls: readonly number[] })[] = [];
      try {
        for (const { request } of effective(obs, subject, tools)) {
          const result = resultOf(obs, subject.packageName, request);
          // Ids the app generated cannot be matched without its result: this run is not judged.
          if (result === undefined) return [];
          // The model's own copies: a step may keep them in the model and change them later.
          requests.push({
            calls: request.calls.map((c) => c.callId),
            tool: request.tool,
            requestId: request.requestId,
            callerUid: request.callerUid,
            args: request.args === undefined ? undefined : structuredClone(request.args),
            result: structuredClone(result),
          });
        }
      } catch (error) {
        return [say(`cetp-sim could not read this run for it: ${describeError(error)}`, 'crash')];
      }
      let step = 'initial()';
      try {
        let m = model.initial();
        for (const request of requests) {
          step = `tools.${request.tool} (request ${request.requestId})`;
          const { calls: _calls, ...seen } = request;
          const next = (model.tools[request.tool] as NonNullable<ToolModel<unknown>['tools'][string]>)(
            m,
            seen,
          );
          if (next !== undefined) m = next;
        }
        step = 'fromStorage()';
        const actual = model.fromStorage(appState(obs, subject.packageName));
        step = 'equals()';
        const equal = model.equals
          ? model.equals(m, actual)
          : canonicalize(plain(m)) === canonicalize(plain(actual));
        if (equal) return [];
        const where = firstDifference(plain(m), plain(actual)) ?? 'equals() says they differ';
        const counts = [...new Set(requests.map((r) => r.tool))]
          .map((t) => `${requests.filter((r) => r.tool === t).length} ${t}`)
          .join(', ');
        const naming = lastNaming(requests, firstKey(plain(m), plain(actual)));
        const by = naming ? ` (last named by ${naming.tool} request ${naming.requestId})` : '';
        return [
          violation(
            checker,
            `model of ${subject.name}: after ${requests.length} requests that took effect (${counts || 'none'}), ${where}${by}`,
            { calls: naming?.calls ?? [] },
          ),
        ];
      } catch (error) {
        if (isAssertion(error)) return [say(`${step}: ${error.message}`)];
        return [say(`${step} threw ${describeError(error)} (an error in the model's code)`, 'crash')];
      }
    },
  };
  return checker;
}

/** The checkers of the fixtures' own invariants and models, in fixture order. */
export function userOracles(subjects: readonly UserOracleSubject[]): Checker[] {
  return subjects.flatMap((s) => [
    ...(s.invariants ?? []).map((i) => invariantChecker(s, i)),
    ...(s.model ? [modelChecker(s, s.model)] : []),
  ]);
}

/** Whether a checker id is a user oracle's. */
export function isUserOracle(id: string): boolean {
  return id.startsWith(INVARIANT_PREFIX) || id.startsWith(MODEL_PREFIX);
}
