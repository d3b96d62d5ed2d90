/**
 * Async operations (spec §4.4). After `accepted` we poll get_operation with the operation_id and
 * the creating request_id (4.1-10, 4.1-11, 4.4-03), honouring poll_after_ms within our bounds,
 * until a terminal state. Progress is never success (4.4-09). A cancellation sends
 * cancel_operation only if `cancellation` was negotiated (2.3-04, 4-06), then keeps polling:
 * only state=cancelled means "did not happen"; an operation that still succeeds is reported as
 * too late to cancel, with its result (4.4-11, 4.4-19).
 */
import { protocol } from '../../../index.ts';
import type { Answer } from './answers.ts';
import type { Tool } from './catalogue.ts';
import type { Execution } from './execution.ts';
import { backoffMs } from './policy.ts';
import { resultAnswer } from './results.ts';

export async function followOperation(
  run: Execution,
  tool: Tool,
  operationId: string,
  pollAfterMs: number,
): Promise<Answer> {
  const { context, connection, plan, policy } = run;
  const conduct = policy.conduct;
  let wait = pollAfterMs;
  let cancelAsked = false;
  let failures = 0;
  for (let polls = 0; polls < policy.maxPolls; polls++) {
    let session = run.session;
    if (session === null) return run.unreachable();
    const canCancel = conduct.mayCancel(session.capabilities);
    if (plan.cancel?.requested && !cancelAsked && canCancel) {
      cancelAsked = true;
      const reply = await connection.sendIn(session, 'cancel_operation', plan.requestId, (b) =>
        b.putString('operation_id', operationId),
      );
      if (reply.kind === 'reply') {
        conduct.closeReply(reply.bundle);
        if (conduct.cancelTakenEnds(reply.bundle)) return run.end('cancelled');
      }
    }
    const pause = conduct.pollPause(policy, wait);
    if (plan.cancel && !cancelAsked && canCancel) await plan.cancel.sleep(context, pause);
    else await context.sleep(pause);
    if (plan.cancel?.requested && !cancelAsked && canCancel) continue; // ask for the cancellation first
    const reply = await connection.sendIn(session, 'get_operation', plan.requestId, (b) =>
      b.putString('operation_id', operationId),
    );
    if (reply.kind !== 'reply') {
      if (failures >= policy.maxRetries) return run.unreachable();
      wait = backoffMs(policy, failures++);
      continue;
    }
    try {
      const read = protocol.readResponseBundle(reply.bundle, 'get_operation', {
        expectedRequestId: plan.requestId,
        negotiatedCapabilities: session.capabilities,
      });
      if (!read.ok || read.value.status === 'accepted') return run.end('invalid_response');
      if (read.value.status === 'error') {
        const e = read.value.error;
        if (e.code === 'NEGOTIATION_REQUIRED') {
          const again = await connection.renegotiate(session);
          if (!again.ok) return run.unreachable();
          session = again.session;
          run.session = session;
          wait = 0;
          continue;
        }
        const delay = conduct.retryDelay(policy, e, failures);
        if (delay === null) return run.terminal(e.code, e.message);
        failures++;
        wait = delay;
        continue;
      }
      failures = 0;
      const status = read.value.data;
      if (status.operation_id !== operationId) return run.end('invalid_response');
      if (status.state === 'queued' || status.state === 'running') {
        wait = status.poll_after_ms ?? 1_000;
        continue;
      }
      if (status.state === 'cancelled') return run.end('cancelled');
      if (status.state === 'failed') {
        const code = status.error?.error_code ?? 'INTERNAL_ERROR';
        return run.terminal(code, status.error?.error_message ?? '');
      }
      if (!status.result) return run.end('invalid_response');
      const done = await resultAnswer(context, run.source, tool, status.result, reply.bundle, conduct);
      return cancelAsked
        ? run.end('too_late_to_cancel', done.untrusted ? { untrusted: done.untrusted } : {})
        : done;
    } finally {
      conduct.closeReply(reply.bundle);
    }
  }
  return run.unreachable();
}
