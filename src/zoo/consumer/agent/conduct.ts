/**
 * The decisions of a generated consumer that a consumer-level mistake (../mistakes.ts) changes: each
 * is one small function, and `CORRECT` is what the rules ask (the rule ids name why). The agent's
 * code calls these at the one place each decision is made, so a mistake is a transform of a
 * correct consumer — `{ ...CORRECT, retryDelay: … }` — not a branch in the agent.
 */
import type { AppContext, Bundle, PendingIntent } from '../../../index.ts';
import { protocol } from '../../../index.ts';
import { type Answer, answer, type Source, untrustedText } from './answers.ts';
import type { Catalogue } from './catalogue.ts';
import { closeAll } from './channel.ts';
import type { Entry } from './journal.ts';
import { type Policy, retryDelay, type WireFailure } from './policy.ts';

/** Android 14+: a 34-targeting sender must opt in to lend its foreground to the PendingIntent. */
const LEND_FOREGROUND = { pendingIntentBackgroundActivityStartAllowed: true } as const;

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

export const CORRECT: Conduct = {
  offeredVersions: () => [2, 1],
  pickVersion: (versions) => (versions.includes(2) ? 2 : versions.includes(1) ? 1 : null),
  afterFailedNegotiation: async (unavailable) => unavailable,
  catalogueWithoutListing: () => undefined,
  keptCatalogue: (kept, revision) => (typeof revision === 'string' ? kept.get(revision) : undefined),
  requestIdOf: (planId) => planId,
  argsOf: (args) => args,
  resumedRequestId: (entry) => entry.requestId,
  resendsUnreadable: () => false,
  retryDelay,
  queriesAfterDeadline: (queriedBefore) => !queriedBefore,
  rejected: (policy, source, e) =>
    answer(source, 'rejected', {
      code: e.code,
      ...(policy.answers.providerMessage
        ? { providerMessage: untrustedText(e.message, policy.answers.clipChars) }
        : {}),
    }),
  listedDescription: (description) => description,
  closeReply: closeAll,
  checksOutput: () => true,
  digestMatches: (bytes, sha256) => protocol.sha256Hex(bytes) === sha256,
  isProvidersOwn: (pi, provider) => {
    if (pi.getCreatorUid() !== provider.uid || !pi.isImmutable() || !pi.isTargetedToPackage()) return false;
    const targets = pi.queryIntentComponents();
    return targets.length > 0 && targets.every((c) => c.packageName === provider.packageName);
  },
  onResolution: async (launch) => ((await launch()) ? 'resume' : 'refused'),
  nextResumeToken: (_held, issued) => issued,
  startResolution: async (context, pi) => {
    await context.startIntentSenderForResult(pi, null, 0, LEND_FOREGROUND);
  },
  cancelTakenEnds: () => false,
  unreachableKind: (isWrite, unanswered) =>
    isWrite && unanswered ? 'outcome_unknown' : 'provider_unavailable',
  lostReplyGivesUp: () => false,
  resumesOnStart: () => true,
  journalsWrites: () => true,
  mayCancel: (capabilities) => capabilities.includes('cancellation'),
  pollPause: (policy, asked) => Math.min(policy.maxPollMs, Math.max(policy.minPollMs, asked)),
};

export { LEND_FOREGROUND };
