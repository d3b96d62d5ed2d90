/**
 * Async operations (spec §4.4). After `accepted` we poll get_operation with the operation_id and
 * the creating request_id (4.1-10, 4.1-11, 4.4-03), honouring poll_after_ms within our bounds,
 * until a terminal state. Progress is never success (4.4-09). A cancellation sends
 * cancel_operation only if `cancellation` was negotiated (2.3-04, 4-06), then keeps polling:
 * only state=cancelled means "did not happen"; an operation that still succeeds is reported as
 * too late to cancel, with its result (4.4-11, 4.4-19).
 */
import { type AppContext, type Bundle, protocol } from '../../../index.ts';
import type { Answer, AnswerKind, answer, Source } from './answers.ts';
import type { Cancellation } from './cancellation.ts';
import type { Tool } from './catalogue.ts';
import { backoffMs, type Policy } from './policy.ts';
import { resultAnswer } from './results.ts';
import type { Connection, Session } from './session.ts';

/** The execution an operation is followed for (execution.ts's `Execution`), as much as it needs. */
export interface OperationRun {
  readonly context: AppContext;
  readonly connection: Connection;
  readonly plan: { readonly requestId: string; readonly cancel: Cancellation | null };
  readonly policy: Policy;
  session: Session | null;
  readonly source: Source;
  end(kind: AnswerKind, more?: Parameters<typeof answer>[2]): Answer;
  unreachable(): Answer;
  terminal(code: string, message: string): Answer;
}

/** What one get_operation reply leaves: the answer, or the pause and failure count for the next poll. */
type Polled = { readonly done: Answer } | { readonly wait: number; readonly failures: number };

export async function followOperation(
  run: OperationRun,
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
    const session = run.session;
    if (session === null) return run.unreachable();
    const canCancel = conduct.mayCancel(session.capabilities);
    if (plan.cancel?.requested && !cancelAsked && canCancel) {
      cancelAsked = true;
      const ended = await askCancel(run, session, operationId);
      if (ended !== null) return ended;
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
      const polled = await readPoll(run, tool, operationId, reply.bundle, session, failures, cancelAsked);
      if ('done' in polled) return polled.done;
      ({ wait, failures } = polled);
    } finally {
      conduct.closeReply(reply.bundle);
    }
  }
  return run.unreachable();
}

/** Sends cancel_operation; the answer when the provider's reply ends the execution, else null. */
async function askCancel(run: OperationRun, session: Session, operationId: string): Promise<Answer | null> {
  const conduct = run.policy.conduct;
  const reply = await run.connection.sendIn(session, 'cancel_operation', run.plan.requestId, (b) =>
    b.putString('operation_id', operationId),
  );
  if (reply.kind !== 'reply') return null;
  conduct.closeReply(reply.bundle);
  return conduct.cancelTakenEnds(reply.bundle) ? run.end('cancelled') : null;
}

/** Reads one get_operation reply: an outcome, or how long to wait before polling again. */
async function readPoll(
  run: OperationRun,
  tool: Tool,
  operationId: string,
  bundle: Bundle,
  session: Session,
  failures: number,
  cancelAsked: boolean,
): Promise<Polled> {
  const { context, connection, plan, policy } = run;
  const conduct = policy.conduct;
  const read = protocol.readResponseBundle(bundle, 'get_operation', {
    expectedRequestId: plan.requestId,
    negotiatedCapabilities: session.capabilities,
  });
  if (!read.ok || read.value.status === 'accepted') return { done: run.end('invalid_response') };
  if (read.value.status === 'error') {
    const e = read.value.error;
    if (e.code === 'NEGOTIATION_REQUIRED') {
      const again = await connection.renegotiate(session);
      if (!again.ok) return { done: run.unreachable() };
      run.session = again.session;
      return { wait: 0, failures };
    }
    const delay = conduct.retryDelay(policy, e, failures);
    if (delay === null) return { done: run.terminal(e.code, e.message) };
    return { wait: delay, failures: failures + 1 };
  }
  const status = read.value.data;
  if (status.operation_id !== operationId) return { done: run.end('invalid_response') };
  if (status.state === 'queued' || status.state === 'running')
    return { wait: status.poll_after_ms ?? 1_000, failures: 0 };
  if (status.state === 'cancelled') return { done: run.end('cancelled') };
  if (status.state === 'failed') {
    const code = status.error?.error_code ?? 'INTERNAL_ERROR';
    return { done: run.terminal(code, status.error?.error_message ?? '') };
  }
  if (!status.result) return { done: run.end('invalid_response') };
  const done = await resultAnswer(context, run.source, tool, status.result, bundle, conduct);
  return {
    done: cancelAsked
      ? run.end('too_late_to_cancel', done.untrusted ? { untrusted: done.untrusted } : {})
      : done,
  };
}
