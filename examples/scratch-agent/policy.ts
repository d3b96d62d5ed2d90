/**
 * The retry discipline, from the §5 error table (cetp-sim's `protocol.ERROR_CODE_TABLE`):
 *
 * - re-send automatically only an error the table allows (`yes`, or `conditional` with
 *   retryable=true) AND the provider marked retryable; never an unknown code (5-26);
 * - never re-send after AUTH_REQUIRED, USER_ACTION_REQUIRED, INVALID_ARGS or PERMISSION_DENIED
 *   without the user (5-28): those go through the resolution flow, or end;
 * - wait at least retry_after_ms (5-27) and an exponential back-off, within a budget;
 * - every re-send keeps the request_id and the exact args bytes (4.1-04, 4.1-16, 6-08) — the
 *   execution does that; this file only says whether and when.
 */
import { protocol } from '../../src/index.ts';

export const MAX_RETRIES = 4;
const BASE_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** A provider asking for a longer pause than this gets a "try later" answer instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

const NEEDS_USER = new Set(['AUTH_REQUIRED', 'USER_ACTION_REQUIRED', 'INVALID_ARGS', 'PERMISSION_DENIED']);

export interface WireFailure {
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number | undefined;
}

export function backoffMs(retriesSoFar: number): number {
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retriesSoFar);
}

/** May this error be re-sent automatically (same request_id), and after how long? null: no. */
export function retryDelay(error: WireFailure, retriesSoFar: number): number | null {
  if (!protocol.isKnownErrorCode(error.code) || NEEDS_USER.has(error.code)) return null;
  if (protocol.retryPolicyOf(error.code) === 'no' || !error.retryable) return null;
  if (retriesSoFar >= MAX_RETRIES) return null;
  const after = error.retryAfterMs ?? 0;
  if (after > MAX_RETRY_AFTER_MS) return null;
  return Math.max(after, backoffMs(retriesSoFar));
}
