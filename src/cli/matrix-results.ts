/**
 * The results of `cetp-sim matrix` (commands/matrix.ts) and `cetp-sim propose` (commands/propose.ts)
 * as data: the commands make them, the document (matrix-doc.ts) and the wordings record
 * (wordings-record.ts) read them. Kept apart so that the readers need not import the commands.
 */
import type { PropertyStatus } from '../fuzz/fuzz.ts';
import type { Pairing } from '../fuzz/matrix.ts';
import type { BreakOutcome, Wording } from '../fuzz/propose.ts';
import type { ReadingRun } from '../protocol/readings.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import type { VectorDependency } from '../vectors/readings.ts';

/** One property's verdict on one pairing. */
export interface PropertyVerdict {
  readonly property: string;
  readonly status: PropertyStatus;
  readonly runs: number;
  /** For a failure: the first violation, and the files of the shrunk run (paths as given by --out). */
  readonly checker?: string;
  readonly ruleIds?: readonly string[];
  readonly message?: string;
  readonly replay?: string;
  readonly diagram?: string;
  /** The shrunk run's Mermaid diagram (for the document; never printed with --json). */
  readonly mermaid?: string;
}

export interface PairingResult {
  readonly pairing: Pairing;
  /**
   * `not-reached`: no property failed, but no sampled scenario ran any differently from the
   * reference readings — the readings' deciding moment never came, so nothing was judged.
   */
  readonly verdict: 'interoperates' | 'breaks' | 'vacuous' | 'not-reached';
  readonly properties: readonly PropertyVerdict[];
  /**
   * Per property, how many of DIVERGENCE_SAMPLES sampled scenarios ran differently (another trace)
   * than with the reference readings: 0 means the readings were never reached.
   */
  readonly divergent: Readonly<Record<string, number>>;
}

/** The shared vectors run against every reading (absent with --no-vectors). */
export interface MatrixVectors {
  /** The reading combinations run (each side of each note, the reference excepted). */
  readonly readings: readonly ReadingRun[];
  /** Vectors run per reading: provider vectors for a provider reading, consumer vectors for a consumer one. */
  readonly providerVectors: number;
  readonly consumerVectors: number;
  /** The vectors whose verdict changes under a reading. */
  readonly dependencies: readonly VectorDependency[];
}

export interface MatrixResult {
  readonly seed: number;
  readonly runs: number;
  readonly notes: readonly number[];
  readonly pairings: readonly PairingResult[];
  readonly vectors?: MatrixVectors;
  /** The Android release profile it ran (`--android`); absent: the default (src/sim/core/release.ts). */
  readonly android?: AndroidRelease;
}

export interface BreakReport {
  readonly pairing: string;
  readonly describe: string;
  readonly outcome: BreakOutcome;
  readonly broken: readonly {
    readonly property: string;
    readonly checker: string;
    readonly ruleIds: readonly string[];
    readonly message: string;
    readonly replay?: string;
  }[];
}

export interface WordingReport {
  readonly id: string;
  readonly file: string;
  readonly source: string;
  readonly text: string;
  readonly notes: readonly number[];
  readonly allow: Wording['allow'];
  /** The pairings the wording leaves, with their verdicts (`reached`: for pairings only it has). */
  readonly pairings: readonly { readonly id: string; readonly verdict: string; readonly reached?: number }[];
  readonly breaks: readonly BreakReport[];
  readonly closes: number;
  readonly stillOpen: number;
  readonly opens: number;
  /** Pairings only the wording has that no sampled run reached: nothing was judged of them. */
  readonly notReached: readonly string[];
  readonly verified: boolean;
}

export interface ProposeResult {
  readonly seed: number;
  readonly runs: number;
  /** The Android release profile it ran (`--android`); absent: the default. */
  readonly android?: AndroidRelease;
  readonly wordings: readonly WordingReport[];
}
