/**
 * A scenario is data (so fast-check generates and shrinks it, and a replay file stores it): for each
 * actor — a client app with its own UID — a list of protocol commands it sends in order; the
 * simulated user's answers; a list of faults; and the scheduler's decisions. Actors run
 * concurrently; the decisions pick the interleaving.
 *
 * The raw driver is a protocol client that can misbehave on purpose (reuse request ids with other
 * args, replay or steal resume and session tokens, skip the confirmation UI, send expired deadlines,
 * poll other callers' operations), because a provider must hold its rules against any caller.
 */

import type { FaultAt } from '../../sim/core/faults.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import type { Variant } from '../../subjects/subjects.ts';
import type { HostileBatch } from './malformed.ts';

/**
 * Actors a and b have their own UIDs; s1 and s2 share one UID (android:sharedUserId); a10 is a's
 * package installed for user 10 too (its own UID, same appId), calling user 0's providers (fixtures.ts).
 */
export const ACTORS = ['a', 'b', 's1', 's2', 'a10'] as const;
export type ActorName = (typeof ACTORS)[number];

/**
 * Which request_id an execute uses: a fresh one; one this actor used before; one another actor used
 * before (a leaked or copied id); or one of SHARED_REQUEST_IDS, which every actor sends to every
 * provider — apps whose ids come from a counter or a constant, the cause of real cross-tenant
 * idempotency leaks, collide whatever order they run in.
 */
export type RidRef =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'reuse'; readonly index: number }
  | { readonly kind: 'other'; readonly index: number }
  | { readonly kind: 'shared'; readonly index: number }
  /** The request id of this actor's last execution (a same-id re-send with other args or tool). */
  | { readonly kind: 'last' };

/** The request ids `shared` picks from (valid v4 UUIDs, easy to spot in a trace). */
export const SHARED_REQUEST_IDS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
] as const;

/**
 * How the driver answers a confirmation (USER_ACTION_REQUIRED). A scope grant (AUTH_REQUIRED) is
 * always resolved honestly unless the mode is 'none': the misbehaviour is aimed at confirmations.
 */
export type ResolveMode =
  | 'none' //        stop at the resolution error
  | 'honest' //      launch the PendingIntent, wait for the result, resume with the same id and token
  | 'skip-ui' //     resume with the token without launching the UI at all
  | 'altered-args' // launch, then resume with different args
  | 'other-rid' //   launch, then resume the token under a fresh request_id
  | 'foreign' //     hand the token to the other actor, who resumes it
  | 'late-before' // launch, then resume just before the token's lifetime ends (CROSS_MARGIN)
  | 'late-after'; //  launch, then resume just after it ended

export type Command =
  /** `versions`: the consumer_versions to offer (default [2, 1]); the versions property varies it. */
  | { readonly kind: 'negotiate'; readonly caps: readonly string[]; readonly versions?: readonly number[] }
  | {
      readonly kind: 'execute';
      readonly provider: string;
      readonly tool: string;
      readonly args: number;
      readonly rid: RidRef;
      readonly expiredDeadline: boolean;
      readonly confirmedFlag: boolean;
      readonly resolve: ResolveMode;
      /** Extra copies of the first send, racing it (a retry after a timeout while the original runs). */
      readonly duplicates: number;
    }
  /**
   * Re-send one of this actor's earlier executions exactly (same request_id, tool and args);
   * `resolve`: and if asked to authorize or confirm it (again), do so and resume it, as an app re-sending
   * a journaled request does.
   */
  | { readonly kind: 'retry'; readonly index: number; readonly afterMs: number; readonly resolve?: boolean }
  /** get_operation of this (or the other) actor's last operation; `wrongRid`: under a fresh request_id. */
  | { readonly kind: 'poll'; readonly other: boolean; readonly wrongRid?: boolean }
  /** cancel_operation of this (or the other) actor's last operation, after a delay (a cancellation race). */
  | { readonly kind: 'cancel'; readonly other: boolean; readonly afterMs: number }
  | { readonly kind: 'steal-session' }
  /** Resume the other actor's last resolution with its token (as a foreign caller). */
  | { readonly kind: 'resume-foreign' }
  /**
   * Waits until every fault of the scenario has been applied (at most 20 s of virtual time, in small
   * sleeps): the actor's next commands then use, after a lifecycle event (a re-sign, a restart, a
   * reboot), the sessions, tokens and request ids it got before it.
   */
  | { readonly kind: 'after-faults' }
  /**
   * Sends another actor's last execution as this actor, request_id, tool and args alike: one
   * request_id from two UIDs (a copied or constant id), which the provider must keep apart (6-02).
   */
  | { readonly kind: 'collide' }
  | { readonly kind: 'v1-list'; readonly provider: string }
  /** A v2 call with one flaw (spec §9: missing fields, unknown fields, invalid JSON, schema mismatch). */
  | { readonly kind: 'malformed'; readonly provider: string; readonly flaw: MalformedFlaw }
  /** Structural malformed calls derived from the wire schemas (malformed.ts), many in one batch. */
  | HostileBatch
  | { readonly kind: 'wait'; readonly ms: number }
  /**
   * Acts just before or just after one of the spec's durations ends (issue 22 item 7): waits until
   * the bound ∓ half of CROSS_MARGIN of the duration, then sends the call the duration governs —
   * `session`: the last execution again on the session it was negotiated on; `window`: the first
   * execution again, against the negotiated idempotency_window_seconds; `grant`: a fresh execution of
   * the tool a scope was granted for, against GRANT_TTL_MS; `poll-after`: a poll of the last
   * operation, against the poll_after_ms of its last answer; `retry-after`: a burst of
   * max_concurrent_requests + 1 executions, each answered RATE_LIMITED re-sent against its
   * retry_after_ms; `deadline`: the last execution again (a fresh one if none) with a deadline
   * that falls just after (or was just before) it arrives.
   */
  | { readonly kind: 'cross'; readonly clock: CrossClock; readonly side: 'before' | 'after' }
  /**
   * Resumes this actor's own last resolution (its held resume token, same request_id, tool and args),
   * whatever happened since: after a reboot, a restart or a reinstall of the provider, or after the
   * actor's own package was re-signed or reinstalled (a journal keeps it, as the reference consumer's).
   */
  | { readonly kind: 'resume-held' }
  /** Sends one call twice at once (same method, request_id and operation): a poll, cancel or listing. */
  | { readonly kind: 'duplicate-call'; readonly method: DuplicatedMethod };

/** The calls `duplicate-call` sends twice at once (executions are duplicated by `execute.duplicates`). */
export const DUPLICATED_METHODS = [
  'get_operation',
  'cancel_operation',
  'get_provider_info',
  'list_tools',
] as const;
export type DuplicatedMethod = (typeof DUPLICATED_METHODS)[number];

export const CROSS_CLOCKS = ['session', 'window', 'grant', 'poll-after', 'retry-after', 'deadline'] as const;
export type CrossClock = (typeof CROSS_CLOCKS)[number];

/** Cross commands land this fraction of the duration before or after its end (half of the 10% the
 *  frequencies count as "just", src/check/frequencies.ts). */
export const CROSS_MARGIN = 0.05;
/**
 * Durations no reply states, the reference SDK's: a resume token lives 10 minutes, a scope grant 30
 * days (src/providers/sdk). A provider with others is crossed elsewhere — the frequencies show it.
 */
export const RESUME_TOKEN_TTL_MS = 600_000;
export const GRANT_TTL_MS = 30 * 24 * 3_600_000;
/** How far from its deadline a `cross deadline` call arrives. */
export const DEADLINE_CROSS_MS = 1_500;

export const MALFORMED_FLAWS = [
  'unknown-keys',
  'no-request-id',
  'request-id-not-uuid',
  'protocol-version-long',
  'deadline-int',
  'args-not-json',
  'args-schema-mismatch',
  'no-session',
  'unknown-method',
] as const;
export type MalformedFlaw = (typeof MALFORMED_FLAWS)[number];

/** How the scheduler continues once the generated decisions run out. */
export type Tail = 'fifo' | 'random' | 'pct';

export interface Scenario {
  /** The world's root seed (PRNG streams: ids, tokens, the tail strategy). */
  readonly seed: number;
  readonly tail: Tail;
  readonly actors: Readonly<Partial<Record<ActorName, readonly Command[]>>>;
  readonly user: readonly UserDecision[];
  readonly faults: readonly FaultAt[];
  readonly decisions: readonly number[];
}

/** Planted bugs and ablated rules a run is made with: defined in src/subjects/subjects.ts (public API). */
export type { Variant };

export const REFERENCE: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };

/**
 * An `execute` command as hand-written scenarios (tests, regressions) write it: `provider.tool` with
 * the pool's first args, a fresh request id, honest resolution, no duplicates; `extra` changes any field.
 */
export function executeCommand(
  tool: `${string}.${string}`,
  extra: Partial<Extract<Command, { kind: 'execute' }>> = {},
): Command {
  const [provider, name] = tool.split('.') as [string, string];
  return {
    kind: 'execute',
    provider,
    tool: name,
    args: 0,
    rid: { kind: 'fresh' },
    expiredDeadline: false,
    confirmedFlag: false,
    resolve: 'honest',
    duplicates: 0,
    ...extra,
  };
}
