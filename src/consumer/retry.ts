/**
 * The consumer's retry discipline (spec §5, §6; NOTES 3, 5, 7):
 *
 * - an error is retried automatically only when it is retryable (CETP-5-26) — an unknown code never
 *   is (readFailure in replies.ts decides that);
 * - authorization, confirmation and argument errors are never retried in a loop, whatever their
 *   `retryable` says: they need a user action or new input (5-28);
 * - a retry waits at least retry_after_ms (5-27), and at least an exponential backoff, on the
 *   virtual clock; a retry_after_ms beyond the consumer's patience ends the execution instead;
 * - the number of automatic re-sends per call is bounded;
 * - every re-send keeps the logical execution's request_id (4.1-04, 4.1-15, 6-08): the engine does
 *   that; this module only says whether and when.
 */
import type { ErrorCode } from '../protocol/index.ts';
import type { ConsumerConfig } from './options.ts';
import type { ReceivedFailure } from './replies.ts';

/**
 * Errors that need the user or new input: never retried automatically (5-28). A function rather
 * than a module-level list, so that a mutation test reaches each code (a module constant is
 * evaluated once, before any mutant is active).
 */
export function needsUserOrInput(code: ErrorCode | 'UNRECOGNIZED'): boolean {
  return (
    code === 'AUTH_REQUIRED' ||
    code === 'USER_ACTION_REQUIRED' ||
    code === 'INVALID_ARGS' ||
    code === 'PERMISSION_DENIED'
  );
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | {
      readonly retry: false;
      readonly why: 'not_retryable' | 'needs_user' | 'exhausted' | 'retry_after_too_long';
    };

export function backoffMs(config: ConsumerConfig, retriesSoFar: number): number {
  const { baseBackoffMs, maxBackoffMs } = config.retry;
  return Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.max(0, retriesSoFar));
}

/** Should an error reply be re-sent (same request_id), and after how long? */
export function decideRetry(
  error: ReceivedFailure,
  retriesSoFar: number,
  config: ConsumerConfig,
): RetryDecision {
  const { gates, retry, parts } = config;
  const refused = parts.refusesRetry(error, gates, needsUserOrInput(error.code));
  // Stryker disable next-line ObjectLiteral: equivalent — every caller reads `why` only for 'exhausted' / 'retry_after_too_long'; a refusal and {} both end the call with its error
  if (refused !== null) return { retry: false, why: refused };
  if (retriesSoFar >= retry.maxRetries) return { retry: false, why: 'exhausted' };
  const after = parts.retryAfterMs(error, gates);
  if (after > retry.maxRetryAfterMs) return { retry: false, why: 'retry_after_too_long' };
  return { retry: true, delayMs: Math.max(after, backoffMs(config, retriesSoFar)) };
}

/** After a transport failure (death, null, timeout): re-send with the same id, bounded (6-08). */
export function decideTransportRetry(retriesSoFar: number, config: ConsumerConfig): RetryDecision {
  // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent — every caller of a transport decision reads only `retry`
  if (retriesSoFar >= config.retry.maxRetries) return { retry: false, why: 'exhausted' };
  return { retry: true, delayMs: backoffMs(config, retriesSoFar) };
}
