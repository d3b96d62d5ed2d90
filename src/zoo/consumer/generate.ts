/**
 * The consumer zoo's generator: fast-check arbitraries over the policies a real consumer varies
 * within the rules — retry budgets and back-off, call timeouts and deadlines, how long a provider
 * that failed to negotiate is left alone, how many catalogue revisions are kept and for how long,
 * the journal's layout (table, key, settled entries marked or deleted, resume order), whether the
 * same-id query after DEADLINE_EXCEEDED goes at once or after a back-off, polling bounds, budgets
 * for renegotiations and user actions, which optional capabilities it implements, and how the
 * agent-facing API answers (wording, whether a rejection carries the provider's message as
 * untrusted text, clip length, listing order). Consumer `i` of seed `s` depends on (s, i) only.
 *
 * Every value drawn is one a correct consumer may choose: the deadline and poll bounds stay within
 * what the scenarios' providers ask (poll_after_ms is honoured up to 30 s at least), budgets allow
 * a grant-then-confirm transfer (two resolutions), and v2 with v1 fallback is not a choice.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Policy } from './agent/policy.ts';

/** A generated consumer's description: its policy without the conduct (which is CORRECT or a mistake's). */
export type ConsumerSpec = Omit<Policy, 'conduct'>;

export const ALL_CAPABILITIES = ['async_operations', 'cancellation', 'large_results'] as const;

function specArb(index: number): fc.Arbitrary<ConsumerSpec> {
  return fc
    .record({
      capabilities: fc.subarray([...ALL_CAPABILITIES]),
      maxRetries: fc.integer({ min: 1, max: 6 }),
      baseBackoffMs: fc.constantFrom(100, 250, 500, 1_000),
      maxBackoffMs: fc.constantFrom(4_000, 8_000, 16_000),
      maxRetryAfterMs: fc.constantFrom(30_000, 60_000, 120_000),
      callTimeoutMs: fc.constantFrom(15_000, 30_000, 45_000),
      deadlineMs: fc.constantFrom(15_000, 30_000, 60_000),
      tryAgainAfterMs: fc.constantFrom(1_000, 5_000, 10_000),
      catalogueRevisions: fc.constantFrom(0, 1, 4),
      catalogueLifetimeMs: fc.constantFrom(null, 60_000, 600_000),
      journal: fc.record({
        table: fc.constantFrom('journal', 'outbox', 'pending_requests'),
        key: fc.constantFrom('request' as const, 'package-request' as const),
        settled: fc.constantFrom('mark' as const, 'delete' as const),
        resumeOrder: fc.constantFrom('oldest' as const, 'newest' as const),
      }),
      queryAfterDeadline: fc.constantFrom('at-once' as const, 'after-backoff' as const),
      minPollMs: fc.constantFrom(50, 100, 250),
      maxPollMs: fc.constantFrom(30_000, 60_000),
      maxPolls: fc.constantFrom(150, 300),
      maxRenegotiations: fc.integer({ min: 1, max: 3 }),
      maxUserActions: fc.integer({ min: 2, max: 4 }),
      answers: fc.record({
        wording: fc.constantFrom('plain' as const, 'terse' as const),
        providerMessage: fc.boolean(),
        clipChars: fc.constantFrom(200, 300, 1_000),
        listing: fc.constantFrom('provider-then-name' as const, 'name-then-provider' as const),
      }),
      v1Catalogue: fc.constantFrom('once' as const, 'every-listing' as const),
    })
    .map((r) => ({
      ...r,
      index,
      packageName: `com.example.zooagent${index}`,
      journal: { ...r.journal, table: `zooagent.${r.journal.table}` },
    }));
}

/** The fast-check seed of consumer `index` in the zoo seeded `seed` (no consumer depends on another). */
export function consumerSeed(seed: number, index: number): number {
  return createHash('sha256').update(`zoo/consumer/${seed}/${index}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** Consumer `index` of the zoo seeded `seed`: the same description for the same (seed, index). */
export function generateConsumer(seed: number, index: number): ConsumerSpec {
  const [spec] = fc.sample(specArb(index), { seed: consumerSeed(seed, index), numRuns: 1 });
  if (spec === undefined) throw new Error('fast-check gave no sample');
  return spec;
}

export function generateConsumers(seed: number, count: number): ConsumerSpec[] {
  return Array.from({ length: count }, (_, i) => generateConsumer(seed, i));
}
