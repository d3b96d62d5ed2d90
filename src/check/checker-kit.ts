/**
 * The checker kit. Most oracles judge the items of a run one at a time — each call to a provider
 * under test, each call a consumer made, each business effect, each agent request that was answered
 * — and say what is wrong with each. `judgeEach` is that loop, written once: a checker declares what
 * it is (id, rule ids, description, fields), which items it reads (a `Source`), and a `judge` that
 * returns what is wrong with one item. A bare message is shown by the item's own evidence (a call's
 * id, an effect's events); a finding may name other evidence. Violations come in the items' order,
 * and for one item in the order its judge returned them. An oracle that must see the whole run at
 * once (what came first, what was already flagged) is a `judgeRun`: its judge yields each finding as
 * it finds it, and the kit turns findings into violations — no oracle builds a Violation itself.
 */

import type { AgentCallRecord } from '../sim/ground-truth.ts';
import {
  type CheckContext,
  type Checker,
  type Evidence,
  type FieldJudgement,
  type Violation,
  violation,
} from './checker.ts';
import { type CallView, type EffectNote, effectEvents, memoOn, type Observation } from './observation.ts';

/** What a judge found wrong with one item: a message shown by the item's evidence, or a message with its own. */
export type Finding = string | (Evidence & { readonly message: string });

/** A judge's verdict on one item: nothing wrong (undefined), one finding, or several in order. */
export type Findings = Finding | readonly Finding[] | undefined;

/** The items a checker judges, in order, and the evidence that shows a finding about one. */
export interface Source<T> {
  items(obs: Observation, ctx: CheckContext): readonly T[];
  evidence(item: T): Evidence;
}

/** A checker written as a judge of single items: all a Checker declares, and the judge. */
export interface EachSpec<T> extends Omit<Checker, 'check'> {
  judge(item: T, obs: Observation, ctx: CheckContext): Findings;
}

/** A checker that judges each item of `source` on its own, in order. */
export function judgeEach<T>(source: Source<T>, spec: EachSpec<T>): Checker {
  const { judge, ...declared } = spec;
  const checker: Checker = {
    ...declared,
    check(obs, ctx) {
      const out: Violation[] = [];
      for (const item of source.items(obs, ctx)) {
        const found = judge(item, obs, ctx);
        if (found === undefined) continue;
        for (const f of isList(found) ? found : [found]) {
          out.push(
            typeof f === 'string'
              ? violation(checker, f, source.evidence(item))
              : violation(checker, f.message, f),
          );
        }
      }
      return out;
    },
  };
  return checker;
}

/** A checker written as a judge of the whole run: all a Checker declares, and the judge. */
export interface RunSpec extends Omit<Checker, 'check'> {
  /** Yields each finding as it is found (a bare message names no evidence). */
  judge(obs: Observation, ctx: CheckContext): Iterable<Finding>;
}

/** A checker that judges the run as a whole: its violations are what `judge` yields, in that order. */
export function judgeRun(spec: RunSpec): Checker {
  const { judge, ...declared } = spec;
  const checker: Checker = {
    ...declared,
    check(obs, ctx) {
      const out: Violation[] = [];
      for (const f of judge(obs, ctx))
        out.push(typeof f === 'string' ? violation(checker, f) : violation(checker, f.message, f));
      return out;
    },
  };
  return checker;
}

/** Wire fields a checker judges against what the world knows (`against`, in a few words). */
export function consistency(against: string, ...fields: string[]): FieldJudgement {
  return { fields, aspect: 'consistency', against };
}

/** Wire fields a checker judges for their Bundle type, JSON type, range and enum, by `against`. */
export function schema(against: string, ...fields: string[]): FieldJudgement {
  return { fields, aspect: 'schema', against };
}

function isList(found: Finding | readonly Finding[]): found is readonly Finding[] {
  return Array.isArray(found);
}

const UNDER_TEST_SLOT: unique symbol = Symbol('cetp.check.callsUnderTest');
const CONSUMERS_SLOT: unique symbol = Symbol('cetp.check.consumerCalls');

/** The calls to providers under test, in the order they were made (computed once per observation). */
export function callsUnderTest(obs: Observation, ctx: CheckContext): readonly CallView[] {
  return callsOf(obs, UNDER_TEST_SLOT, ctx.providersUnderTest, (c) => c.provider);
}

/** The calls consumer packages made, in the order they were made (computed once per observation). */
export function consumerCalls(obs: Observation, ctx: CheckContext): readonly CallView[] {
  return callsOf(obs, CONSUMERS_SLOT, ctx.consumers, (c) => c.caller);
}

/** The calls whose `side` is one of `packages`, kept in the observation's memo by the list. */
function callsOf(
  obs: Observation,
  slot: symbol,
  packages: readonly string[],
  side: (c: CallView) => string,
): readonly CallView[] {
  const byList = memoOn(obs, slot, newCallTable);
  let calls = byList.get(packages);
  if (!calls) {
    calls = obs.calls.filter((c) => packages.includes(side(c)));
    byList.set(packages, calls);
  }
  return calls;
}

function newCallTable(): WeakMap<readonly string[], readonly CallView[]> {
  return new WeakMap();
}

/** The agent executions of consumers under test that were answered, in the order they were asked. */
export function answeredExecutions(obs: Observation, ctx: CheckContext): readonly AgentCallRecord[] {
  return obs.agentCalls.filter(
    (a) => a.kind === 'execute' && ctx.consumers.includes(a.consumer) && a.endStep !== null,
  );
}

const byCall = (c: CallView): Evidence => ({ calls: [c.id] });
const none = (): Evidence => ({});

/** A source of items whose bare findings are shown by `evidence` (by default: no evidence). */
export function source<T>(
  items: (obs: Observation, ctx: CheckContext) => readonly T[],
  evidence: (item: T) => Evidence = none,
): Source<T> {
  return { items, evidence };
}

/** A source of calls, each bare finding shown by its call. */
export function callSource(
  items: (obs: Observation, ctx: CheckContext) => readonly CallView[],
): Source<CallView> {
  return { items, evidence: byCall };
}

/** Every call of the run. */
export const ALL_CALLS: Source<CallView> = { items: (obs) => obs.calls, evidence: byCall };
/** The calls to providers under test. */
export const PROVIDER_CALLS: Source<CallView> = { items: callsUnderTest, evidence: byCall };
/** The calls consumers made. */
export const CONSUMER_CALLS: Source<CallView> = { items: consumerCalls, evidence: byCall };
/** The business effects apps committed, shown by their trace events. */
export const EFFECTS: Source<EffectNote> = {
  items: (obs) => obs.effects,
  evidence: (e) => ({ events: effectEvents(e) }),
};
/** The answered agent executions of consumers under test (a bare message names no evidence). */
export const AGENT_EXECUTIONS: Source<AgentCallRecord> = source(answeredExecutions);
