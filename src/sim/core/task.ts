/**
 * The scheduler's units of work and their wake-ups: a Task (one cooperative async body and its
 * state) and a Waiter (a one-shot wake-up a task blocks on). The run loop that picks among ready
 * tasks is in scheduler.ts, which re-exports everything here.
 */
export type TaskState =
  | { readonly kind: 'ready' }
  | { readonly kind: 'running' }
  | { readonly kind: 'blocked'; readonly on: string }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'killed'; readonly cause: string };

export interface TaskOptions {
  /** The process (by name) the task runs in; killing the process kills the task. */
  readonly owner?: string | null;
  /** A daemon blocked at the end of a run is not a liveness failure (idle workers, servers). */
  readonly daemon?: boolean;
}

/** Returned by a timed wait that timed out. */
export const TIMED_OUT: unique symbol = Symbol('TIMED_OUT');
export type TimedOut = typeof TIMED_OUT;

/**
 * @internal Shared state values for the hot transitions (states are immutable, so one object each
 * will do).
 */
export const READY: TaskState = Object.freeze({ kind: 'ready' });
/** @internal */
export const RUNNING: TaskState = Object.freeze({ kind: 'running' });
/** @internal */
export const DONE: TaskState = Object.freeze({ kind: 'done' });

export class Task {
  state: TaskState = READY;
  /** Value handed to the task's pending `await` when it is next resumed. */
  resumeValue: unknown;
  resolveResume: ((value: unknown) => void) | null = null;
  /** The wait the task is blocked on, if any. */
  waiting: Waiter<unknown> | null = null;
  /** Monotonic time at which the current wait times out, or null. */
  timeoutAt: number | null = null;
  /** Resumed by the scheduler, but its continuation has not started yet. */
  resumeInFlight = false;
  /** Ground truth only (ground-truth.ts): the Binder call it serves, or served when spawned; never read by the simulation. */
  onBehalfOf: object | null = null;

  constructor(
    readonly id: number,
    readonly name: string,
    readonly owner: string | null,
    readonly daemon: boolean,
  ) {}

  get alive(): boolean {
    return this.state.kind === 'ready' || this.state.kind === 'running' || this.state.kind === 'blocked';
  }
}

/** What a Waiter needs of its scheduler (the Scheduler is one). */
export interface WaiterHost {
  blockOn(waiter: Waiter<unknown>, timeoutMs: number | null): Promise<unknown>;
  makeReady(task: Task, value: unknown): void;
}

/**
 * A one-shot wake-up for one task. Create it, hand `wake` to whoever will deliver the value, then
 * `await waiter.wait()`. `wake` before `wait` is kept and returned at once (no lost wake-ups);
 * `wake` after a timeout or after the task died is ignored and returns false.
 */
export class Waiter<T> {
  private settled = false;
  private early: { value: T } | null = null;
  task: Task | null = null;

  constructor(
    private readonly scheduler: WaiterHost,
    readonly reason: string,
  ) {}

  get isSettled(): boolean {
    return this.settled;
  }

  wake(value: T): boolean {
    if (this.settled) return false;
    const task = this.task;
    if (task === null) {
      if (this.early) return false;
      this.early = { value };
      return true;
    }
    if (task.state.kind !== 'blocked' || task.waiting !== (this as Waiter<unknown>)) return false;
    this.settled = true;
    this.scheduler.makeReady(task, value);
    return true;
  }

  /** Blocks the current task until woken. */
  wait(): Promise<T> {
    return this.scheduler.blockOn(this, null) as Promise<T>;
  }

  /** Blocks the current task until woken or until `timeoutMs` of monotonic time pass. */
  waitFor(timeoutMs: number): Promise<T | TimedOut> {
    return this.scheduler.blockOn(this, timeoutMs) as Promise<T | TimedOut>;
  }

  /** @internal */
  takeEarly(): { value: T } | null {
    const e = this.early;
    if (e) this.settled = true;
    return e;
  }

  /** @internal */
  markSettled(): void {
    this.settled = true;
  }
}
