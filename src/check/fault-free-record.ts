/**
 * The record of a fault-free replay (made by src/fuzz/fault-free-replay.ts, compared by
 * src/check/fault-free.ts): plain data with no imports from the checkers, so that the observation
 * (src/check/observation.ts) can carry it without an import circle.
 */
import type { CommitWrite } from '../sim/ground-truth.ts';

/** One request the replay sent, and what the fresh world's storage received while it ran. */
export interface ReplayedRequest {
  /** `provider|uid|requestId` of the run's request (the replay sends the same request_id). */
  readonly key: string;
  readonly tool: string;
  /** The args the replay sent: the run's, with generated ids already paired up replaced. */
  readonly args: string;
  /** The business writes committed while it was replayed, in commit order, with their commit's seq. */
  readonly writes: readonly (CommitWrite & { readonly provider: string; readonly seq: number })[];
  /** Business effects declared (through the effect API) and kept while it was replayed. */
  readonly effects: number;
}

/** The fault-free replay of a run: its requests, or why there is none (the verdict is then a skip). */
export type FaultFreeRecord =
  | { readonly kind: 'replayed'; readonly requests: readonly ReplayedRequest[] }
  | { readonly kind: 'skipped'; readonly reason: string };
