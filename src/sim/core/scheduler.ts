/**
 * The cooperative scheduler: where interleavings — and so bugs — come from.
 *
 * Every unit of concurrent work in the simulated device (a Binder thread serving a call, an app's
 * background worker, the simulated user, a test driver) is a Task: an async function that runs
 * until it blocks on a simulation primitive (a Binder reply, a store operation, a sleep, a user
 * decision, or a plain `yield`). The scheduler knows exactly when the running task has blocked or
 * finished — the primitive tells it, synchronously — so it never waits for a macrotask: one step is
 * a handful of microtasks. At each step the strategy picks among the ready tasks, and the pick is
 * recorded; (seed, strategy, decisions, faults) fully determine a run.
 *
 * Time: tasks run in zero virtual time; when no task is ready, monotonic time jumps to the earliest
 * timed wait. A run ends when nothing is ready and nothing waits on time. Non-daemon tasks still
 * blocked then are a liveness failure, reported with what each one waits for.
 *
 * Rule: a task blocks on at most one primitive at a time (no `Promise.all` over simulation
 * primitives — spawn a task per branch instead). Breaking it throws a SimUsageError.
 *
 * Because a step is only microtasks, a whole run completes inside the macrotask that started it. A
 * run still unfinished when the next macrotask comes has a task awaiting something the simulation
 * does not control (a promise that never settles, a real timer, real I/O): the run ends at once with
 * a `stalled` outcome naming that task, instead of leaving its caller awaiting forever (an emptied
 * event loop would end the process with exit 13 and no word). The check observes; it decides
 * nothing a deterministic run depends on.
 *
 * Task and Waiter (and their types) live in task.ts; this module re-exports them.
 */
import type { VirtualClock } from './clock.ts';
import { SimUsageError } from './errors.ts';
import type { Strategy } from './strategy.ts';
import { DONE, READY, RUNNING, Task, type TaskOptions, TIMED_OUT, Waiter } from './task.ts';

export {
  Task,
  type TaskOptions,
  type TaskState,
  TIMED_OUT,
  type TimedOut,
  Waiter,
  type WaiterHost,
} from './task.ts';

export interface SchedulerHooks {
  /** Called before each step is taken (faults due at this step are applied here). */
  beforeStep(step: number): void;
  /** Called with every step taken: the task resumed and the size of the ready set it was picked from. */
  onStep(task: Task, readyCount: number, decision: number | null): void;
  /** A task's body threw. */
  onTaskFailed(task: Task, error: unknown): void;
  onTaskDone(task: Task): void;
}

export type RunOutcome =
  | { readonly kind: 'completed' }
  | {
      readonly kind: 'liveness';
      readonly blocked: readonly { task: string; on: string; owner: string | null }[];
    }
  | { readonly kind: 'budget'; readonly steps: number }
  /** The running task awaited something outside the simulation and never came back to it. */
  | { readonly kind: 'stalled'; readonly task: string; readonly owner: string | null; readonly steps: number }
  | { readonly kind: 'crash'; readonly task: string; readonly error: unknown };

export interface SchedulerOptions {
  readonly stepBudget: number;
}

export class Scheduler {
  private nextTaskId = 1;
  private readonly live = new Map<number, Task>();
  private ready: Task[] = [];
  /** Owners (processes) frozen by the cached-app freezer, and their runnable tasks held back. */
  private readonly frozen = new Set<string>();
  private parked: Task[] = [];
  private readonly timed = new Set<Task>();
  /** No timed wait ends before this (a lower bound: a cancelled wait may leave it early). */
  private earliestTimeout = Number.POSITIVE_INFINITY;
  private current: Task | null = null;
  private stepCount = 0;
  private choiceCount = 0;
  private readonly recorded: number[] = [];
  private lastBeforeStep = -1;
  private running = false;
  private outcome: RunOutcome | null = null;
  /** The pending check for a run that left the simulation (watchForStall), until the run ends. */
  private stallWatch: ReturnType<typeof setImmediate> | null = null; // determinism-ok: the stall watch's handle (a type)
  private resolveRun: ((outcome: RunOutcome) => void) | null = null;
  private hooks: SchedulerHooks | null = null;

  constructor(
    private readonly clock: VirtualClock,
    private readonly strategy: Strategy,
    private readonly options: SchedulerOptions,
  ) {}

  setHooks(hooks: SchedulerHooks): void {
    this.hooks = hooks;
  }

  /** Steps taken so far. */
  get step(): number {
    return this.stepCount;
  }

  /** The choices made at every step with more than one ready task, as indices into the ready list. */
  get decisions(): readonly number[] {
    return this.recorded;
  }

  get currentTask(): Task | null {
    return this.current;
  }

  get finished(): boolean {
    return this.outcome !== null;
  }

  tasks(): Task[] {
    return [...this.live.values()];
  }

  spawn(name: string, body: () => Promise<void>, options: TaskOptions = {}): Task {
    const task = new Task(this.nextTaskId++, name, options.owner ?? null, options.daemon ?? false);
    this.live.set(task.id, task);
    task.onBehalfOf = this.current?.onBehalfOf ?? null; // ground truth: work spawned while serving a call is that call's
    this.strategy.onSpawn(task, this.current);
    const started = new Promise<unknown>((resolve) => {
      task.resolveResume = resolve;
    });
    if (task.owner !== null && this.frozen.has(task.owner)) this.parked.push(task);
    else this.ready.push(task);
    void this.runBody(task, started, body);
    return task;
  }

  private async runBody(task: Task, started: Promise<unknown>, body: () => Promise<void>): Promise<void> {
    await started;
    task.resumeInFlight = false;
    let failure: { error: unknown } | null = null;
    try {
      await body();
    } catch (error) {
      failure = { error };
    }
    this.endTask(task, failure);
  }

  /** Runs until no task can progress, the step budget is spent, or a harness task crashes. */
  run(): Promise<RunOutcome> {
    if (this.running) throw new SimUsageError('Scheduler.run() called twice');
    this.running = true;
    const done = new Promise<RunOutcome>((resolve) => {
      this.resolveRun = resolve;
    });
    this.pump();
    if (this.outcome === null) this.watchForStall();
    return done;
  }

  /** Ends the run as `stalled` if it has not finished by the next macrotask (see the header). */
  private watchForStall(): void {
    const stalled = () => {
      if (this.outcome !== null) return;
      const task = this.current;
      this.finish({
        kind: 'stalled',
        task: task?.name ?? '(none)',
        owner: task?.owner ?? null,
        steps: this.stepCount,
      });
    };
    this.stallWatch = setImmediate(stalled); // determinism-ok: only a run that left the simulation is still going then
  }

  /** Ends the run early with a crash outcome (an unexpected harness failure). */
  abort(task: string, error: unknown): void {
    this.finish({ kind: 'crash', task, error });
  }

  /** Gives other ready tasks a turn; the current task stays ready. */
  yield(): Promise<void> {
    const task = this.requireCurrent('yield');
    if (task.state.kind === 'killed') return this.parkKilled();
    this.current = null;
    const resumed = this.suspend(task);
    this.makeReady(task, undefined);
    this.pump();
    return resumed as Promise<void>;
  }

  /**
   * The device enters deep sleep for `ms` (clock.ts): every timer runs on uptime, which stops, so
   * each pending timeout moves `ms` later in elapsed time; elapsed and wall time jump by `ms`.
   */
  deepSleep(ms: number): void {
    for (const t of this.timed) if (t.timeoutAt !== null) t.timeoutAt += ms;
    this.earliestTimeout += ms;
    this.clock.suspend(ms);
  }

  /** Blocks the current task for `ms` of monotonic (uptime) time. */
  sleep(ms: number): Promise<void> {
    const waiter = new Waiter<void>(this, `sleep ${ms}ms`);
    return this.blockOn(waiter, Math.max(0, ms)).then(() => undefined);
  }

  waiter<T>(reason: string): Waiter<T> {
    return new Waiter<T>(this, reason);
  }

  /** @internal — used by Waiter. */
  blockOn(waiter: Waiter<unknown>, timeoutMs: number | null): Promise<unknown> {
    const task = this.requireCurrent(`wait on "${waiter.reason}"`);
    if (task.state.kind === 'killed') return this.parkKilled();
    if (waiter.task !== null) throw new SimUsageError(`waiter "${waiter.reason}" is already waited on`);
    waiter.task = task;
    const early = waiter.takeEarly();
    this.current = null;
    const resumed = this.suspend(task);
    if (early) {
      this.makeReady(task, early.value);
    } else {
      task.state = { kind: 'blocked', on: waiter.reason };
      task.waiting = waiter;
      if (timeoutMs !== null) {
        task.timeoutAt = this.clock.elapsedRealtime() + timeoutMs;
        this.timed.add(task);
        if (task.timeoutAt < this.earliestTimeout) this.earliestTimeout = task.timeoutAt;
      }
    }
    this.pump();
    return resumed;
  }

  /** @internal — a blocked (or new) task becomes ready, to be resumed with `value`. */
  makeReady(task: Task, value: unknown): void {
    if (task.state.kind === 'blocked') {
      task.waiting = null;
      if (task.timeoutAt !== null) {
        this.timed.delete(task);
        task.timeoutAt = null;
      }
    } else if (task.state.kind !== 'running') {
      return;
    }
    task.state = READY;
    task.resumeValue = value;
    if (task.owner !== null && this.frozen.has(task.owner)) this.parked.push(task);
    else this.ready.push(task);
  }

  /** The cgroup freezer: `owner`'s tasks stop being scheduled (they keep their place) until thawed. */
  freezeOwner(owner: string): void {
    if (this.frozen.has(owner)) return;
    this.frozen.add(owner);
    const keep: Task[] = [];
    for (const t of this.ready) (t.owner === owner ? this.parked : keep).push(t);
    this.ready = keep;
  }

  thawOwner(owner: string): void {
    if (!this.frozen.delete(owner)) return;
    const still: Task[] = [];
    for (const t of this.parked) (t.owner === owner ? this.ready : still).push(t);
    this.parked = still;
  }

  isFrozen(owner: string): boolean {
    return this.frozen.has(owner);
  }

  /** Kills every live task owned by `owner` (a process dying); their awaits never resume. */
  killOwner(owner: string, cause: string): Task[] {
    const killed: Task[] = [];
    for (const task of this.live.values()) {
      if (task.owner === owner) {
        this.kill(task, cause);
        killed.push(task);
      }
    }
    return killed;
  }

  kill(task: Task, cause: string): void {
    if (!task.alive) return;
    if (task.state.kind === 'ready') {
      this.ready = this.ready.filter((t) => t !== task);
      if (this.parked.length > 0) this.parked = this.parked.filter((t) => t !== task);
    }
    if (task.waiting) task.waiting.markSettled();
    task.waiting = null;
    this.timed.delete(task);
    task.timeoutAt = null;
    task.state = { kind: 'killed', cause };
    task.resolveResume = null;
    this.live.delete(task.id);
  }

  /** The running task was killed under itself: it never resumes. */
  private parkKilled(): Promise<never> {
    this.current = null;
    this.pump();
    return new Promise<never>(() => {});
  }

  private suspend(task: Task): Promise<unknown> {
    const resumed = new Promise<unknown>((resolve) => {
      task.resolveResume = resolve;
    });
    return resumed.then((value) => {
      task.resumeInFlight = false;
      return value;
    });
  }

  private requireCurrent(what: string): Task {
    const task = this.current;
    if (task?.resumeInFlight) {
      throw new SimUsageError(
        `${what}: task ${task.name} used a second simulation primitive before the first resumed (no Promise.all over simulation primitives — spawn a task per branch)`,
      );
    }
    if (task === null) {
      throw new SimUsageError(
        `${what}: no simulation task is running (call simulation primitives only from inside a spawned task, one at a time — never under Promise.all)`,
      );
    }
    return task;
  }

  private endTask(task: Task, failure: { error: unknown } | null): void {
    // A task that comes back after the run ended (it had stalled on a foreign promise) changes nothing.
    if (this.outcome !== null) return;
    if (task.state.kind === 'killed') {
      // The task was killed while it was running (its own process died under it): drop it.
      if (this.current === task) {
        this.current = null;
        this.pump();
      }
      return;
    }
    this.live.delete(task.id);
    task.state = failure ? { kind: 'failed', error: failure.error } : DONE;
    if (this.current === task) this.current = null;
    try {
      if (failure && !this.hooks) {
        this.finish({ kind: 'crash', task: task.name, error: failure.error });
        return;
      }
      if (failure) this.hooks?.onTaskFailed(task, failure.error);
      else this.hooks?.onTaskDone(task);
    } catch (error) {
      this.finish({ kind: 'crash', task: task.name, error });
      return;
    }
    this.pump();
  }

  private pump(): void {
    try {
      this.pumpUnsafe();
    } catch (error) {
      this.finish({ kind: 'crash', task: this.current?.name ?? '(scheduler)', error });
    }
  }

  private pumpUnsafe(): void {
    while (this.outcome === null && this.current === null) {
      if (this.lastBeforeStep !== this.stepCount) {
        this.lastBeforeStep = this.stepCount;
        this.hooks?.beforeStep(this.stepCount);
        if (this.outcome !== null || this.current !== null) return;
      }
      this.fireDueTimers();
      if (this.ready.length === 0) {
        if (!this.advanceToNextTimer()) {
          this.finish(this.quiescentOutcome());
          return;
        }
        continue;
      }
      if (this.stepCount >= this.options.stepBudget) {
        this.finish({ kind: 'budget', steps: this.stepCount });
        return;
      }
      let index = 0;
      let decision: number | null = null;
      if (this.ready.length > 1) {
        index = this.strategy.choose(this.ready, this.choiceCount++, this.stepCount);
        if (!Number.isInteger(index) || index < 0 || index >= this.ready.length) {
          throw new SimUsageError(
            `strategy ${this.strategy.name} chose index ${index} of ${this.ready.length}`,
          );
        }
        this.recorded.push(index);
        decision = index;
      }
      const readyCount = this.ready.length;
      const task = (index === 0 ? this.ready.shift() : this.ready.splice(index, 1)[0]) as Task;
      this.stepCount++;
      task.state = RUNNING;
      this.current = task;
      this.hooks?.onStep(task, readyCount, decision);
      const resume = task.resolveResume;
      task.resolveResume = null;
      task.resumeInFlight = true;
      const value = task.resumeValue;
      task.resumeValue = undefined;
      resume?.(value);
      return;
    }
  }

  private fireDueTimers(): void {
    if (this.timed.size === 0) return;
    const now = this.clock.elapsedRealtime();
    if (now < this.earliestTimeout) return;
    const due: Task[] = [];
    let earliest = Number.POSITIVE_INFINITY;
    for (const t of this.timed) {
      const at = t.timeoutAt ?? Number.POSITIVE_INFINITY;
      if (at <= now) due.push(t);
      else if (at < earliest) earliest = at;
    }
    this.earliestTimeout = earliest;
    due.sort((a, b) => (a.timeoutAt as number) - (b.timeoutAt as number) || a.id - b.id);
    for (const task of due) {
      task.waiting?.markSettled();
      this.makeReady(task, TIMED_OUT);
    }
  }

  private advanceToNextTimer(): boolean {
    let next = Number.POSITIVE_INFINITY;
    for (const task of this.timed) next = Math.min(next, task.timeoutAt ?? Number.POSITIVE_INFINITY);
    if (next === Number.POSITIVE_INFINITY) return false;
    this.clock.advanceTo(next);
    return true;
  }

  private quiescentOutcome(): RunOutcome {
    // A task of a frozen process is held back by the freezer whatever it waits on: thawed, it would
    // go on (runtime.ts run-progress does not count it as blocked by the implementation).
    const blocked = [...this.live.values()]
      .filter((t) => !t.daemon && t.state.kind === 'blocked')
      .map((t) => ({
        task: t.name,
        on:
          t.owner !== null && this.frozen.has(t.owner)
            ? `process ${t.owner} frozen`
            : (t.state as { on: string }).on,
        owner: t.owner,
      }));
    for (const t of this.parked) {
      if (!t.daemon) blocked.push({ task: t.name, on: `process ${t.owner} frozen`, owner: t.owner });
    }
    return blocked.length > 0 ? { kind: 'liveness', blocked } : { kind: 'completed' };
  }

  private finish(outcome: RunOutcome): void {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    this.current = null;
    // The stall watch would do nothing now; cleared, it no longer holds this scheduler — and its
    // world — until the next macrotask. A campaign runs world after world in one macrotask, so every
    // world of it stayed in memory until the campaign ended (issue 18: 3.2 GB in 10 minutes).
    if (this.stallWatch !== null) clearImmediate(this.stallWatch);
    this.stallWatch = null;
    this.resolveRun?.(outcome);
  }
}
