/**
 * What a run — and a campaign — actually exercised of the implementations under test, read from the
 * world's record (the wire log, the trace), never from the implementation's word: calls that reached
 * a provider under test or came from a consumer under test, how many were answered with a CETP
 * Bundle, how many tool executions succeeded, business effects committed, confirmations the simulated
 * user answered on a provider's screen, operations seen finishing. A green verdict means something
 * only next to these counts: a property that exercised nothing has judged nothing.
 *
 * Per tool it also counts executions in fault-free runs and how many succeeded: a tool that was
 * called again and again where nothing stood in its way, and never once succeeded, does not work —
 * whatever each single run's oracles could say (`neverSucceeded`). Only answers that put the blame
 * on the provider count against a tool — INTERNAL_ERROR, UNAVAILABLE, no answer, an answer that is
 * not a CETP reply — since the fuzzer's own misbehaviour is rightly refused (args that fail business
 * validation, expired deadlines, reused ids, a denial); a provider none of whose tools ever succeeded
 * is judged on every answer but those whose preconditions were unmet (no grant, no approval, no
 * session, invalid args) or whose outcome the run never saw. A tool that succeeded in any run, even
 * one with faults, works; one that failed on one args value only is not judged on that value alone.
 * What is not judged for too few fair attempts is reported `inconclusive`, never failed: a verdict
 * on a tool must not depend on how short the campaign was (issue 30).
 */
import type { CheckContext } from './checker.ts';
import { fileResultsJudged } from './checkers/files.ts';
import { malformedCalls, refusalOf } from './checkers/malformed.ts';
import { type CallView, type Observation, succeeded } from './observation.ts';

export interface Exercised {
  /** ContentProvider calls to a provider under test or from a consumer under test. */
  readonly calls: number;
  /** Of those, answered with a Bundle that reached the caller. */
  readonly answered: number;
  /** execute_tool calls answered `success`, or `accepted` with their operation seen succeeding. */
  readonly succeeded: number;
  /** Business effects committed by a provider under test (declared through AppContext.declareEffect). */
  readonly effects: number;
  /**
   * execute_tool calls of a provider under test, of a tool not declared a read, that succeeded: with
   * effects at 0 while this is not, the provider declares no effects and the effect oracles are blind.
   */
  readonly writesSucceeded: number;
  /** Confirmation screens of a provider under test that the user answered (approve, deny, back). */
  readonly confirmations: number;
  /** Operations seen in a terminal state (succeeded, failed, cancelled). */
  readonly operationsFinished: number;
  /** Successful file results of a provider under test on the wire (delivered or lost). */
  readonly fileResults: number;
  /** Of those, the ones whose bytes the world knew, so file-result-matches judged them (docs/oracles.md). */
  readonly fileResultsJudged: number;
  /** Calls to a provider under test whose request was malformed (judged from the wire: checkers/malformed.ts). */
  readonly malformedCalls: number;
  /** Of those, refused with a structured CETP error (or by the Binder, for a request too large for it). */
  readonly malformedRefused: number;
}

export interface ToolTally {
  /** execute_tool calls of the tool in fault-free runs. */
  readonly calls: number;
  readonly succeeded: number;
  /** Of the calls, answered in a way that blames the provider (see the header). */
  readonly providerFailed: number;
  /**
   * Of the calls, those whose preconditions were not met or whose outcome was never seen (see
   * UNMET_PRECONDITIONS): refused for access the caller lacked or the user did not give, for a
   * missing session or invalid args, accepted with the operation's end never seen, or not answered in
   * a run with faults. Such a call says nothing of whether the provider works.
   */
  readonly unmet: number;
}

type MutableTally = { -readonly [K in keyof ToolTally]: number };

export interface RunExercise extends Exercised {
  /** By `provider|tool`; only fault-free runs count (see the header). */
  readonly tools: ReadonlyMap<string, ToolTally>;
  /**
   * By provider, every run: `provider|*` its executions, `provider|**` its calls of any method (a
   * provider that never succeeds at all); by consumer under test, `consumer|@consumer` its calls.
   */
  readonly providers: ReadonlyMap<string, ToolTally>;
  /**
   * By `provider|tool`, fault-free runs: the distinct args (the caller's UID written `$UID`) of the
   * executions the provider failed, and of every execution. One argument value failing again and
   * again says something of that value, not of the tool (a tool never succeeding must fail on more).
   */
  readonly toolArgs: ReadonlyMap<
    string,
    { readonly failed: ReadonlySet<string>; readonly sent: ReadonlySet<string> }
  >;
  /** `provider|tool` of every tool that succeeded in this run, fault-free or not. */
  readonly toolsSucceeded: ReadonlySet<string>;
}

/**
 * The oracles among `checkerIds` that judge declared business effects, when a campaign saw write
 * tools succeed but no effect declared: they could not judge the provider (docs/oracles.md).
 */
export function blindEffectOracles(checkerIds: readonly string[], e: Exercised): string[] {
  if (e.effects > 0 || e.writesSucceeded === 0) return [];
  return checkerIds.filter((id) => EFFECT_ORACLES.has(id));
}

const EFFECT_ORACLES: ReadonlySet<string> = new Set([
  'single-effect',
  'effect-attribution',
  'effect-on-own-data',
  'no-cross-uid-results',
  'approval-binding',
  'confirmation-screen-shows',
  'deadline-before-effect',
  'cancelled-has-no-effect',
  'authorized-effect',
  'args-binding',
]);

export const NOTHING_EXERCISED: Exercised = Object.freeze({
  calls: 0,
  answered: 0,
  succeeded: 0,
  effects: 0,
  writesSucceeded: 0,
  confirmations: 0,
  operationsFinished: 0,
  fileResults: 0,
  fileResultsJudged: 0,
  malformedCalls: 0,
  malformedRefused: 0,
});

/**
 * The tally key suffix of a consumer under test's calls (`consumer|@consumer`): a consumer none of
 * whose calls, to any provider, ever succeeded in a whole campaign leaves its providers unusable.
 */
export const CONSUMER_KEY = '@consumer';

/** Answers of a provider's own failing: it broke, or said it was broken (not the caller's doing). */
const PROVIDER_FAULT_CODES: ReadonlySet<string> = new Set(['INTERNAL_ERROR', 'UNAVAILABLE']);

/**
 * Answers that refuse a call whose preconditions were not met: access the caller lacks or the user
 * did not give (5-08 … 5-11, 7.1, 7.2), no session (5-07), args the tool rejects (5-13). Such a call
 * is no attempt at the work, so it counts neither for nor against the provider's liveness.
 */
const UNMET_PRECONDITIONS: ReadonlySet<string> = new Set([
  'PERMISSION_DENIED',
  'AUTH_REQUIRED',
  'USER_ACTION_REQUIRED',
  'USER_CANCELLED',
  'NEGOTIATION_REQUIRED',
  'INVALID_ARGS',
]);

/**
 * How an execution ended, as far as the run saw: success, a failure the provider is to blame for, a
 * call whose preconditions were not met or whose outcome was not seen (`unmet`), or another refusal.
 */
type Verdict = 'succeeded' | 'provider-failed' | 'unmet' | 'other';

/** Terminal operation states seen, by `provider|operation_id`: 'succeeded', or the failure's code. */
function operationEnds(obs: Observation): Map<string, string> {
  const ends = new Map<string, string>();
  for (const c of obs.calls) {
    if (!succeeded(c, 'get_operation')) continue;
    const data = c.reply.data as { state?: unknown; error?: { error_code?: unknown } } | undefined;
    const state = data?.state;
    if (state === 'succeeded') ends.set(c.operationKey, 'succeeded');
    else if (state === 'failed') ends.set(c.operationKey, String(data?.error?.error_code ?? 'failed'));
    else if (state === 'cancelled') ends.set(c.operationKey, 'cancelled');
  }
  return ends;
}

/**
 * An execution succeeded when it was answered `success`, or `accepted` and its operation was seen
 * succeeding; the provider is to blame when it answered no CETP reply, INTERNAL_ERROR or UNAVAILABLE,
 * or its operation failed so.
 */
function verdictOf(c: CallView, ends: ReadonlyMap<string, string>): Verdict {
  if (c.reply.kind !== 'bundle') return 'provider-failed';
  const { status, errorCode } = c.reply;
  if (status === 'success') return 'succeeded';
  if (status === 'accepted') {
    const operationId = (c.reply.data as { operation_id?: unknown } | undefined)?.operation_id;
    const end = ends.get(`${c.provider}|${String(operationId)}`);
    if (end === 'succeeded') return 'succeeded';
    if (end === undefined) return 'unmet';
    return PROVIDER_FAULT_CODES.has(end) ? 'provider-failed' : 'other';
  }
  if (status !== 'error' || PROVIDER_FAULT_CODES.has(errorCode ?? '')) return 'provider-failed';
  return UNMET_PRECONDITIONS.has(errorCode ?? '') ? 'unmet' : 'other';
}

/** Whether each execution of a run succeeded (see verdictOf): the campaign verdict's test in replays. */
export function successTest(obs: Observation): (c: CallView) => boolean {
  const ends = operationEnds(obs);
  return (c) => verdictOf(c, ends) === 'succeeded';
}

function answeredSuccess(c: CallView): boolean {
  return succeeded(c);
}

/** What one run exercised; `faultFree`: whether the scenario injected no fault (tools count then). */
export function exercisedIn(obs: Observation, ctx: CheckContext, faultFree: boolean): RunExercise {
  const providers = new Set(ctx.providersUnderTest);
  const consumers = new Set(ctx.consumers);
  const ends = operationEnds(obs);
  let calls = 0;
  let answered = 0;
  let ok = 0;
  let writes = 0;
  const tools = new Map<string, MutableTally>();
  const byProvider = new Map<string, MutableTally>();
  const toolArgs = new Map<string, { failed: Set<string>; sent: Set<string> }>();
  const toolsSucceeded = new Set<string>();
  const malformed = malformedCalls(obs, ctx.providersUnderTest);
  const refused = malformed.filter((m) => refusalOf(m.call)?.ok === true).length;
  const isMalformed = new Set(malformed.map((m) => m.call));
  for (const c of obs.calls) {
    if (!providers.has(c.provider) && !consumers.has(c.caller)) continue;
    calls++;
    if (c.reply.kind === 'bundle') answered++;
    // A malformed request is rightly refused: it says nothing of whether the tool works.
    if (isMalformed.has(c)) continue;
    // A consumer under test none of whose calls ever completes leaves its providers unusable.
    // A consumer under test is judged on every call: a precondition it leaves unmet (no session …) is its own doing.
    if (consumers.has(c.caller)) {
      const verdict =
        c.method === 'execute_tool' ? verdictOf(c, ends) : answeredSuccess(c) ? 'succeeded' : 'other';
      count(byProvider, `${c.caller}|${CONSUMER_KEY}`, verdict === 'unmet' ? 'other' : verdict);
    }
    const judged = providers.has(c.provider);
    if (c.method !== 'execute_tool') {
      if (judged) count(byProvider, `${c.provider}|**`, answeredSuccess(c) ? 'succeeded' : 'other');
      continue;
    }
    const verdict = verdictOf(c, ends);
    // In a run with faults a call left unanswered may be the fault's doing (a kill, a lost reply).
    const providerVerdict = !faultFree && c.reply.kind !== 'bundle' ? 'unmet' : verdict;
    if (verdict === 'succeeded') ok++;
    if (verdict === 'succeeded' && judged && (ctx.toolEffects.get(c.toolKey) ?? 'read') !== 'read') writes++;
    if (judged) {
      count(byProvider, `${c.provider}|**`, providerVerdict);
      count(byProvider, `${c.provider}|*`, providerVerdict);
    }
    if (verdict === 'succeeded' && judged) toolsSucceeded.add(c.toolKey);
    if (faultFree && c.toolName !== null && providers.has(c.provider)) {
      count(tools, c.toolKey, verdict);
      const args = toolArgs.get(c.toolKey) ?? { failed: new Set<string>(), sent: new Set<string>() };
      const value = (c.args ?? '').split(String(c.callerUid)).join('$UID');
      args.sent.add(value);
      if (verdict === 'provider-failed') args.failed.add(value);
      toolArgs.set(c.toolKey, args);
    }
  }
  let confirmations = 0;
  for (const e of obs.events) {
    if (e.kind !== 'user.decision' || e.data.decision === 'ignore') continue;
    const pkg = String(e.data.activity).split('/')[0] ?? '';
    if (providers.has(pkg)) confirmations++;
  }
  let finished = 0;
  for (const key of ends.keys()) if (providers.has(key.slice(0, key.indexOf('|')))) finished++;
  const files = fileResultsJudged(obs, ctx.providersUnderTest);
  return {
    calls,
    answered,
    succeeded: ok,
    effects: obs.effects.filter((e) => providers.has(e.provider)).length,
    writesSucceeded: writes,
    confirmations,
    operationsFinished: finished,
    fileResults: files.judged + files.notJudged,
    fileResultsJudged: files.judged,
    malformedCalls: malformed.length,
    malformedRefused: refused,
    tools,
    providers: byProvider,
    toolArgs,
    toolsSucceeded,
  };
}

function count(tallies: Map<string, MutableTally>, key: string, verdict: Verdict): void {
  const tally = tallies.get(key) ?? { calls: 0, succeeded: 0, providerFailed: 0, unmet: 0 };
  tally.calls++;
  if (verdict === 'succeeded') tally.succeeded++;
  else if (verdict === 'provider-failed') tally.providerFailed++;
  else if (verdict === 'unmet') tally.unmet++;
  tallies.set(key, tally);
}

function addTallies(into: Map<string, MutableTally>, from: ReadonlyMap<string, ToolTally>): void {
  for (const [key, tally] of from) {
    const sum = into.get(key) ?? { calls: 0, succeeded: 0, providerFailed: 0, unmet: 0 };
    sum.calls += tally.calls;
    sum.succeeded += tally.succeeded;
    sum.providerFailed += tally.providerFailed;
    sum.unmet += tally.unmet;
    into.set(key, sum);
  }
}

/** Sums what a campaign's runs exercised. */
export class ExerciseTally {
  private total = { ...NOTHING_EXERCISED };
  private readonly tools = new Map<string, MutableTally>();
  private readonly providers = new Map<string, MutableTally>();
  private readonly toolArgs = new Map<string, { failed: Set<string>; sent: Set<string> }>();
  private readonly toolsSucceeded = new Set<string>();

  add(run: RunExercise): void {
    const t = this.total;
    t.calls += run.calls;
    t.answered += run.answered;
    t.succeeded += run.succeeded;
    t.effects += run.effects;
    t.writesSucceeded += run.writesSucceeded;
    t.confirmations += run.confirmations;
    t.operationsFinished += run.operationsFinished;
    t.fileResults += run.fileResults;
    t.fileResultsJudged += run.fileResultsJudged;
    t.malformedCalls += run.malformedCalls;
    t.malformedRefused += run.malformedRefused;
    addTallies(this.tools, run.tools);
    addTallies(this.providers, run.providers);
    for (const key of run.toolsSucceeded) this.toolsSucceeded.add(key);
    for (const [key, args] of run.toolArgs) {
      const sum = this.toolArgs.get(key) ?? { failed: new Set<string>(), sent: new Set<string>() };
      for (const a of args.failed) sum.failed.add(a);
      for (const a of args.sent) sum.sent.add(a);
      this.toolArgs.set(key, sum);
    }
  }

  get exercised(): Exercised {
    return { ...this.total };
  }

  /**
   * What never succeeded: a provider none of whose at least `minCalls` calls of any method
   * (`provider|**`), or executions (`provider|*`), in any run ever succeeded, not counting calls
   * whose preconditions were unmet or outcome unseen (ToolTally.unmet); then each tool (`provider|tool`)
   * that never succeeded in any run, and failed at least `minCalls` times in fault-free runs by the
   * provider's own fault, on at least two distinct args (or on every args it was sent, when fewer).
   * Sorted by key. What came close but is not judged is `inconclusive`.
   */
  neverSucceeded(minCalls: number): { tool: string; calls: number }[] {
    return this.judged(minCalls)
      .filter((j) => j.why === null)
      .map(({ tool, calls }) => ({ tool, calls }));
  }

  /**
   * The keys with no success whose campaign was too small, or too one-sided, to judge (see
   * neverSucceeded), each with why: a short campaign says so instead of failing a working tool.
   */
  inconclusive(minCalls: number): { tool: string; calls: number; why: string }[] {
    return this.judged(minCalls).flatMap((j) => (j.why === null ? [] : [{ ...j, why: j.why }]));
  }

  private judged(minCalls: number): { tool: string; calls: number; why: string | null }[] {
    const out: { tool: string; calls: number; why: string | null }[] = [];
    for (const [key, t] of this.providers) {
      if (t.succeeded > 0 || t.calls < minCalls) continue;
      const fair = t.calls - t.unmet;
      out.push({
        tool: key,
        calls: t.calls,
        why:
          fair >= minCalls
            ? null
            : `${t.unmet} of its ${t.calls} calls had their preconditions unmet (access not granted or approved, no session, invalid args) or their outcome unseen: ${fair} fair attempts, ${minCalls} needed to judge`,
      });
    }
    for (const [key, t] of this.tools) {
      if (t.succeeded > 0 || this.toolsSucceeded.has(key) || t.providerFailed < minCalls) continue;
      const args = this.toolArgs.get(key);
      const failed = args?.failed.size ?? 0;
      const sent = args?.sent.size ?? 0;
      const needed = Math.min(2, sent);
      out.push({
        tool: key,
        calls: t.calls,
        why:
          failed >= needed
            ? null
            : `its ${t.providerFailed} failures in fault-free runs all had the same args (${[...(args?.failed ?? [])].join(', ')}) of the ${sent} it was sent: that says something of those args, not of the tool`,
      });
    }
    return out.sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }

  /** Every tool's fault-free tally, sorted by key (for reports). */
  toolTallies(): { tool: string; calls: number; succeeded: number }[] {
    return [...this.tools]
      .map(([tool, t]) => ({ tool, ...t }))
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}
