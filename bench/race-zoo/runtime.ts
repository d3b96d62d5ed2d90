/**
 * The race zoo's thread model: what a ported SCTBench program may do, written once and run by two
 * engines — cetp-sim's scheduler (bench/race-zoo/sim-engine.ts) and fast-check's `fc.scheduler()`
 * (bench/race-zoo/fc-engine.ts) — so both explore exactly the same program.
 *
 * Scheduling points follow SCTBench (Thomson, Donaldson & Betts, "Concurrency testing using controlled
 * schedulers", TOPC 2016): a point before every synchronisation operation (thread create, join, mutex
 * lock and unlock, process exit) and before every *racy* shared-memory access. An access that the
 * program always makes under one lock is not visible (SCTBench found racy accesses in a data-race
 * detection phase first and made only those scheduling points). Each port marks its racy accesses with
 * `racy(label)` before the access.
 *
 * The bug oracles are the originals': `assert` (an assertion failure) and deadlock (the run ends with
 * threads blocked on mutexes or joins). `exit()` models main returning while threads still run: in C
 * that ends the process, so those threads never take another step.
 */

export interface ZooThread {
  /** pthread_join: blocks until the thread has finished (a scheduling point). */
  join(): Promise<void>;
}

export interface ZooMutex {
  lock(): Promise<void>;
  unlock(): Promise<void>;
}

export interface ZooRuntime {
  /** A scheduling point before a racy shared-memory access. */
  racy(label: string): Promise<void>;
  /** pthread_create: a scheduling point, then the thread is ready to run. */
  spawn(name: string, body: () => Promise<void>): Promise<ZooThread>;
  mutex(name: string): ZooMutex;
  /** The original's assert(): a failure is the bug. */
  check(condition: boolean, message: string): void;
  /** Return from main while other threads live: the process exits (a scheduling point first). */
  exit(): Promise<void>;
}

/** Thrown by a failed `check`: the program's assertion oracle fired. */
export class ZooAssertionFailed extends Error {
  override readonly name = 'ZooAssertionFailed';
}

export type ZooVerdict =
  | { readonly kind: 'ok' }
  | { readonly kind: 'assertion'; readonly message: string }
  | { readonly kind: 'deadlock'; readonly blocked: readonly string[] };

export interface ZooProgram {
  /** SCTBench's name, without `_bad`. */
  readonly id: string;
  /** The original: a path in github.com/mc-imperial/sctbench at d59ab26d. */
  readonly source: string;
  /** Threads, main included (SCTBench's benchmarks/buggy.txt column). */
  readonly threads: number;
  readonly bug: 'assertion' | 'deadlock';
  /** One of the deep ones the ≥ 10× goal is set on (issue 22, item 5). */
  readonly deep: boolean;
  /** The program's main(): it gets a fresh state every run. */
  main(rt: ZooRuntime): Promise<void>;
}
