/**
 * The consumer zoo's catalogue of consumer-level mistakes: each a transform of a correct generated
 * consumer's conduct (agent/conduct.ts) — the bugs a careful person still makes writing a consumer
 * from scratch (docs/consumer-mistakes.md lists the scratch agent's; most are here as transforms,
 * and a few are new). Each names the rules it breaks, the oracle expected to catch it (or why none
 * can), the properties tried first, the share of its pairs the npm-test slice must catch, and the
 * generated consumers it changes (a mistake that changes nothing in a consumer does not apply).
 */
import { protocol } from '../../index.ts';
import type { Conduct } from './agent/conduct.ts';
import type { ConsumerSpec } from './generate.ts';

export interface ConsumerMistake {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  /** The oracle that catches it, or what would be needed to (for the misses). */
  readonly needs: string;
  /** The share of (consumer, mistake) pairs the test slice must catch: 1 when an oracle catches it today, 0 when none can yet. */
  readonly floor: number;
  /** Properties tried first (the rest of the consumer-driven ones follow). */
  readonly killers: readonly string[];
  readonly applies: (spec: ConsumerSpec) => boolean;
  readonly change: (conduct: Conduct) => Conduct;
}

const always = () => true;
const keepsCatalogues = (s: ConsumerSpec) => s.catalogueRevisions > 0;
const C = 'consumer';
const V = 'consumer-versions';
const H = 'hostile';
const first = <T>(m: ReadonlyMap<string, T>) => m.values().next().value;

export const CONSUMER_MISTAKES: readonly ConsumerMistake[] = [
  {
    id: 'catalogue-across-sessions',
    title: 'a kept catalogue is used in a new session without reading list_tools in it',
    rules: ['CETP-3.3-05'],
    needs: 'consumer-rereads-catalogue',
    floor: 0.5,
    killers: [H, C],
    applies: keepsCatalogues,
    change: (c) => ({ ...c, catalogueWithoutListing: first }),
  },
  {
    id: 'catalogue-ignores-revision',
    title: 'list_tools is read, but the first kept catalogue is used whatever revision it names',
    rules: ['CETP-3.3-04', 'CETP-3.3-05'],
    needs:
      'consumer-uses-current-catalogue, once the consumer property updates the alerts app to a new catalogue mid-run (ConsumerScenario.catalogueUpdate)',
    floor: 1,
    killers: [C],
    applies: keepsCatalogues,
    change: (c) => ({ ...c, keptCatalogue: first }),
  },
  {
    id: 'negotiate-v2-only',
    title: 'negotiate offers consumer_versions [2]: v1, which a v2 consumer must keep, is dropped',
    rules: ['CETP-0-02', 'CETP-2.2-02'],
    needs: 'consumer-offers-v1',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, offeredVersions: () => [2] }),
  },
  {
    id: 'prefers-v1',
    title: 'a dual-stack provider (versions 1,2) is spoken to in v1',
    rules: ['CETP-8-07', 'CETP-8-01'],
    needs: 'consumer-no-downgrade',
    floor: 1,
    killers: [V, C],
    applies: always,
    change: (c) => ({ ...c, pickVersion: (v) => (v.includes(1) ? 1 : v.includes(2) ? 2 : null) }),
  },
  {
    id: 'v2-only-discovery',
    title: 'discovery keeps only providers declaring v2: a v1-only provider is never used',
    rules: ['CETP-8-07', 'CETP-0-02'],
    needs: 'consumer-uses-v1-provider (new: an execution asked of a v1-only provider reaches it)',
    floor: 1,
    killers: [V],
    applies: always,
    change: (c) => ({ ...c, pickVersion: (v) => (v.includes(2) ? 2 : null) }),
  },
  {
    id: 'downgrades-after-failed-negotiation',
    title: 'a provider whose negotiation failed is used through v1',
    rules: ['CETP-8-03', 'CETP-8-08', 'CETP-8-09'],
    needs: 'consumer-no-downgrade',
    floor: 1,
    killers: [V, H],
    applies: always,
    change: (c) => ({ ...c, afterFailedNegotiation: (_unavailable, legacy) => legacy() }),
  },
  {
    id: 'new-request-id-after-restart',
    title: 'a journaled write is resumed after a restart under a fresh request_id',
    rules: ['CETP-4.1-04', 'CETP-4.1-16', 'CETP-6-08'],
    needs: 'consumer-request-id-on-wire / consumer-resumes-after-restart',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, resumedRequestId: (_entry, context) => context.seededUuid() }),
  },
  {
    id: 'new-request-id-on-retry',
    title: 'a re-send after a lost reply or a retryable error goes out under a fresh request_id',
    rules: ['CETP-4.1-04', 'CETP-4.1-15', 'CETP-4.1-16', 'CETP-6-08'],
    needs: 'consumer-request-id-on-wire',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({
      ...c,
      requestIdOf: (id, reason, context) => (reason === 'first' ? id : context.seededUuid()),
    }),
  },
  {
    id: 'args-changed-on-resend',
    title: 'a re-send carries the args re-serialised (the same JSON, other bytes)',
    rules: ['CETP-4.1-16', 'CETP-6-08'],
    needs:
      'agent-not-refused-as-misuse (the provider refuses the same request_id with other args bytes, and the agent is told so)',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({ ...c, argsOf: (args, reason) => (reason === 'first' ? args : ` ${args}`) }),
  },
  {
    id: 'retries-non-retryable',
    title: 'any error the table does not forbid outright is re-sent, whatever `retryable` says',
    rules: ['CETP-5-26'],
    needs: 'consumer-retry-discipline',
    floor: 1,
    killers: [H, C],
    applies: always,
    change: (c) => ({
      ...c,
      retryDelay: (policy, e, retries) =>
        protocol.isKnownErrorCode(e.code) &&
        protocol.retryPolicyOf(e.code) !== 'no' &&
        retries < policy.maxRetries
          ? policy.baseBackoffMs
          : null,
    }),
  },
  {
    id: 'retries-unknown-code',
    title: 'an error code the table does not know is re-sent when marked retryable',
    rules: ['CETP-5-26'],
    needs: 'consumer-retry-discipline (the hostile case unknown-error-code-retryable)',
    floor: 1,
    killers: [H],
    applies: always,
    change: (c) => ({
      ...c,
      resendsUnreadable: (b) => b.getString('status') === 'error' && b.getBoolean('retryable') === true,
    }),
  },
  {
    id: 'ignores-retry-after',
    title: 'a retry waits its own back-off, not the provider’s retry_after_ms',
    rules: ['CETP-5-27'],
    needs:
      'consumer-retry-discipline, on the hostile case rate-limited-first-answer (RATE_LIMITED, retry_after_ms=1000) or two agent threads meeting the one-at-a-time alerts provider',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({
      ...c,
      retryDelay: (policy, e, retries) =>
        c.retryDelay(policy, e, retries) === null ? null : Math.min(policy.baseBackoffMs, 100),
    }),
  },
  {
    id: 'no-query-after-deadline',
    title: 'DEADLINE_EXCEEDED ends the execution without a same-id query',
    rules: ['CETP-5-19'],
    needs: 'consumer-queries-after-deadline',
    floor: 1,
    killers: [H, C],
    applies: always,
    change: (c) => ({ ...c, queriesAfterDeadline: () => false }),
  },
  {
    id: 'provider-text-as-explanation',
    title: 'the provider’s error message becomes the explanation the agent reads (as if ours)',
    rules: ['CETP-4.2-05', 'CETP-7.3-03', 'CETP-1-01'],
    needs: 'agent-gets-data',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({
      ...c,
      rejected: (policy, source, e) => ({ ...c.rejected(policy, source, e), explanation: e.message }),
    }),
  },
  {
    id: 'tool-description-as-plain-text',
    title: 'tool descriptions reach the agent’s listing as plain strings',
    rules: ['CETP-4.2-04', 'CETP-4.2-05', 'CETP-7.3-03'],
    needs: 'agent-gets-data',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({ ...c, listedDescription: (d) => d.text }),
  },
  {
    id: 'reply-fd-not-closed',
    title: 'a handled reply’s file descriptors are not closed',
    rules: ['CETP-4.5-09'],
    needs: 'no-fd-leaks',
    floor: 1,
    killers: [H, C],
    applies: always,
    change: (c) => ({ ...c, closeReply: () => {} }),
  },
  {
    id: 'skips-output-schema',
    title: 'an inline result reaches the agent without being checked against the output_schema',
    rules: ['CETP-7.3-02', 'CETP-4.2-04'],
    needs:
      'agent-result-schema, once the hostile case inline-result-off-schema (weight 4 of the hostile cases) meets an execution',
    floor: 1,
    killers: [H],
    applies: always,
    change: (c) => ({ ...c, checksOutput: () => false }),
  },
  {
    id: 'skips-sha256',
    title: 'a file result is accepted without checking its SHA-256',
    rules: ['CETP-4.5-06'],
    needs:
      'consumer-verifies-file, when the hostile case file-sha256-wrong meets an execution: hostile cases are met round-robin by run index, each first with an execution',
    floor: 1,
    killers: [H],
    applies: (s) => s.capabilities.includes('large_results'),
    change: (c) => ({ ...c, digestMatches: () => true }),
  },
  {
    id: 'launches-unverified-resolution',
    title: 'a resolution PendingIntent is launched without checking it is the provider’s own',
    rules: ['CETP-4.3-02', 'CETP-7.2-04', 'CETP-7.2-05'],
    needs: 'consumer-verifies-resolution',
    floor: 0.5,
    killers: [H],
    applies: always,
    change: (c) => ({ ...c, isProvidersOwn: () => true }),
  },
  {
    id: 'loops-on-auth-required',
    title: 'AUTH_REQUIRED / USER_ACTION_REQUIRED is answered by re-sending, no screen shown',
    rules: ['CETP-5-28', 'CETP-5-26'],
    needs: 'consumer-retry-discipline / consumer-no-loop-without-user',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, onResolution: async () => 'retry' }),
  },
  {
    id: 'resumes-with-stale-token',
    title: 'a second resolution is resumed with the first, already used resume_token',
    rules: ['CETP-4.3-07', 'CETP-4.3-13'],
    needs: 'consumer-resumes-latest-token',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, nextResumeToken: (held, issued) => held ?? issued }),
  },
  {
    id: 'resumes-without-launching',
    title: 'after AUTH_REQUIRED / USER_ACTION_REQUIRED the call is resumed without showing the resolution',
    rules: ['CETP-5-28', 'CETP-4.3-12', 'CETP-4.3-07'],
    needs: 'consumer-no-loop-without-user',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, onResolution: async () => 'resume' }),
  },
  {
    id: 'resumes-before-activity-result',
    title: 'the resume_token goes back without waiting for the resolution’s Activity result',
    rules: ['CETP-4.3-12'],
    needs: 'consumer-waits-for-result',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({
      ...c,
      startResolution: async (context, pi) => {
        void context
          .startIntentSenderForResult(pi, null, 0, { pendingIntentBackgroundActivityStartAllowed: true })
          .catch(() => {});
      },
    }),
  },
  {
    id: 'cancelled-on-request',
    title: 'a taken cancellation request is told to the agent as "cancelled"',
    rules: ['CETP-4.4-11', 'CETP-4.4-19'],
    needs: 'agent-cancelled-only-when-cancelled',
    floor: 0.5,
    killers: [C, H],
    applies: (s) => s.capabilities.includes('cancellation') && s.capabilities.includes('async_operations'),
    change: (c) => ({ ...c, cancelTakenEnds: (b) => b.getString('status') === 'success' }),
  },
  {
    id: 'cancels-without-capability',
    title: 'cancel_operation is sent in a session that did not negotiate cancellation',
    rules: ['CETP-2.3-04', 'CETP-4-06'],
    needs: 'consumer-negotiated-only',
    floor: 0.5,
    killers: [C, H],
    applies: (s) => !s.capabilities.includes('cancellation') && s.capabilities.includes('async_operations'),
    change: (c) => ({ ...c, mayCancel: () => true }),
  },
  {
    id: 'unavailable-for-unknown-outcome',
    title: 'a write that may have landed is told to the agent as "provider unavailable", not unknown',
    rules: ['CETP-4.1-15', 'CETP-6-05', 'CETP-6-08'],
    needs:
      'agent-unknown-not-unavailable, when the consumer property loses the reply of a committing execute_tool (lostExecuteReply) and keeps the provider unreachable until the consumer gives up (unreachableAfterLostReply)',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({ ...c, unreachableKind: () => 'provider_unavailable' }),
  },
  {
    id: 'lost-reply-as-unavailable',
    title: 'a lost reply (death, null, timeout) ends the execution at once as "provider unavailable"',
    rules: ['CETP-4.1-15', 'CETP-6-05', 'CETP-6-08'],
    needs:
      'agent-unknown-not-unavailable, when the consumer property loses the reply of a committing execute_tool (ConsumerScenario.lostExecuteReply)',
    floor: 1,
    killers: [C, H],
    applies: always,
    change: (c) => ({ ...c, lostReplyGivesUp: () => true }),
  },
  {
    id: 'no-resume-on-start',
    title: 'a restarted process never resumes its journal',
    rules: ['CETP-6-08', 'CETP-4.1-15'],
    needs: 'consumer-resumes-after-restart',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, resumesOnStart: () => false }),
  },
  {
    id: 'write-not-journaled',
    title: 'a write is sent without a journal entry: after a restart nothing resumes it',
    rules: ['CETP-4.1-04', 'CETP-6-08', 'CETP-4.1-15'],
    needs: 'consumer-resumes-after-restart',
    floor: 1,
    killers: [C],
    applies: always,
    change: (c) => ({ ...c, journalsWrites: () => false }),
  },
];

export function consumerMistakeById(id: string): ConsumerMistake | undefined {
  return CONSUMER_MISTAKES.find((m) => m.id === id);
}
