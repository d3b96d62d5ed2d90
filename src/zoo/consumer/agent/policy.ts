/**
 * What a generated consumer varies (src/zoo/consumer/generate.ts draws it), and the retry discipline
 * it applies, from the §5 error table (cetp-sim's `protocol.ERROR_CODE_TABLE`):
 *
 * - re-send automatically only an error the table allows (`yes`, or `conditional` with
 *   retryable=true) AND the provider marked retryable; never an unknown code (5-26);
 * - never re-send after AUTH_REQUIRED, USER_ACTION_REQUIRED, INVALID_ARGS or PERMISSION_DENIED
 *   without the user (5-28): those go through the resolution flow, or end;
 * - wait at least retry_after_ms (5-27) and an exponential back-off, within a budget;
 * - every re-send keeps the request_id and the exact args bytes (4.1-04, 4.1-16, 6-08) — the
 *   execution does that; this file only says whether and when.
 *
 * Every number and choice here is within the rules: a consumer built with any `Policy` the
 * generator draws must pass every consumer property. `Conduct` (conduct.ts) is where a mistake
 * changes the consumer.
 */
import { protocol } from '../../../index.ts';
import type { Conduct } from './conduct.ts';

export interface Policy {
  /** The generated consumer's index (names its package and its journal). */
  readonly index: number;
  readonly packageName: string;
  /** Optional capabilities this consumer implements and offers (2.3-02). */
  readonly capabilities: readonly string[];
  /** Automatic re-sends of one execution, and of a list_tools, at most. */
  readonly maxRetries: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** A provider asking for a longer pause than this gets a "try later" answer instead. */
  readonly maxRetryAfterMs: number;
  /** How long a Binder call is waited for before it counts as lost. */
  readonly callTimeoutMs: number;
  /** deadline_at_ms of each v2 call, from now. */
  readonly deadlineMs: number;
  /** How long a provider that failed to negotiate is left alone (at least its retry_after_ms). */
  readonly tryAgainAfterMs: number;
  /** Catalogues kept by revision (0: none kept; every session's list_tools is compiled afresh). */
  readonly catalogueRevisions: number;
  /** A kept catalogue is dropped after this long (null: never). */
  readonly catalogueLifetimeMs: number | null;
  /** The journal: its table, how its keys are made, what happens to a settled entry. */
  readonly journal: {
    readonly table: string;
    readonly key: 'request' | 'package-request';
    readonly settled: 'mark' | 'delete';
    readonly resumeOrder: 'oldest' | 'newest';
  };
  /** After DEADLINE_EXCEEDED, the same-id query goes at once or after one back-off. */
  readonly queryAfterDeadline: 'at-once' | 'after-backoff';
  readonly minPollMs: number;
  readonly maxPollMs: number;
  readonly maxPolls: number;
  readonly maxRenegotiations: number;
  readonly maxUserActions: number;
  /** How the agent-facing API answers. */
  readonly answers: {
    /** The explanation table used (our own text either way). */
    readonly wording: 'plain' | 'terse';
    /** Whether a rejection carries the provider's message (always as untrusted text). */
    readonly providerMessage: boolean;
    readonly clipChars: number;
    /** Listing order: by (provider_id, name) or by (name, provider_id); never discovery order. */
    readonly listing: 'provider-then-name' | 'name-then-provider';
  };
  /** v1 catalogues: read once per process, or at every listing. */
  readonly v1Catalogue: 'once' | 'every-listing';
  readonly conduct: Conduct;
}

const NEEDS_USER = new Set(['AUTH_REQUIRED', 'USER_ACTION_REQUIRED', 'INVALID_ARGS', 'PERMISSION_DENIED']);

export interface WireFailure {
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number | undefined;
}

export function backoffMs(policy: Policy, retriesSoFar: number): number {
  return Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** retriesSoFar);
}

/** May this error be re-sent automatically (same request_id), and after how long? null: no. */
export function retryDelay(policy: Policy, error: WireFailure, retriesSoFar: number): number | null {
  if (!protocol.isKnownErrorCode(error.code) || NEEDS_USER.has(error.code)) return null;
  if (protocol.retryPolicyOf(error.code) === 'no' || !error.retryable) return null;
  if (retriesSoFar >= policy.maxRetries) return null;
  const after = error.retryAfterMs ?? 0;
  if (after > policy.maxRetryAfterMs) return null;
  return Math.max(after, backoffMs(policy, retriesSoFar));
}
