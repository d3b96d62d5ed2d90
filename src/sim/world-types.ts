/**
 * The world's options and its run report (world.ts), with the constants of process starts.
 */
import type { FaultAt } from './core/faults.ts';
import type { AndroidRelease } from './core/release.ts';
import type { RunOutcome } from './core/scheduler.ts';
import type { StrategySpec } from './core/strategy.ts';
import type { Trace } from './core/trace.ts';
import type { FdLeak } from './fd/fd.ts';
import type { UserSpec } from './ui/user.ts';

/** UID of the harness itself (test drivers run "as the system"). */
export const SYSTEM_UID = 1000;
/** AMS: CONTENT_PROVIDER_PUBLISH_TIMEOUT_MILLIS. */
export const PROVIDER_PUBLISH_TIMEOUT_MS = 10_000;
/**
 * Virtual time a cold process start takes (zygote fork, bindApplication) before its providers'
 * onCreate runs. A typical cold start is a few hundred milliseconds; the figure is a modelling choice.
 */
export const PROCESS_START_MS = 100;

export interface WorldOptions {
  readonly seed?: number | string;
  /** Wall time at boot (Unix epoch ms). */
  readonly startMs?: number;
  readonly strategy?: StrategySpec;
  /** Maximum scheduler steps before the run stops with a `budget` outcome. */
  readonly stepBudget?: number;
  readonly faults?: readonly FaultAt[];
  /** The simulated user who answers Activities. Default: a user who never answers. */
  readonly user?: UserSpec;
  /** Virtual time a cold process start takes (default PROCESS_START_MS). */
  readonly processStartMs?: number;
  /** The Android release whose behaviours differ (release.ts); default DEFAULT_ANDROID (14). */
  readonly android?: AndroidRelease;
  /** Keep a log of every ContentProvider.call with snapshots of its extras and reply (for checkers). */
  readonly recordContentCalls?: boolean;
}

export interface RunReport {
  readonly outcome: RunOutcome;
  readonly steps: number;
  readonly decisions: readonly number[];
  readonly traceHash: string;
  readonly fdLeaks: readonly FdLeak[];
  readonly unappliedFaults: readonly FaultAt[];
  /** Tasks (other than harness tasks) that failed, and app processes that crashed. */
  readonly crashes: readonly { task: string; error: string }[];
}

/**
 * A finished run's report. The trace hash is computed on demand (hashing the whole trace costs more
 * than running a short world) by a getter on the class, not on each report object: V8 gives an object
 * literal with its own getter a map of its own, and maps live in the old generation, so the getter's
 * closure — and the whole world it reaches — would survive every young-generation GC.
 */
/** @internal */
export class Report implements RunReport {
  private hash: string | null = null;

  /** The report of a run that ended with `outcome` (copies of the lists the world keeps growing). */
  static of(
    outcome: RunOutcome,
    scheduler: { readonly step: number; readonly decisions: readonly number[] },
    trace: Trace,
    fdLeaks: readonly FdLeak[],
    unappliedFaults: readonly FaultAt[],
    crashes: readonly { task: string; error: string }[],
  ): Report {
    return new Report(
      outcome,
      scheduler.step,
      [...scheduler.decisions],
      trace,
      fdLeaks,
      [...unappliedFaults],
      [...crashes],
    );
  }

  constructor(
    readonly outcome: RunOutcome,
    readonly steps: number,
    readonly decisions: readonly number[],
    private readonly trace: Trace,
    readonly fdLeaks: readonly FdLeak[],
    readonly unappliedFaults: readonly FaultAt[],
    readonly crashes: readonly { task: string; error: string }[],
  ) {}

  get traceHash(): string {
    this.hash ??= this.trace.hash();
    return this.hash;
  }
}
