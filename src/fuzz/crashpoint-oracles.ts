/**
 * The oracles and properties of crash-point runs (crashpoints.ts). A crash-point run is an ordinary
 * scenario of one of the two properties below — the raw driver against the providers, or the
 * reference consumer — so a failing point replays with `cetp-sim replay` like a fuzz failure. They are
 * not in the fuzzed catalogue (suites.ts): their scenarios are enumerated, not generated.
 */

import type { Checker } from '../check/checker.ts';
import { violation } from '../check/checker.ts';
import { requestIdStable, retryDiscipline } from '../check/checkers/consumer.ts';
import { cancelledHasNoEffect, singleEffect } from '../check/checkers/effects.ts';
import { faultsTransparent } from '../check/checkers/faults-transparent.ts';
import { noFdLeaks, operationsTerminate, runProgress } from '../check/checkers/runtime.ts';
import { storageSingleEffect } from '../check/checkers/storage.ts';
import { sameTerminalResult } from '../check/checkers/wire.ts';
import type { CallView, Observation } from '../check/observation.ts';
import type { ConsumerShape } from './scenario/consumer.ts';
import { ALERTS, PAYMENTS } from './scenario/fixtures.ts';
import type { ConsumerPropertyDef, PropertyDef, RawPropertyDef } from './suites.ts';

// ---- the oracles of a crash-point run -------------------------------------------------------------

/** A reply's Bundle view, or null when the call got none (a Binder failure, a dead process). */
function bundleOf(c: CallView) {
  return c.reply.kind === 'bundle' ? c.reply : null;
}

/** Codes that ask the caller to act and send again: never a request's end. */
const NOT_AN_END = new Set(['USER_ACTION_REQUIRED', 'AUTH_REQUIRED', 'NEGOTIATION_REQUIRED']);

/** `state` of a get_operation answer, if it answered one. */
function operationState(c: CallView): string | null {
  const reply = bundleOf(c);
  if (reply?.status !== 'success') return null;
  const state = (reply.data as { state?: unknown } | undefined)?.state;
  return typeof state === 'string' ? state : null;
}

function operationIdOf(c: CallView): string | null {
  const reply = bundleOf(c);
  if (reply?.status !== 'accepted') return null;
  const id = (reply.data as { operation_id?: unknown } | undefined)?.operation_id;
  return typeof id === 'string' ? id : null;
}

/** Answer order (replyStep), calls without a reply last. */
function byAnswer(a: CallView, b: CallView): number {
  return (a.replyStep ?? Number.MAX_SAFE_INTEGER) - (b.replyStep ?? Number.MAX_SAFE_INTEGER) || a.id - b.id;
}

/** The calls of the flow's caller to the flow's provider that `pick` keeps, in answer order. */
function clientCalls(obs: Observation, first: CallView, pick: (c: CallView) => boolean): CallView[] {
  return obs.calls
    .filter((c) => c.callerUid === first.callerUid && c.provider === first.provider && pick(c))
    .sort(byAnswer);
}

/** The flow's request: the first execute_tool of the run (every crash-point scenario starts with it). */
function flowRequest(obs: Observation, providers: readonly string[]): CallView | null {
  return obs.calls.find((c) => c.method === 'execute_tool' && providers.includes(c.provider)) ?? null;
}

/**
 * How the flow's request ended, as the caller last heard it: `success`, `failed:<code>` (a business
 * end), `operation:<state>`, or null when it never heard an end.
 */
function endOf(obs: Observation, first: CallView): { end: string | null; evidence: number[] } {
  const same = obs.calls
    .filter((c) => c.method === 'execute_tool' && c.requestKey === first.requestKey)
    .sort(byAnswer);
  const answered = same.filter((c) => bundleOf(c) !== null);
  const last = answered.at(-1);
  const evidence = same.map((c) => c.id);
  if (!last) return { end: null, evidence };
  const reply = bundleOf(last);
  if (reply?.status === 'success') return { end: 'success', evidence };
  if (reply?.status === 'accepted') {
    const ops = new Set(answered.map(operationIdOf).filter((id): id is string => id !== null));
    const polls = clientCalls(
      obs,
      first,
      (c) => c.method === 'get_operation' && c.operationId !== null && ops.has(c.operationId),
    );
    const states = polls.map(operationState).filter((s): s is string => s !== null);
    const state = states.at(-1);
    const ended = state === 'succeeded' || state === 'failed' || state === 'cancelled';
    return { end: ended ? `operation:${state}` : null, evidence: [...evidence, ...polls.map((c) => c.id)] };
  }
  const code = reply?.errorCode ?? null;
  if (reply?.status === 'error' && code !== null && reply.retryable === false && !NOT_AN_END.has(code))
    return { end: `failed:${code}`, evidence };
  return { end: null, evidence };
}

/**
 * No terminal result is lost to a crash: once the caller has recovered (retried, or restarted and
 * re-sent its journal), the flow's request has ended as the caller last heard it, and if it had its
 * business effect that end is a success — never a failure, a cancellation or silence over a committed
 * effect. (Whether two ends agree is same-terminal-result's to judge.) A consumer is owed an end for
 * what it must re-send (writes and operations, 4.1-15), not for a plain read it died during.
 */
export const crashTerminalResult: Checker = {
  id: 'crash-terminal-result',
  ruleIds: ['CETP-4.4-16', 'CETP-4.4-17', 'CETP-6-05', 'CETP-10-13'],
  description:
    "After a kill and the caller's recovery, the flow's request has ended as the caller last heard it, as a success if it had its effect.",
  check(obs, ctx) {
    const first = flowRequest(obs, ctx.providersUnderTest);
    if (!first || first.requestId === null) return [];
    const rid = first.requestId.toLowerCase();
    const effects = obs.effects.filter(
      (e) =>
        e.requestId === rid &&
        e.uid === first.callerUid &&
        e.provider === first.provider &&
        e.tool === first.toolName,
    );
    const { end, evidence } = endOf(obs, first);
    const events = effects.flatMap((e) => (e.seq === null ? [] : [e.seq]));
    // A consumer re-sends only what it journaled: side-effecting and asynchronous calls (4.1-15); a
    // plain read whose caller died is not owed an end. The raw driver always retries.
    const owed =
      !ctx.consumers.includes(first.caller) ||
      ctx.toolEffects.get(first.toolKey) !== 'read' ||
      obs.calls.some((c) => evidence.includes(c.id) && operationIdOf(c) !== null);
    if (end === null && owed)
      return [
        violation(
          this,
          `request ${first.requestId} (${first.toolName}) never reached an end its caller heard`,
          {
            calls: evidence,
            events,
            class: 'liveness',
          },
        ),
      ];
    if (end !== null && effects.length > 0 && end !== 'success' && end !== 'operation:succeeded')
      return [
        violation(
          this,
          `request ${first.requestId} (${first.toolName}) had its business effect, but its caller last heard "${end}"`,
          { calls: evidence, events },
        ),
      ];
    return [];
  },
};

/**
 * The provider is usable after the crash: the last request the driver sends (a fresh request_id,
 * after the flow) is answered with a Bundle that is not an internal error.
 */
export const crashProviderUsable: Checker = {
  id: 'crash-provider-usable',
  ruleIds: ['CETP-5-07', 'CETP-4.4-16', 'CETP-9-07'],
  description:
    'After a kill and the recovery, a fresh request to the provider is answered (not INTERNAL_ERROR).',
  check(obs, ctx) {
    const first = flowRequest(obs, ctx.providersUnderTest);
    if (!first) return [];
    const probe = clientCalls(
      obs,
      first,
      (c) => c.method === 'execute_tool' && c.requestId !== null && c.requestId !== first.requestId,
    ).at(-1);
    if (!probe) return [];
    const reply = bundleOf(probe);
    if (reply && reply.errorCode !== 'INTERNAL_ERROR') return [];
    return [
      violation(
        this,
        `after the crash a fresh request ${probe.requestId} to ${probe.provider} got ${reply ? `error:${reply.errorCode}` : `no answer (${probe.reply.kind})`}`,
        { calls: [probe.id], class: 'liveness' },
      ),
    ];
  },
};

// ---- the crash-point properties (their checkers, and the worlds their scenarios run in) ----------

const RAW_CHECKERS: readonly Checker[] = [
  singleEffect,
  storageSingleEffect,
  faultsTransparent,
  sameTerminalResult,
  cancelledHasNoEffect,
  operationsTerminate,
  noFdLeaks,
  crashTerminalResult,
  crashProviderUsable,
  runProgress,
];

const CONSUMER_CHECKERS: readonly Checker[] = [
  singleEffect,
  storageSingleEffect,
  sameTerminalResult,
  cancelledHasNoEffect,
  retryDiscipline,
  requestIdStable,
  noFdLeaks,
  crashTerminalResult,
  runProgress,
];

const ruleIdsOf = (checkers: readonly Checker[]) => [
  ...new Set([...checkers.flatMap((c) => c.ruleIds), 'CETP-9-07']),
];

const PROVIDERS = [ALERTS, PAYMENTS];

/** Provider-side crash points: the raw driver runs the flow, the provider's process is killed. */
export const CRASHPOINTS_RAW: RawPropertyDef = {
  kind: 'raw',
  id: 'crashpoints',
  title:
    'a kill of the provider at every scheduling point of a mutating flow, then a retry with the same request_id',
  area: 'CETP-9-07',
  fixture: { providers: PROVIDERS, actors: ['a'], checkers: RAW_CHECKERS },
  // Scenarios are built, not generated: the shape is what --provider replaces (and what a replay's
  // engine is built from).
  shape: {
    providers: PROVIDERS,
    actors: ['a'],
    commands: ['negotiate', 'poll', 'cancel'],
    resolveModes: ['honest'],
    ridReuse: true,
    expiredDeadlines: false,
    confirmedFlags: false,
    duplicates: false,
    faults: [],
    maxCommands: 8,
    maxFaults: 1,
    userDecisions: ['approve'],
    capabilitySets: [['async_operations', 'cancellation', 'large_results']],
  },
  checkers: RAW_CHECKERS,
  ruleIds: ruleIdsOf(RAW_CHECKERS),
  ciRuns: 0,
};

const CONSUMER_SHAPE: ConsumerShape = {
  providers: PROVIDERS,
  tools: PROVIDERS.flatMap((p) => Object.keys(p.tools).map((tool) => `${p.name}.${tool}`)),
  hostileCases: [],
  maxThreads: 1,
  maxCommands: 1,
  restarts: true,
  faults: [],
  maxFaults: 1,
};

/** Consumer-side crash points: the reference consumer runs the flow, its own process is killed. */
export const CRASHPOINTS_CONSUMER: ConsumerPropertyDef = {
  kind: 'consumer',
  id: 'crashpoints-consumer',
  title:
    'a kill of the consumer at every scheduling point of a mutating flow, then a restart that re-sends its journal',
  area: 'CETP-9-07',
  fixture: { providers: PROVIDERS, checkers: CONSUMER_CHECKERS },
  shape: CONSUMER_SHAPE,
  checkers: CONSUMER_CHECKERS,
  ruleIds: ruleIdsOf(CONSUMER_CHECKERS),
  ciRuns: 0,
};

export const CRASHPOINT_PROPERTIES: readonly PropertyDef[] = [CRASHPOINTS_RAW, CRASHPOINTS_CONSUMER];
