/**
 * The reference consumer's planted bugs: small, realistic consumer mistakes the fuzzer switches on
 * by name (`plantedBugs`), each declared here with the mistake it stands for and how it is planted —
 * a function that replaces or wraps one named part of the consumer (parts.ts). The reference
 * consumer contains no bug branches; src/fuzz/mutants.ts names the rules each bug breaks and the
 * properties that must catch it.
 */

import { type PlantedBugOf, plantNamed, swapParts } from '../base/plant.ts';
import type { ConsumerParts } from './parts.ts';

export type ConsumerPlantedBug = PlantedBugOf<ConsumerParts>;

const swap = swapParts<ConsumerParts>;

export const CONSUMER_PLANTED_BUGS = {
  'consumer-retries-non-retryable': {
    description: 'retries every error up to the attempt limit, whatever `retryable` says (5-26, 5-28)',
    plant: (p) => swap(p, { refusesRetry: () => null }),
  },
  'consumer-new-request-id-on-retry': {
    description:
      'builds each retry with a fresh request_id instead of the logical execution id (4.1-04, 4.1-16, 6-08)',
    plant: (p) => swap(p, { renewsRequestId: () => true }),
  },
  'consumer-downgrades-to-v1': {
    description: 'falls back to v1 when a provider that declares v2 fails negotiation (8-03, 8-08, 8-09)',
    plant: (p) => swap(p, { fallsBackToV1: () => true }),
  },
  'consumer-skips-sha256': {
    description: 'accepts a file result without checking its digest (4.5-06)',
    plant: (p) => swap(p, { digestMatches: () => true }),
  },
  'consumer-ignores-retry-after': {
    description: 'retries on its own backoff, ignoring retry_after_ms (5-27)',
    plant: (p) => swap(p, { retryAfterMs: () => 0 }),
  },
  'consumer-leaks-fd-on-error': {
    description: 'closes result fds only on the success path (4.5-09)',
    plant: (p) => swap(p, { closesReplyFds: (failed) => !failed }),
  },
  'consumer-accepts-foreign-pi': {
    description:
      'launches any resolution PendingIntent without checking creator, explicitness or immutability',
    plant: (p) => swap(p, { verifyResolution: () => ({ ok: true }) }),
  },
  'consumer-uses-stable-call': {
    description:
      'calls through ContentResolver.call (a stable reference): a provider crash kills the consumer',
    plant: (p) => swap(p, { call: (routes) => routes.stable() }),
  },
  'consumer-calls-unnegotiated-method': {
    description:
      'sends cancel_operation / get_operation without the capability in the session (2.3-04, 4-05, 4-06)',
    plant: (p) => swap(p, { callsUnnegotiated: () => true }),
  },
  'consumer-trusts-unknown-error-retryable': {
    description: "trusts an unknown error code's `retryable` flag instead of treating it as not retryable",
    plant: (p) => swap(p, { unknownErrorRetryable: (claimed) => claimed }),
  },
  'consumer-forgets-request-id-on-restart': {
    description:
      'journals the execution but not its request_id: a restarted consumer resumes under a new id (6-08)',
    plant: (p) => swap(p, { journaledRequestId: () => null }),
  },
} as const satisfies Record<string, ConsumerPlantedBug>;

export type ConsumerBug = keyof typeof CONSUMER_PLANTED_BUGS;

export function isConsumerBug(name: string): name is ConsumerBug {
  return Object.hasOwn(CONSUMER_PLANTED_BUGS, name);
}

/** `parts` with each named bug planted, in catalogue order; an unknown name is a RangeError. */
export function plantConsumerBugs(parts: ConsumerParts, names: Iterable<string>): ConsumerParts {
  return plantNamed(CONSUMER_PLANTED_BUGS, parts, names, 'consumer planted bug');
}
