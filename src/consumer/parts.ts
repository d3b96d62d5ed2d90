/**
 * The reference consumer's named parts: each the one place a decision a planted bug gets wrong is
 * made. A planted bug (planted.ts) replaces or wraps one of them from outside; the reference
 * consumer has none substituted and no bug branches.
 */
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import { type ResolutionCheck, verifyResolution } from './confirmation.ts';
import type { ConsumerGates } from './gates.ts';

/** The two ways to reach a provider: an unstable client (the reference) or a stable ContentResolver.call. */
export interface CallRoutes<T> {
  readonly unstable: () => Promise<T>;
  readonly stable: () => Promise<T>;
}

export interface ConsumerParts {
  /** Is `pi` the provider's own explicit, immutable resolution? (confirmation.ts) */
  readonly verifyResolution: (
    pi: PendingIntent,
    provider: { readonly packageName: string; readonly uid: number },
    gates: ConsumerGates,
  ) => ResolutionCheck;
  /**
   * Does a file result's content match its declared SHA-256 (4.5-06)? `actual`: the lowercase hex
   * SHA-256 of the bytes read (hashed while reading, so the bytes are never held whole).
   */
  readonly digestMatches: (actual: string, sha256: string) => boolean;
  /** Is a v2 provider that failed negotiation used through v1 (8-03, 8-08, 8-09)? */
  readonly fallsBackToV1: (gates: ConsumerGates) => boolean;
  /** Why an error reply must not be re-sent before the attempt limit (5-26, 5-28), or null. */
  readonly refusesRetry: (
    error: { readonly code: string; readonly retryable: boolean },
    gates: ConsumerGates,
    needsUser: boolean,
  ) => 'needs_user' | 'not_retryable' | null;
  /** How long the provider asked to wait before a re-send (5-27). */
  readonly retryAfterMs: (error: { readonly retryAfterMs?: number | null }, gates: ConsumerGates) => number;
  /** How a call reaches the provider (6-08, 4.1-15). */
  readonly call: <T>(routes: CallRoutes<T>) => Promise<T>;
  /** May a method that needs `needed` be sent in a session without it (2.3-04, 8-06)? */
  readonly callsUnnegotiated: (gates: ConsumerGates) => boolean;
  /** The request_id the journal keeps for a new execution (6-08, 4.1-16). */
  readonly journaledRequestId: (requestId: string | null) => string | null;
  /** Whether a handled reply's fds are closed (4.5-09): `failed` says the reply was not a success. */
  readonly closesReplyFds: (failed: boolean) => boolean;
  /** Does a retry go out under a new request_id (4.1-04, 4.1-16)? */
  readonly renewsRequestId: (gates: ConsumerGates) => boolean;
  /** Is an unknown error code retryable, given what the reply claims? */
  readonly unknownErrorRetryable: (claimed: boolean) => boolean;
}

/** The reference consumer's parts. */
export const REFERENCE_CONSUMER_PARTS: ConsumerParts = {
  verifyResolution,
  digestMatches: (actual, sha256) => actual === sha256,
  fallsBackToV1: (gates) => !gates.on('CETP-8-03', 'CETP-8-08', 'CETP-8-09'),
  refusesRetry: (error, gates, needsUser) => {
    if (needsUser && gates.on('CETP-5-28')) return 'needs_user';
    if (!error.retryable && gates.on('CETP-5-26')) return 'not_retryable';
    return null;
  },
  retryAfterMs: (error, gates) => (gates.on('CETP-5-27') ? (error.retryAfterMs ?? 0) : 0),
  call: (routes) => routes.unstable(),
  callsUnnegotiated: (gates) => !gates.on('CETP-2.3-04', 'CETP-8-06'),
  journaledRequestId: (requestId) => requestId,
  closesReplyFds: () => true,
  renewsRequestId: (gates) => !gates.on('CETP-4.1-04', 'CETP-4.1-16'),
  unknownErrorRetryable: () => false,
};
