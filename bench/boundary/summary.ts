/**
 * Summaries of the concurrency runs (pure): one cell per (concurrent calls, result size, scheduling
 * strategy) over its seeds — how many runs saw a transaction fail, how many transactions failed, and
 * what the consumer's calls ended as — with the first failing seed, the replay a reader can run.
 */
import type { ToolOutcome } from '../../src/consumer/outcomes.ts';
import type { StrategyName } from './concurrency.ts';

/** What one run contributes to its cell (a ConcurrentRun without its world). */
export interface RunTally {
  readonly seed: number;
  readonly transactions: number;
  readonly failedReplies: number;
  readonly failedRequests: number;
  readonly outcomes: readonly Pick<ToolOutcome, 'kind'>[];
  readonly elapsedMs: number;
  /** Business effects committed (a write tool's; 0 for reads). */
  readonly effects: number;
}

export interface ConcurrencyCell {
  readonly concurrency: number;
  readonly sizeBytes: number;
  readonly strategy: StrategyName;
  readonly runs: number;
  /** Runs in which at least one transaction failed. */
  readonly runsWithFailure: number;
  /** runsWithFailure / runs. */
  readonly failingRunShare: number;
  /** execute_tool transactions sent, re-sends included. */
  readonly transactions: number;
  readonly failedTransactions: number;
  /** failedTransactions / transactions. */
  readonly failedTransactionShare: number;
  /** What the consumer's calls ended as, by outcome kind (every call of every run). */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Calls that did not end `ok` / all calls. */
  readonly failedCallShare: number;
  /** Mean virtual ms from the first send to the last outcome (backoff included). */
  readonly meanElapsedMs: number;
  /** The lowest seed whose run had a failed transaction (replay it with replayConcurrentRun). */
  readonly firstFailingSeed: number | null;
  /** Business effects committed over all runs: for a write tool, one per call whatever failed (CETP-6-01). */
  readonly effects: number;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);

export function summariseCell(
  key: { readonly concurrency: number; readonly sizeBytes: number; readonly strategy: StrategyName },
  runs: readonly RunTally[],
): ConcurrencyCell {
  if (runs.length === 0) throw new RangeError('a cell needs at least one run');
  const failing = runs.filter((r) => r.failedReplies + r.failedRequests > 0);
  const outcomes: Record<string, number> = {};
  let calls = 0;
  for (const r of runs) {
    for (const o of r.outcomes) {
      outcomes[o.kind] = (outcomes[o.kind] ?? 0) + 1;
      calls++;
    }
  }
  const transactions = runs.reduce((a, r) => a + r.transactions, 0);
  const failedTransactions = runs.reduce((a, r) => a + r.failedReplies + r.failedRequests, 0);
  return {
    ...key,
    runs: runs.length,
    runsWithFailure: failing.length,
    failingRunShare: share(failing.length, runs.length),
    transactions,
    failedTransactions,
    failedTransactionShare: share(failedTransactions, transactions),
    outcomes,
    failedCallShare: share(calls - (outcomes.ok ?? 0), calls),
    meanElapsedMs: Math.round(runs.reduce((a, r) => a + r.elapsedMs, 0) / runs.length),
    firstFailingSeed: failing.length === 0 ? null : Math.min(...failing.map((r) => r.seed)),
    effects: runs.reduce((a, r) => a + r.effects, 0),
  };
}
