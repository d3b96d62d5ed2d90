import { consistency, judgeRun } from '../checker-kit.ts';
import type { CallView } from '../observation.ts';
import { deduplicated } from './wire-identity.ts';

const ENDED_WITH_OUTCOME: ReadonlySet<unknown> = new Set(['succeeded', 'failed']);

/** How an operation was seen ended: by which call, in which state. */
interface Ended {
  readonly call: CallView;
  readonly state: string;
}

function stateOf(c: CallView): unknown {
  return c.reply.kind === 'bundle' ? (c.reply.data as { state?: unknown } | undefined)?.state : undefined;
}

export const cancelAfterEnd = judgeRun({
  id: 'cancel-after-end',
  // The accept reading is allowed by 4.4-10 and 4.4-19 (NOTES 10a); what fails breaks these two.
  ruleIds: ['CETP-5-16', 'CETP-4.4-21'],
  description:
    'cancel_operation of an operation already seen succeeded or failed is CONFLICT, or success with state=cancellation_requested that changes nothing (NOTES 10a): never a cancellation reported, never another state or a CANCELLED replay afterwards.',
  fields: [
    consistency(
      'the terminal state already seen',
      'json:cancel_response/state',
      'json:cancel_response/operation_id',
    ),
  ],
  *judge(obs, ctx) {
    // When each operation was seen ended with an outcome: get_operation reporting it (by operation),
    // or a replay's success (by request; only a deduplicated, non-read request's replay speaks for
    // the operation it created — a read re-sent under the same id is a new read, CETP-6-01).
    const endedOperations = new Map<string, Ended>();
    const endedRequests = new Map<string, Ended>();
    // Cancels accepted after the end, by operation and by request: what must not change after them.
    const acceptedByOperation = new Map<string, { cancel: CallView; ended: Ended }>();
    const acceptedByRequest = new Map<string, { cancel: CallView; ended: Ended }>();
    const after = (c: CallView, cancel: CallView) => cancel.replyStep !== null && c.step >= cancel.replyStep;
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || !c.v2 || c.reply.kind !== 'bundle') continue;
      const state = stateOf(c);
      if (c.reply.status === 'success' && c.method === 'get_operation') {
        const accepted = acceptedByOperation.get(c.operationKey);
        if (accepted && after(c, accepted.cancel) && state !== accepted.ended.state) {
          yield {
            message: `operation ${c.operationId} was seen ${accepted.ended.state}; after a cancel of it was accepted it reports ${String(state)}`,
            calls: [accepted.ended.call.id, accepted.cancel.id, c.id],
          };
        }
        if (ENDED_WITH_OUTCOME.has(state) && !endedOperations.has(c.operationKey))
          endedOperations.set(c.operationKey, { call: c, state: String(state) });
        continue;
      }
      if (c.method === 'execute_tool' && deduplicated(ctx, c)) {
        const accepted = acceptedByRequest.get(c.requestKey);
        if (accepted && after(c, accepted.cancel) && c.reply.errorCode === 'CANCELLED') {
          yield {
            message: `request ${c.requestId} was seen ${accepted.ended.state}; after a cancel of its operation was accepted its replay answers CANCELLED`,
            calls: [accepted.ended.call.id, accepted.cancel.id, c.id],
          };
        }
        if (c.reply.status === 'success' && !endedRequests.has(c.requestKey))
          endedRequests.set(c.requestKey, { call: c, state: 'succeeded' });
        continue;
      }
      if (c.method !== 'cancel_operation' || c.reply.status !== 'success') continue;
      const seen = endedOperations.get(c.operationKey) ?? endedRequests.get(c.requestKey);
      // A call sent in the step its predecessor's reply arrived was sent by that task, after it.
      if (!seen || seen.call.replyStep === null || c.step < seen.call.replyStep) continue;
      if (state !== 'cancellation_requested') {
        yield {
          message: `cancel_operation of ${c.operationId} answered state=${String(state)} after the operation was seen ${seen.state} (${seen.call.method}): a success may only say cancellation_requested`,
          calls: [seen.call.id, c.id],
        };
        continue;
      }
      const accepted = { cancel: c, ended: seen };
      if (!acceptedByOperation.has(c.operationKey)) acceptedByOperation.set(c.operationKey, accepted);
      if (!acceptedByRequest.has(c.requestKey)) acceptedByRequest.set(c.requestKey, accepted);
    }
  },
});
