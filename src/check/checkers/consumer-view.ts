/**
 * How the consumer-side oracles read a run: the JSON the agent got, a consumer's calls grouped by
 * request, which answer a consumer had when it sent again, and the replies that reached it for one
 * agent request. One home for what consumer.ts, consumer-followup.ts, consumer-v1.ts,
 * consumer-catalogue.ts, agent-content.ts and interop.ts all read the same way.
 */
import type { JsonValue } from '../../base/json.ts';
import type { AgentCallRecord } from '../../sim/ground-truth.ts';
import { type CheckContext, groupBy } from '../checker.ts';
import { consumerCalls } from '../checker-kit.ts';
import type { CallView, Observation } from '../observation.ts';

/**
 * The rules of one request_id per agent request (spec §4.1, §6), judged twice: from the consumer's
 * own calls (consumer-request-id-stable) and from the agent's requests (consumer-request-id-on-wire).
 */
export const REQUEST_ID_RULES: readonly string[] = ['CETP-4.1-04', 'CETP-4.1-16', 'CETP-6-08', 'CETP-4.1-15'];

/** `value[key]` when `value` is a JSON object, else undefined. */
export function field(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value[key] : undefined;
}

/**
 * The consumers' calls that carry a request_id and pass `select`, by caller, provider and
 * request_id, each group in sending order.
 */
export function consumerRequests(
  obs: Observation,
  ctx: CheckContext,
  select: (c: CallView) => boolean,
): CallView[][] {
  return [
    ...groupBy(
      consumerCalls(obs, ctx).filter((c) => c.requestId && select(c)),
      (c) => `${c.caller}|${c.provider}|${c.requestId}`,
    ).values(),
  ];
}

/**
 * The index of the call among `calls[0..i)` whose answer reached the caller last, no later than call
 * `i` was sent (a call sent in the step an answer arrived was sent after it, by the task that got
 * it); -1 when none had been answered yet.
 */
export function lastAnsweredBefore(calls: readonly CallView[], i: number): number {
  const sent = (calls[i] as CallView).step;
  let best = -1;
  let bestStep = -1;
  for (let j = 0; j < i; j++) {
    const c = calls[j] as CallView;
    if (c.reply.kind !== 'bundle' || c.replyStep === null || c.replyStep > sent) continue;
    if (c.replyStep >= bestStep) {
      best = j;
      bestStep = c.replyStep;
    }
  }
  return best;
}

/**
 * The calls of agent request `a`'s consumer to its provider under `requestId` whose answers reached
 * the consumer by the time the agent was answered, and that pass `select`.
 */
export function answeredFor(
  obs: Observation,
  a: AgentCallRecord,
  requestId: JsonValue | undefined,
  select: (c: CallView) => boolean,
): CallView[] {
  const end = a.endStep ?? -1;
  return obs.calls.filter(
    (c) =>
      c.caller === a.consumer &&
      c.provider === a.provider &&
      c.requestId === requestId &&
      c.replyStep !== null &&
      c.replyStep <= end &&
      select(c),
  );
}
