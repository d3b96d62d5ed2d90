/**
 * Scheduling strategies: the one source of nondeterminism in which task runs next.
 *
 * At every step with more than one ready task, the scheduler asks its strategy for an index into the
 * ready list (ordered by when each task became ready, so index 0 is first-in). The index is recorded;
 * the list of recorded indices *is* the schedule. Replaying it reproduces the run bit for bit, and a
 * property test can generate it, so fast-check shrinks the schedule with everything else (a choice
 * shrunk toward 0 makes the run more FIFO-like; when a replayed list runs out, FIFO continues).
 */
import type { Rng } from './rng.ts';

/** What a strategy sees of a ready task. */
export interface ReadyTask {
  readonly id: number;
  readonly name: string;
}

export interface Strategy {
  readonly name: string;
  /** Called once per task, when it is spawned (PCT assigns its priority here). */
  onSpawn(task: ReadyTask): void;
  /** Picks an index into `ready` (length ≥ 2) for the choice point numbered `choice` (from 0). */
  choose(ready: readonly ReadyTask[], choice: number, step: number): number;
}

export type StrategySpec =
  | { kind: 'fifo' }
  | { kind: 'random' }
  | { kind: 'pct'; depth: number; stepsEstimate?: number }
  | { kind: 'replay'; decisions: readonly number[]; after?: StrategySpec };

export type StrategyKind = StrategySpec['kind'];

class FifoStrategy implements Strategy {
  readonly name = 'fifo';
  onSpawn(): void {}
  choose(): number {
    return 0;
  }
}

class RandomStrategy implements Strategy {
  readonly name = 'random';
  constructor(private readonly rng: Rng) {}
  onSpawn(): void {}
  choose(ready: readonly ReadyTask[]): number {
    return this.rng.int(ready.length);
  }
}

/**
 * Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010): every task gets a random
 * priority above `depth`; `depth − 1` change points are drawn uniformly over the expected number of
 * steps; the highest-priority ready task always runs, and at the i-th change point the running
 * task's priority drops to i. A bug of depth d is found with probability ≥ 1/(n·k^(d−1)) per run.
 */
class PctStrategy implements Strategy {
  readonly name = 'pct';
  private readonly priority = new Map<number, number>();
  private readonly changePoints: number[];
  private nextChange = 0;

  constructor(
    private readonly rng: Rng,
    private readonly depth: number,
    stepsEstimate: number,
  ) {
    if (!Number.isInteger(depth) || depth < 1)
      throw new RangeError(`pct depth must be an integer ≥ 1, got ${depth}`);
    const k = Math.max(1, Math.floor(stepsEstimate));
    this.changePoints = Array.from({ length: depth - 1 }, () => rng.intBetween(1, k)).sort((a, b) => a - b);
  }

  onSpawn(task: ReadyTask): void {
    this.priority.set(task.id, this.depth + this.rng.float());
  }

  choose(ready: readonly ReadyTask[], _choice: number, step: number): number {
    let best = this.highest(ready);
    while (this.nextChange < this.changePoints.length && (this.changePoints[this.nextChange] ?? 0) <= step) {
      this.nextChange++;
      const chosen = ready[best];
      if (chosen) this.priority.set(chosen.id, this.nextChange);
      best = this.highest(ready);
    }
    return best;
  }

  private highest(ready: readonly ReadyTask[]): number {
    let best = 0;
    let bestPriority = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < ready.length; i++) {
      const p = this.priority.get((ready[i] as ReadyTask).id) ?? 0;
      if (p > bestPriority) {
        bestPriority = p;
        best = i;
      }
    }
    return best;
  }
}

/**
 * Replays recorded (or generated) choices; any integer is taken modulo the ready count. When the
 * list runs out, `after` continues (FIFO by default). Since the scheduler records every choice, a
 * run made this way is replayed exactly by its recorded decisions alone.
 */
class ReplayStrategy implements Strategy {
  readonly name = 'replay';
  constructor(
    private readonly decisions: readonly number[],
    private readonly after: Strategy,
  ) {}
  onSpawn(task: ReadyTask): void {
    this.after.onSpawn(task);
  }
  choose(ready: readonly ReadyTask[], choice: number, step: number): number {
    const d = this.decisions[choice];
    if (d === undefined) return this.after.choose(ready, choice, step);
    return ((Math.trunc(d) % ready.length) + ready.length) % ready.length;
  }
}

export function makeStrategy(spec: StrategySpec, rng: Rng, defaultStepsEstimate: number): Strategy {
  switch (spec.kind) {
    case 'fifo':
      return new FifoStrategy();
    case 'random':
      return new RandomStrategy(rng);
    case 'pct':
      return new PctStrategy(rng, spec.depth, spec.stepsEstimate ?? defaultStepsEstimate);
    case 'replay':
      return new ReplayStrategy(
        spec.decisions,
        spec.after ? makeStrategy(spec.after, rng, defaultStepsEstimate) : new FifoStrategy(),
      );
  }
}
