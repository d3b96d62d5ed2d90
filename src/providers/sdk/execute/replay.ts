/**
 * Answering a request that already has a record (spec §6, NOTES 1, 3, 10, 11): within the
 * idempotency window the same terminal result, rendered for this session (6-05); after it,
 * RESULT_EXPIRED, never a second execution (5-22); while an operation runs, `accepted` with the
 * same operation (6-07); another request under the same id, INVALID_REQUEST (6-04).
 */
import type { Bundle } from '../../../sim/binder/bundle.ts';
import type { RequestRecord } from '../records.ts';
import { acceptedBundle, errorBundle, WireFailure } from '../responses.ts';
import { echo, respondWithValue } from './support.ts';
import type { Execution, Runtime } from './types.ts';

/** Has the record's idempotency window (counted from its terminal state, NOTES 11) passed? */
export function windowPassed(rt: Runtime, windowSeconds: number, record: RequestRecord): boolean {
  return (
    rt.gates.on('CETP-5-22') &&
    record.terminalAtMs !== null &&
    rt.context.currentTimeMillis() > record.terminalAtMs + windowSeconds * 1000
  );
}

/** INVALID_REQUEST for a request_id already bound to another tool or other args (6-03, 6-04). */
export function reusedRequestId(): WireFailure {
  return new WireFailure('INVALID_REQUEST', {
    message: 'This request_id was already used with a different tool or arguments.',
  });
}

/** INVALID_REQUEST for a resume token that cannot resume this call, saying why (4.3-03 … 4.3-06). */
export function invalidResumeToken(reason: string): WireFailure {
  return new WireFailure('INVALID_REQUEST', { message: `Invalid resume_token: ${reason}.` });
}

/** INVALID_REQUEST when `record` is another request under this request_id (6-03, 6-04), else null. */
export function otherRequest(ex: Execution, record: RequestRecord): WireFailure | null {
  return ex.rt.parts.sameRequest(ex, record) ? null : reusedRequestId();
}

/**
 * Whether a transaction of this call may write its own record over `existing`: only over this
 * request's own reservation for confirmation (its approved resume). Another call under the same
 * request_id may have reserved it — with other args — between this call's first look and its
 * transaction; that reservation stands.
 */
export function mayReplace(ex: Execution, existing: RequestRecord): boolean {
  return existing.state === 'pending_confirmation' && ex.rt.parts.sameRequest(ex, existing);
}

/**
 * The answer when this call found a record another call made first: refused if that is another
 * request under the same id (6-04), else that request's answer.
 */
export function answerExisting(ex: Execution, record: RequestRecord): Bundle {
  const other = otherRequest(ex, record);
  if (other) return errorBundle(echo(ex), other.code, other.init);
  return replayRecord(ex, record);
}

export function replayRecord(ex: Execution, record: RequestRecord): Bundle {
  const { rt } = ex;
  if (windowPassed(rt, ex.session.limits.idempotencyWindowSeconds, record)) {
    return errorBundle(echo(ex), 'RESULT_EXPIRED');
  }
  switch (record.state) {
    case 'succeeded':
      return respondWithValue(ex, record.result ?? null, true);
    case 'failed': {
      const e = record.error;
      // A failed record without its error (a corrupted store): INTERNAL_ERROR, not retryable (its default).
      if (!e) return errorBundle(echo(ex), 'INTERNAL_ERROR');
      return errorBundle(echo(ex), e.code as 'CONFLICT', {
        message: e.message,
        retryable: e.retryable,
        ...(e.details ? { details: e.details } : {}),
      });
    }
    case 'cancelled':
      return errorBundle(echo(ex), 'CANCELLED');
    case 'user_cancelled':
      return errorBundle(echo(ex), 'USER_CANCELLED');
    case 'queued':
    case 'running':
      return acceptedBundle(ex.req.requestId, record.operationId ?? '', rt.options.pollAfterMs);
    case 'pending_confirmation':
      return errorBundle(echo(ex), 'INTERNAL_ERROR', { retryable: true });
  }
}
