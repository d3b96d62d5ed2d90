/**
 * Runs to first failure of a planted bug, without shrinking: the measure of a generator's bug-finding
 * power that `properties/depth.test.ts` bounds (issue 22: a generator change that dilutes the moves a
 * bug needs shows up as more runs). The same scenarios, in the same order, as `cetp-sim mutants`
 * (huntMutant: the killer properties in order, each property's seed derived from the campaign seed,
 * the portfolio tails), so the count is the one `mutants` reports; it stops at the first failing run
 * instead of shrinking it. Deterministic for a seed: a count, not a time.
 */
import fc from 'fast-check';
import { propertySeed } from './fuzz.ts';
import type { Mutant } from './mutants.ts';
import { scenarioArb } from './scenario/arbitraries.ts';
import type { Tail } from './scenario/model.ts';
import { runScenario } from './scenario/runner.ts';
import { type PropertyDef, propertyById } from './suites.ts';

export interface Depth {
  /** Runs up to and including the first failing one (null: none failed within the budget). */
  readonly runs: number | null;
  /** The property and checker of the first failure. */
  readonly killedBy: string | null;
}

/** The portfolio strategy's tails (`cetp-sim mutants`' default). */
export const PORTFOLIO: readonly Tail[] = ['fifo', 'random', 'pct'];

/**
 * Runs `mutant`'s killer properties in order from campaign seed `seed` until one fails, at most
 * `budget` runs in all (a killer gets what the ones before it left). Raw-driver killers only (every
 * planted provider bug's); a consumer-driven killer is skipped.
 */
export async function depthOf(
  mutant: Mutant,
  seed: number,
  budget: number,
  tails: readonly Tail[] = PORTFOLIO,
  /** The property of an id (a test substitutes a weakened one). */
  lookup: (id: string) => PropertyDef | undefined = propertyById,
): Promise<Depth> {
  let used = 0;
  for (const id of mutant.killers) {
    const def = lookup(id);
    if (def?.kind !== 'raw' || used >= budget) continue;
    let checker: string | null = null;
    const property = fc.asyncProperty(scenarioArb(def.shape, tails, true), async (scenario) => {
      const run = await runScenario(def.fixture, scenario, mutant.variant);
      checker = run.violations[0]?.checker ?? null;
      return run.violations.length === 0;
    });
    const details = await fc.check(property, {
      seed: propertySeed(seed, def.id),
      numRuns: budget - used,
      endOnFailure: true,
    });
    used += details.numRuns;
    if (details.failed) return { runs: used, killedBy: `${def.id}/${checker ?? '?'}` };
  }
  return { runs: null, killedBy: null };
}

/**
 * Runs to first failure at seed 0 (all killers together) that each planted provider bug (each of
 * PROVIDER_MUTANTS) must stay within
 * (properties/depth.test.ts: how they were derived).
 */
export const DEPTH_BOUNDS: Readonly<Record<string, number>> = {
  'dedup-check-then-insert': 60, //       p 0.09–0.11 (idempotency, single-effect)
  'dedup-key-without-uid': 130, //        p 0.04–0.06 (idempotency, no-cross-uid-results)
  'dedup-ignores-args': 70, //            p 0.07–0.10 (idempotency, args-binding)
  'dedup-record-expires-early': 30, //    p 0.23
  'uid-after-await': 20, //               p 0.54
  'resume-token-reusable': 280, //        p 0.017–0.02 (confirmation, approval-binding)
  'effect-before-approval': 280, //       p 0.017–0.033
  'trust-confirmed-flag': 90, //          p 0.06–0.07
  'deadline-after-effect': 30, //         p 0.19
  'confirmation-pi-collides': 20, //      p 0.60
  'cancel-after-commit': 240, //          p 0.02–0.03 (operations, cancelled-has-no-effect)
  'operations-in-memory': 50, //          p 0.11
  'operation-not-bound-to-uid': 40, //    p 0.14 (identity)
  'session-not-bound-to-uid': 50, //      p 0.09
  'session-keyed-by-app': 70, //          p 0.07 (identity: a10, a's package in user 10, 22 of 300)
  'v1-lists-write-tools': 20, //          p 0.39
  'provider-fd-leak': 20, //              p 0.26
  'internal-error-leaks-stack': 20, //    p 0.24
};
