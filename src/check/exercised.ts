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
 * is judged on every answer.
 */
import type { CheckContext } from './checker.ts';
import type { CallView, Observation } from './observation.ts';

export interface Exercised {
  /** ContentProvider calls to a provider under test or from a consumer under test. */
  readonly calls: number;
  /** Of those, answered with a Bundle that reached the caller. */
  readonly answered: number;
  /** execute_tool calls answered `success` or `accepted`. */
  readonly succeeded: number;
  /** Business effects committed by a provider under test. */
  readonly effects: number;
  /** Confirmation screens of a provider under test that the user answered (approve, deny, back). */
  readonly confirmations: number;
  /** Operations seen in a terminal state (succeeded, failed, cancelled). */
  readonly operationsFinished: number;
}

export interface ToolTally {
  /** execute_tool calls of the tool in fault-free runs. */
  readonly calls: number;
  readonly succeeded: number;
  /** Of the calls, answered in a way that blames the provider (see the header). */
  readonly providerFailed: number;
}

type MutableTally = { -readonly [K in keyof ToolTally]: number };

export interface RunExercise extends Exercised {
  /** By `provider|tool`; only fault-free runs count (see the header). */
  readonly tools: ReadonlyMap<string, ToolTally>;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

export const NOTHING_EXERCISED: Exercised = Object.freeze({
  calls: 0,
  answered: 0,
  succeeded: 0,
  effects: 0,
  confirmations: 0,
  operationsFinished: 0,
});

function succeeded(c: CallView): boolean {
  return (
    c.method === 'execute_tool' &&
    c.reply.kind === 'bundle' &&
    (c.reply.status === 'success' || c.reply.status === 'accepted')
  );
}

/** Answers of a provider's own failing: it broke, or said it was broken (not the caller's doing). */
const PROVIDER_FAULT_CODES: ReadonlySet<string> = new Set(['INTERNAL_ERROR', 'UNAVAILABLE']);

function blamesProvider(c: CallView): boolean {
  if (c.reply.kind !== 'bundle') return true;
  const status = c.reply.status;
  if (status === 'success' || status === 'accepted') return false;
  return status !== 'error' || PROVIDER_FAULT_CODES.has(c.reply.errorCode ?? '');
}

function finishedOperation(c: CallView): string | null {
  if (c.method !== 'get_operation' || c.reply.kind !== 'bundle' || c.reply.status !== 'success') return null;
  const state = (c.reply.data as { state?: unknown } | undefined)?.state;
  return typeof state === 'string' && TERMINAL.has(state) ? c.operationKey : null;
}

/** What one run exercised; `faultFree`: whether the scenario injected no fault (tools count then). */
export function exercisedIn(obs: Observation, ctx: CheckContext, faultFree: boolean): RunExercise {
  const providers = new Set(ctx.providersUnderTest);
  const consumers = new Set(ctx.consumers);
  let calls = 0;
  let answered = 0;
  let ok = 0;
  const finished = new Set<string>();
  const tools = new Map<string, MutableTally>();
  for (const c of obs.calls) {
    if (!providers.has(c.provider) && !consumers.has(c.caller)) continue;
    calls++;
    if (c.reply.kind === 'bundle') answered++;
    const success = succeeded(c);
    if (success) ok++;
    const operation = finishedOperation(c);
    if (operation !== null) finished.add(operation);
    if (faultFree && c.method === 'execute_tool' && c.toolName !== null && providers.has(c.provider)) {
      const tally = tools.get(c.toolKey) ?? { calls: 0, succeeded: 0, providerFailed: 0 };
      tally.calls++;
      if (success) tally.succeeded++;
      if (blamesProvider(c)) tally.providerFailed++;
      tools.set(c.toolKey, tally);
    }
  }
  let confirmations = 0;
  for (const e of obs.events) {
    if (e.kind !== 'user.decision' || e.data.decision === 'ignore') continue;
    const pkg = String(e.data.activity).split('/')[0] ?? '';
    if (providers.has(pkg)) confirmations++;
  }
  return {
    calls,
    answered,
    succeeded: ok,
    effects: obs.effects.filter((e) => providers.has(e.provider)).length,
    confirmations,
    operationsFinished: finished.size,
    tools,
  };
}

/** Sums what a campaign's runs exercised. */
export class ExerciseTally {
  private total = { ...NOTHING_EXERCISED };
  private readonly tools = new Map<string, MutableTally>();

  add(run: RunExercise): void {
    const t = this.total;
    t.calls += run.calls;
    t.answered += run.answered;
    t.succeeded += run.succeeded;
    t.effects += run.effects;
    t.confirmations += run.confirmations;
    t.operationsFinished += run.operationsFinished;
    for (const [key, tally] of run.tools) {
      const sum = this.tools.get(key) ?? { calls: 0, succeeded: 0, providerFailed: 0 };
      sum.calls += tally.calls;
      sum.succeeded += tally.succeeded;
      sum.providerFailed += tally.providerFailed;
      this.tools.set(key, sum);
    }
  }

  get exercised(): Exercised {
    return { ...this.total };
  }

  /**
   * What never succeeded after at least `minCalls` fault-free executions: a provider (`provider|*`)
   * none of whose tools ever did, then each tool (`provider|tool`) that never did and failed that many
   * times by the provider's own fault. Sorted by key.
   */
  neverSucceeded(minCalls: number): { tool: string; calls: number }[] {
    const byProvider = new Map<string, MutableTally>();
    for (const [key, t] of this.tools) {
      const provider = key.slice(0, key.indexOf('|'));
      const sum = byProvider.get(provider) ?? { calls: 0, succeeded: 0, providerFailed: 0 };
      sum.calls += t.calls;
      sum.succeeded += t.succeeded;
      byProvider.set(provider, sum);
    }
    const providers = [...byProvider]
      .filter(([, t]) => t.calls >= minCalls && t.succeeded === 0)
      .map(([provider, t]) => ({ tool: `${provider}|*`, calls: t.calls }));
    const tools = [...this.tools]
      .filter(([, t]) => t.providerFailed >= minCalls && t.succeeded === 0)
      .map(([tool, t]) => ({ tool, calls: t.calls }));
    return [...providers, ...tools].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }

  /** Every tool's fault-free tally, sorted by key (for reports). */
  toolTallies(): { tool: string; calls: number; succeeded: number }[] {
    return [...this.tools]
      .map(([tool, t]) => ({ tool, ...t }))
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}
