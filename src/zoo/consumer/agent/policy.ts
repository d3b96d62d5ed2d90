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
import type { AppContext, Bundle, PendingIntent } from '../../../index.ts';
import { protocol } from '../../../index.ts';
import type { Answer, Source } from './answers.ts';
import type { Catalogue } from './catalogue.ts';
import type { Entry, JournalLayout } from './journal.ts';

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
  readonly journal: JournalLayout;
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

/**
 * The decisions a consumer-level mistake changes (conduct.ts holds `CORRECT`, what the rules ask).
 * It lives beside `Policy` because each refers to the other.
 */
export interface Conduct {
  /** consumer_versions offered in negotiate: 2 and 1, descending (0-02, 2.2-02). */
  readonly offeredVersions: () => number[];
  /** The version a provider declaring `versions` is spoken to in: v2 when it has 2 (8-07, 0-02). */
  readonly pickVersion: (versions: readonly number[]) => 1 | 2 | null;
  /** After a failed negotiation: never v1 (8-03, 8-08, 8-09). `legacy` would execute through v1. */
  readonly afterFailedNegotiation: (unavailable: Answer, legacy: () => Promise<Answer>) => Promise<Answer>;
  /** A catalogue used WITHOUT reading list_tools in the new session: none (3.3-05). */
  readonly catalogueWithoutListing: (kept: ReadonlyMap<string, Catalogue>) => Catalogue | undefined;
  /** The kept catalogue a session's list_tools answer lets us use: that revision's only (3.3-04). */
  readonly keptCatalogue: (kept: ReadonlyMap<string, Catalogue>, revision: unknown) => Catalogue | undefined;
  /** The request_id of an execute_tool send: the execution's, whatever the reason (4.1-04, 4.1-16). */
  readonly requestIdOf: (planId: string, reason: string, context: AppContext) => string;
  /** The args bytes of a send: the execution's, byte for byte (4.1-16, 6-08). */
  readonly argsOf: (args: string, reason: string) => string;
  /** The request_id a journaled write is resumed under: its own (4.1-04, 6-08). */
  readonly resumedRequestId: (entry: Entry, context: AppContext) => string;
  /** An answer outside the protocol (an unknown error code among them) is never re-sent (5-26, 5-01). */
  readonly resendsUnreadable: (bundle: Bundle) => boolean;
  /** Whether (and after how long) an error is re-sent (5-26, 5-27). */
  readonly retryDelay: (policy: Policy, error: WireFailure, retries: number) => number | null;
  /** Whether DEADLINE_EXCEEDED is followed by a same-id query (5-19). */
  readonly queriesAfterDeadline: (queriedBefore: boolean) => boolean;
  /** The answer a provider's refusal becomes: our explanation, its text untrusted (4.2-05, 7.3-03). */
  readonly rejected: (policy: Policy, source: Source, e: { code: string; message: string }) => Answer;
  /** A tool's description in the agent's listing: untrusted text (4.2-04, 4.2-05). */
  readonly listedDescription: (description: { trust: 'untrusted'; text: string }) => unknown;
  /** Closes every fd of a handled reply (4.5-09). */
  readonly closeReply: (bundle: Bundle) => void;
  /** An inline result is checked against the tool's output_schema before the agent sees it (7.3-02). */
  readonly checksOutput: () => boolean;
  /** A file result's bytes against its declared sha256 (4.5-06). */
  readonly digestMatches: (bytes: Uint8Array, sha256: string) => boolean;
  /** A resolution is launched only when it is the provider's own (4.3-02, 7.2-04, 7.2-05). */
  readonly isProvidersOwn: (pi: PendingIntent, provider: { packageName: string; uid: number }) => boolean;
  /** AUTH_REQUIRED / USER_ACTION_REQUIRED: launch, and resume only if it ran (5-28, 4.3-12). */
  readonly onResolution: (launch: () => Promise<boolean>) => Promise<'resume' | 'retry' | 'refused'>;
  /** The resume_token presented next: the latest one issued (4.3-07). */
  readonly nextResumeToken: (held: string | null, issued: string) => string;
  /** Starts a resolution and waits for its Activity result (4.3-12). */
  readonly startResolution: (context: AppContext, pi: PendingIntent) => Promise<void>;
  /** A taken cancel_operation is a request, never an outcome (4.4-11, 4.4-19). */
  readonly cancelTakenEnds: (bundle: Bundle) => boolean;
  /** Nothing more can be learned: unknown if a write may have landed (4.1-15, 6-05, 6-08). */
  readonly unreachableKind: (
    isWrite: boolean,
    unanswered: boolean,
  ) => 'outcome_unknown' | 'provider_unavailable';
  /** A lost reply (death, null, timeout) leaves the outcome open; `giveUp`: end the execution at once. */
  readonly lostReplyGivesUp: () => boolean;
  /** A restarted process resumes its journal's open writes (6-08, 4.1-15). */
  readonly resumesOnStart: () => boolean;
  /** A write is journaled, durably, before its first send (4.1-04, 6-08). */
  readonly journalsWrites: () => boolean;
  /** cancel_operation only when `cancellation` was negotiated (2.3-04, 4-06). */
  readonly mayCancel: (capabilities: readonly string[]) => boolean;
  /** The pause before the next get_operation: poll_after_ms within our bounds (4.4-05). */
  readonly pollPause: (policy: Policy, asked: number) => number;
}
