/**
 * What the CLI and its worker threads say to each other. User code (a `--provider` or `--consumer`
 * module) runs only in a worker, so the CLI keeps control whatever that code does: a run that blocks
 * its thread or never finishes is stopped by the watchdog (pool.ts), and its verdict is still written.
 *
 * Everything here crosses a thread boundary by structured clone: plain data, no functions, no worlds.
 */

import type { JsonValue } from '../../base/json.ts';
import type { CheckContext, Violation } from '../../check/checker.ts';
import type { Exercised } from '../../check/exercised.ts';
import type { FaultFreeRecord } from '../../check/fault-free.ts';
import type { Frequencies } from '../../check/frequencies.ts';
import type { RunRecord } from '../../check/record.ts';
import type { CrashSide, FlowKind, FlowReport } from '../../fuzz/crashpoints.ts';
import type { InconclusiveVerdict, PropertyStatus, RecordPhase, ReplayFile } from '../../fuzz/fuzz.ts';
import type { AblationResult, MutantResult } from '../../fuzz/hunt.ts';
import type { Tail, Variant } from '../../fuzz/scenario/model.ts';
import type { ReplayModules } from '../../harness/code-identity.ts';
import type { CliErrorCode } from '../../harness/error-codes.ts';
import type { Thrown } from '../../harness/escapes.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import type { TraceEvent } from '../../sim/core/trace.ts';
import type { Ability, Profile } from '../../vectors/format.ts';
import type { RunInput, VectorOutcome } from '../../vectors/run.ts';
import type { JobStat, ThreadClock } from './telemetry.ts';

/** The user modules of a job, as given on the command line, and the directory they resolve from. */
export interface ModuleSpecs {
  readonly modules: ReplayModules;
  readonly cwd: string;
}

export interface FuzzJob extends ModuleSpecs {
  readonly kind: 'fuzz';
  readonly property: string;
  readonly seed: number;
  readonly runs: number;
  /** A wall-clock budget for the campaign (fixed), or its share of a --time campaign's (below). */
  readonly timeLimitMs?: number;
  /** Its share of a --time campaign's budget, taken when the job starts (jobs.ts timeShareMs). */
  readonly timeShare?: TimeShare;
  readonly tails: readonly Tail[];
  readonly variant: Variant;
  /** false: the first failing run is the answer, unshrunk (fuzz --no-shrink). */
  readonly shrink?: false;
  /** Watch this run (by its number): hand over its scenario and stream its trace. */
  readonly watch?: number;
}

/**
 * A --time campaign's budget, shared by its properties: the job at `index` (jobs start in index
 * order) of `count`, on one of `threads` threads, all ending by `deadlineMs` (epoch ms).
 */
export interface TimeShare {
  readonly deadlineMs: number;
  readonly threads: number;
  readonly index: number;
  readonly count: number;
}

export interface ReplayJob extends ModuleSpecs {
  readonly kind: 'replay';
  /** The replay file's path (for messages). */
  readonly path: string;
  readonly property: string;
  readonly replay: ReplayFile;
  /** Stream the trace as the run goes (a replay that may hang). */
  readonly stream: boolean;
}

/** Loads and checks the modules; answers what they are (names for the header). */
export interface LoadJob extends ModuleSpecs {
  readonly kind: 'load';
  /** The run's variant (--mutant): its planted provider bugs must reach a --provider module's providers. */
  readonly variant?: Variant;
}

/** Hunts one planted bug with its killer properties (`cetp-sim mutants`). */
export interface MutantJob {
  readonly kind: 'mutant';
  readonly mutant: string;
  readonly seed: number;
  readonly runsPerProperty: number;
  readonly tails: readonly Tail[];
  /** `--android`: the release profile of the worlds (absent: the default). */
  readonly android?: AndroidRelease;
}

/**
 * Runs every property with one rule's enforcement switched off (`cetp-sim ablate`), or only
 * `property`: the CLI spreads each rule's properties as jobs of their own, so that no thread is left
 * with a whole rule while the others idle (each property's runs depend only on the seed).
 */
export interface AblateJob {
  readonly kind: 'ablate';
  readonly rule: string;
  readonly property?: string;
  readonly seed: number;
  readonly runsPerProperty: number;
  readonly tails: readonly Tail[];
  /** `--android`: the release profile of the worlds (absent: the default). */
  readonly android?: AndroidRelease;
}

/** Runs the selected vectors of one vector file (`cetp-sim vectors run`). */
export interface VectorFileJob extends ModuleSpecs {
  readonly kind: 'vectors';
  readonly file: RunInput;
  /** The corpus folder (its blobs). */
  readonly dir: string;
  /** The corpus fixture the `--provider` module's single provider stands for (`--fixture`). */
  readonly fixture?: string;
  readonly profiles: readonly Profile[];
  readonly lacks?: readonly Ability[];
  readonly ids?: readonly string[];
  /** Expected failures, vector id → reason. */
  readonly baseline?: readonly (readonly [string, string])[];
  /** The readings the fixtures (and the reference consumer) are made with (`cetp-sim matrix`). */
  readonly variant?: Variant;
}

/** Every crash point of one flow, provider and consumer side (`cetp-sim crashpoints`). */
export interface CrashpointsJob extends ModuleSpecs {
  readonly kind: 'crashpoints';
  readonly flow: FlowKind;
  readonly variant: Variant;
}

export type Job = FuzzJob | ReplayJob | LoadJob | MutantJob | AblateJob | VectorFileJob | CrashpointsJob;

/**
 * Jobs of cetp-sim's own code shared by the CLI's thread and its workers (pool.ts `runShared`): each
 * takes the next index from `counter` ([0], Atomics.add) until none is left, and answers each job
 * with its index. Nobody waits for the CLI's thread to hand out work, so it can run jobs too.
 */
export interface SharedJobs {
  readonly kind: 'shared';
  readonly jobs: readonly Job[];
  readonly counter: SharedArrayBuffer;
}

/** A failing run, as plain data: its replay file (without modules), violations and trace. */
export interface FailureData {
  readonly replay: ReplayFile;
  readonly violations: readonly Violation[];
  readonly events: readonly TraceEvent[];
  readonly steps: number;
  /** What the user's code threw in that run (src/harness/escapes.ts), with the module's frame. */
  readonly thrown?: readonly Thrown[];
}

export interface PropertyOutcome {
  readonly id: string;
  readonly runs: number;
  readonly status: PropertyStatus;
  readonly exercised: Exercised;
  /** How often each attack and clock crossing happened (absent when the job hung). */
  readonly frequencies?: Frequencies;
  /** One line on why it did not pass (vacuous, or a failure without a replayable run). */
  readonly reason?: string;
  /** Campaign verdicts too few runs could give (src/fuzz/fuzz.ts); absent when none. */
  readonly inconclusive?: readonly InconclusiveVerdict[];
  readonly failure?: FailureData;
  /**
   * A passed campaign below a property's floor: per floor missed, the witness run's replay
   * (src/fuzz/floor-witness.ts) and, once the CLI wrote it, its file.
   */
  readonly floorWitnesses?: readonly {
    readonly label: string;
    readonly replay: ReplayFile;
    readonly file?: string;
  }[];
  /** A failure without a replayable run (no `failure`): its verdict all the same. */
  readonly violations?: readonly Violation[];
  /** With user modules: what the scenarios depend on, for the judge to draw them again (judge-scenarios.ts). */
  readonly catalogue?: Catalogue;
}

/** What the scenarios of a campaign against a module depend on, as plain data (judge-scenarios.ts). */
export interface Catalogue {
  readonly providers?: readonly {
    readonly name: string;
    readonly packageName: string;
    readonly tools: readonly string[];
    /** Each tool's argument pool (the scenarios draw entries and aim at `$OWN:`/`$OTHER:` ones). */
    readonly pools?: Readonly<Record<string, readonly JsonValue[]>>;
    /** Each tool's effect (the aimed `make` move sends the `create` tools). */
    readonly effects?: Readonly<Record<string, string>>;
    /** The app's other processes (`android:process`: kill faults aimed at the app kill them too). */
    readonly processes?: readonly string[];
  }[];
  readonly propertyTools?: Readonly<Record<string, readonly string[]>>;
  readonly consumer?: { readonly name: string; readonly packageName: string };
}

export interface ReplayOutcome {
  readonly violations: readonly Violation[];
  readonly traceHash: string;
  readonly events: readonly TraceEvent[];
}

export interface LoadOutcome {
  readonly provider?: { readonly specifier: string; readonly names: readonly string[] };
  readonly consumer?: { readonly specifier: string; readonly name: string };
}

/** What a job answers. */
export type JobResult =
  | PropertyOutcome
  | ReplayOutcome
  | LoadOutcome
  | MutantResult
  | AblationResult
  | readonly VectorOutcome[]
  | FlowReport;

/** Worker → CLI. `ready`: its modules are loaded, it takes jobs at once. `error` carries a CliError's code, message and exit code (or an internal error). */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | {
      readonly type: 'result';
      readonly result: JobResult;
      readonly index?: number;
      readonly ms?: number;
      /** Where and when the job ran (telemetry.ts; only when CETP_SIM_POOL_STATS is set). */
      readonly stat?: JobStat;
    }
  | {
      readonly type: 'error';
      readonly code: CliErrorCode;
      readonly message: string;
      readonly exit: 2 | 3;
      readonly index?: number;
    }
  /** A SharedJobs message is done: no index was left for this worker. */
  | {
      readonly type: 'shared-done';
      /** With CETP_SIM_POOL_STATS: the worker's first job (or its finding none), and its thread's clock. */
      readonly firstJobMs?: number;
      readonly startupClock?: ThreadClock | null;
      readonly clock?: ThreadClock | null;
      readonly tid?: number | null;
    }
  | { readonly type: 'scenario'; readonly scenario: ReplayFile['scenario'] }
  | { readonly type: 'event'; readonly event: TraceEvent }
  | RecordMessage;

/**
 * One run of a campaign against user modules, for the judge in the CLI's thread (judge.ts): its
 * scenario, its record, what the oracles know of the implementations under test (the module's
 * declarations), and the verdicts only the module's realm can give (judge.ts isModuleVerdict).
 */
export interface RecordMessage {
  readonly type: 'record';
  readonly phase: RecordPhase;
  readonly scenario: ReplayFile['scenario'];
  readonly record: RunRecord;
  /** The fault-free replay of the run (faults-transparent), made where the module is loaded. */
  readonly faultFree?: FaultFreeRecord;
  readonly context: CheckContext;
  readonly own: readonly Violation[];
  /** A crash-point run (judge-crashpoints.ts): whose process it killed, before which step (-1: none). */
  readonly point?: { readonly side: CrashSide; readonly step: number };
}
