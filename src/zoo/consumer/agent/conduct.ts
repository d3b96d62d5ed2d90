/**
 * The decisions of a generated consumer that a consumer-level mistake (../mistakes.ts) changes: each
 * is one small function, and `CORRECT` is what the rules ask (the rule ids name why). The agent's
 * code calls these at the one place each decision is made, so a mistake is a transform of a
 * correct consumer — `{ ...CORRECT, retryDelay: … }` — not a branch in the agent.
 */
import { protocol } from '../../../index.ts';
import { answer, untrustedText } from './answers.ts';
import { closeAll } from './channel.ts';
import { type Conduct, retryDelay } from './policy.ts';

export type { Conduct } from './policy.ts';

/** Android 14+: a 34-targeting sender must opt in to lend its foreground to the PendingIntent. */
const LEND_FOREGROUND = { pendingIntentBackgroundActivityStartAllowed: true } as const;

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
