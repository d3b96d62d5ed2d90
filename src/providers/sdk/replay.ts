/**
 * Answering a request that already has a record (spec §6, NOTES 1, 3, 10, 11): within the
 * idempotency window the same terminal result, rendered for this session (6-05); after it,
 * RESULT_EXPIRED, never a second execution (5-22); while an operation runs, `accepted` with the
 * same operation (6-07).
 */
import type { Bundle } from '../../sim/bundle.ts';
import type { Execution } from './execute.ts';
import { echo, respondWithValue } from './execute.ts';
import type { RequestRecord } from './records.ts';
import { acceptedBundle, errorBundle } from './responses.ts';
import type { Runtime } from './runtime.ts';

/** Has the record's idempotency window (counted from its terminal state, NOTES 11) passed? */
export function windowPassed(rt: Runtime, windowSeconds: number, record: RequestRecord): boolean {
  return (
    rt.gates.on('CETP-5-22') &&
    record.terminalAtMs !== null &&
    rt.context.currentTimeMillis() > record.terminalAtMs + windowSeconds * 1000
  );
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
      return errorBundle(
        echo(ex),
        (e?.code ?? 'INTERNAL_ERROR') as 'CONFLICT',
        e
          ? { message: e.message, retryable: e.retryable, ...(e.details ? { details: e.details } : {}) }
          : { retryable: false },
      );
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
