/**
 * Following an async operation (spec §4.4; NOTES 10, interpretations.md "Cancellation").
 *
 * After `accepted` the consumer polls get_operation with the operation_id and the creating
 * request_id (4.1-10, 4.1-11, 4.4-03), honouring poll_after_ms within its own bounds, until a
 * terminal state. Progress is shown (an UntrustedProgress to the caller's callback) and never taken
 * for success: only state=succeeded is (4.4-09). A cancellation request sends cancel_operation —
 * only if `cancellation` was negotiated (2.3-04, 4-06) — and then keeps polling: only
 * state=cancelled means no effect; an operation that still succeeds, or a CONFLICT because it had
 * already committed, is reported as `too_late_to_cancel` carrying what happened (4.4-11, 4.4-19,
 * 4.4-20). Death, null and timeouts are retried with the same ids; NEGOTIATION_REQUIRED (a provider
 * restart) renegotiates and goes on polling the same operation, bound to our UID, not the session.
 */

import type { JsonObject } from '../base/json.ts';
import type { OperationStatus } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { Waiter } from '../sim/core/scheduler.ts';
import type { ExecutionRun } from './execution.ts';
import type { ToolOutcome } from './outcomes.ts';
import { classify } from './replies.ts';
import { decideRetry, decideTransportRetry } from './retry.ts';
import { untrustedText } from './untrusted.ts';

/** A cancellation request another task can raise while an execution waits; it wakes the wait. */
export class CancelSignal {
  private requested = false;
  private readonly waiters = new Set<Waiter<void>>();

  get isRequested(): boolean {
    return this.requested;
  }

  cancel(): void {
    this.requested = true;
    for (const w of this.waiters) w.wake(undefined);
    this.waiters.clear();
  }

  /** Sleeps `ms`, or less if cancellation is requested meanwhile. */
  async sleep(context: AppContext, ms: number): Promise<void> {
    if (this.requested) return;
    const waiter = context.waiter<void>('poll interval or cancellation');
    this.waiters.add(waiter);
    await context.waitFor(waiter, ms);
    this.waiters.delete(waiter);
  }
}

type CancelState = 'none' | 'requested' | 'conflict' | 'unavailable';

export async function followOperation(
  run: ExecutionRun,
  operationId: string,
  pollAfterMs: number,
): Promise<ToolOutcome> {
  const { config, context, plan } = run;
  const { gates, retry } = config;
  let pollAfter = pollAfterMs;
  let cancelState: CancelState = 'none';
  let failures = 0;
  /** Sends cancel_operation once it is asked for; the ablation of 4.4-11/4.4-19 stops right there. */
  const maybeCancel = async (): Promise<ToolOutcome | null> => {
    if (plan.cancel?.isRequested && cancelState === 'none')
      cancelState = await requestCancel(run, operationId);
    if (cancelState === 'requested' && !gates.on('CETP-4.4-11', 'CETP-4.4-19')) {
      // Rule ablation: "cancellation_requested" taken for "cancelled", without polling to the end.
      return run.fail({ kind: 'cancelled' });
    }
    return null;
  };
  for (let polls = 0; ; polls++) {
    if (polls >= retry.maxPolls)
      return run.fail({ kind: 'outcome_unknown', reason: 'operation_still_running' });
    const before = await maybeCancel();
    if (before) return before;
    const wait = Math.min(retry.maxPollMs, Math.max(retry.minPollMs, pollAfter));
    if (plan.cancel && !plan.cancel.isRequested) await plan.cancel.sleep(context, wait);
    else await context.sleep(wait);
    const after = await maybeCancel();
    if (after) return after;
    const sent = await run.client.send('get_operation', {
      requestId: run.requestId,
      attempt: { executionId: plan.executionId, reason: 'poll' },
      fill: (b) => b.putString('operation_id', operationId),
    });
    if (!('outcome' in sent)) return run.fail({ kind: 'outcome_unknown', reason: sent.reason });
    const session = sent.session;
    const maxDataBytes = session.limits.maxInlineResultBytes + config.limits.maxMetadataBytes;
    const c = classify(
      sent.outcome,
      'get_operation',
      Object.assign(run.classifyOptions(session), { maxDataBytes }),
      config,
    );
    let step: PollStep;
    if (c.kind === 'transport') {
      const d = decideTransportRetry(failures, config);
      failures++;
      step = d.retry
        ? { poll: d.delayMs }
        : { done: run.fail({ kind: 'outcome_unknown', reason: `transport_${c.outcome.kind}` }) };
    } else if (c.kind === 'invalid') {
      step = { done: run.invalid(c.issues, c.oversized) };
    } else if (c.kind === 'accepted') {
      step = { done: run.invalid(['unexpected_accepted'], false) };
    } else if (c.kind === 'error' && c.error.code === 'NEGOTIATION_REQUIRED') {
      const again = await run.renegotiateStep(session);
      step = 'done' in again ? again : { poll: 0 };
    } else if (c.kind === 'error') {
      const d = decideRetry(c.error, failures, config);
      failures++;
      step = d.retry ? { poll: d.delayMs } : { done: run.terminalError(c.error) };
    } else {
      failures = 0;
      const status = c.data;
      step = await run.guarded(() => onStatus(run, status, c.bundle, operationId, cancelState));
    }
    if (sent.outcome.kind === 'reply')
      run.settleReply(sent.outcome.bundle, 'done' in step ? step : { next: 'poll' });
    if ('done' in step) return step.done;
    pollAfter = step.poll;
  }
}

type PollStep = { readonly done: ToolOutcome } | { readonly poll: number };

async function onStatus(
  run: ExecutionRun,
  status: OperationStatus,
  bundle: Bundle,
  operationId: string,
  cancelState: CancelState,
): Promise<PollStep> {
  if (status.operation_id !== operationId)
    return { done: run.fail({ kind: 'invalid_response', issues: ['operation_id_mismatch'] }) };
  const tooLate = cancelState === 'requested' || cancelState === 'conflict';
  switch (status.state) {
    case 'queued':
    case 'running': {
      const p = status.progress;
      if (p && Number.isFinite(p.current) && Number.isFinite(p.total)) {
        const { limits, gates } = run.config;
        run.plan.onProgress?.({
          trust: 'untrusted',
          current: p.current,
          total: p.total,
          message:
            p.message === undefined
              ? null
              : untrustedText(p.message, limits.maxMessageChars, gates.on('CETP-7.3-01')),
        });
      }
      return { poll: status.poll_after_ms ?? 1_000 };
    }
    case 'succeeded': {
      if (!status.result) return { done: run.fail({ kind: 'invalid_response', issues: ['missing_result'] }) };
      const outcome = await run.resultOutcome(status.result, bundle);
      // 4.4-19: a cancellation that did not win is reported as what happened, not as "cancelled".
      return { done: tooLate ? run.fail({ kind: 'too_late_to_cancel', completed: outcome }) : outcome };
    }
    case 'failed': {
      const e = status.error;
      const { limits, gates } = run.config;
      return {
        done: run.terminalError({
          code: e?.error_code ?? 'INTERNAL_ERROR',
          message: untrustedText(e?.error_message ?? '', limits.maxMessageChars, gates.on('CETP-7.3-01')),
          details: (e?.error_details as JsonObject | undefined) ?? null,
        }),
      };
    }
    case 'cancelled':
      return { done: run.fail({ kind: 'cancelled' }) };
  }
}

/** cancel_operation (4.4-18), only when negotiated; the answer only says the request was taken. */
async function requestCancel(run: ExecutionRun, operationId: string): Promise<CancelState> {
  const { config, plan } = run;
  if (plan.journaled) await run.client.journal.update(plan.executionId, { cancelRequested: true });
  const sent = await run.client.send('cancel_operation', {
    requestId: run.requestId,
    attempt: { executionId: plan.executionId, reason: 'cancel' },
    fill: (b) => b.putString('operation_id', operationId),
  });
  if (!('outcome' in sent)) return 'unavailable';
  const c = classify(sent.outcome, 'cancel_operation', run.classifyOptions(sent.session), config);
  if (sent.outcome.kind === 'reply') run.settleReply(sent.outcome.bundle, { next: 'cancel' });
  if (c.kind === 'success') return 'requested';
  if (c.kind === 'error' && c.error.code === 'CONFLICT') return 'conflict';
  if (c.kind === 'error' && c.error.code === 'NEGOTIATION_REQUIRED') {
    const step = await run.renegotiateStep(sent.session);
    return 'done' in step ? 'unavailable' : 'none';
  }
  // A transport failure is tried again at the next poll; anything else: keep polling, uncancelled.
  return c.kind === 'transport' ? 'none' : 'unavailable';
}
