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
  /** Called once per task, when it is spawned by `parent` (null: from outside any task). */
  onSpawn(task: ReadyTask, parent: ReadyTask | null): void;
  /** Picks an index into `ready` (length ≥ 2) for the choice point numbered `choice` (from 0). */
  choose(ready: readonly ReadyTask[], choice: number, step: number): number;
}

export type StrategySpec =
  | { kind: 'fifo' }
  | { kind: 'random' }
  | PctSpec
  | { kind: 'replay'; decisions: readonly number[]; after?: StrategySpec }
  /**
   * Members default to PORTFOLIO_MEMBERS. Over a campaign (campaignStrategy): one FIFO run, then the
   * members in turn; a lone run (makeStrategy) draws one member uniformly.
   */
  | { kind: 'portfolio'; members?: readonly StrategySpec[] };

export interface PctSpec {
  readonly kind: 'pct';
  /** Bug depth d: d − 1 priority change points per run. */
  readonly depth: number;
  /** k, the run length the change points are spread over (in `unit`s); see campaignStrategy to learn it. */
  readonly stepsEstimate?: number;
  /**
   * What a change point counts: every scheduler step ('step', the default), or only the steps where the
   * strategy has a choice ('choice'; a change point at a step with one ready task changes nothing).
   */
  readonly unit?: 'step' | 'choice';
  /**
   * A new task's priority: drawn over the whole range ('random', the default, as in the paper), or
   * below the task that spawned it ('below-parent': a spawner keeps running until it blocks or a change
   * point demotes it, so a thread that starts many workers does not need the top priority of all of
   * them — a 1/n factor PCT otherwise pays on every program whose main starts n threads).
   */
  readonly spawn?: 'random' | 'below-parent';
}

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
 * priority above `depth`; `depth − 1` change points are drawn uniformly over the expected run length
 * k; the highest-priority ready task always runs, and at the i-th change point the running task's
 * priority drops to i. A bug of depth d is found with probability ≥ 1/(n·k^(d−1)) per run.
 *
 * k is counted in `unit`s: scheduler steps, or choice points (steps with two or more ready tasks).
 * Counting choices makes k the number of places a change point can matter at, so a simulation with
 * many single-task steps (Binder plumbing, a lone thread running on) does not dilute it.
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
    private readonly unit: 'step' | 'choice',
    private readonly spawnPolicy: 'random' | 'below-parent',
  ) {
    if (!Number.isInteger(depth) || depth < 1)
      throw new RangeError(`pct depth must be an integer ≥ 1, got ${depth}`);
    const k = Math.max(1, Math.floor(stepsEstimate));
    this.changePoints = Array.from({ length: depth - 1 }, () => rng.intBetween(1, k)).sort((a, b) => a - b);
  }

  onSpawn(task: ReadyTask, parent: ReadyTask | null): void {
    const parentPriority = parent ? this.priority.get(parent.id) : undefined;
    if (this.spawnPolicy === 'random' || parentPriority === undefined) {
      this.priority.set(task.id, this.depth + this.rng.float());
      return;
    }
    // Uniform below the parent: above the change-point band while the parent is, else just under it.
    const low = parentPriority > this.depth ? this.depth : parentPriority - 1;
    this.priority.set(task.id, low + this.rng.float() * (parentPriority - low));
  }

  choose(ready: readonly ReadyTask[], choice: number, step: number): number {
    // Choice points are numbered from 0 and change points from 1: the i-th choice is at position i + 1.
    const at = this.unit === 'choice' ? choice + 1 : step;
    let best = this.highest(ready);
    while (this.nextChange < this.changePoints.length && (this.changePoints[this.nextChange] ?? 0) <= at) {
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
  onSpawn(task: ReadyTask, parent: ReadyTask | null): void {
    this.after.onSpawn(task, parent);
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
      return new PctStrategy(
        rng,
        spec.depth,
        spec.stepsEstimate ?? defaultStepsEstimate,
        spec.unit ?? 'step',
        spec.spawn ?? 'random',
      );
    case 'portfolio': {
      const members = spec.members ?? PORTFOLIO_MEMBERS;
      const member = members[rng.fork('portfolio').int(members.length)];
      if (!member) throw new RangeError('portfolio: no members');
      return makeStrategy(member, rng, defaultStepsEstimate);
    }
    case 'replay':
      return new ReplayStrategy(
        spec.decisions,
        spec.after ? makeStrategy(spec.after, rng, defaultStepsEstimate) : new FifoStrategy(),
      );
  }
}

/**
 * The portfolio's members when none are given: uniform random and PCT-4 (choice points, k learned,
 * below-parent spawn) on alternate runs, after one FIFO run (campaignStrategy). Measured on the race
 * zoo (bench/README.md): random and PCT-4 each win on about half the programs and neither loses to
 * PCT-2 or PCT-3 by much, so alternating the two keeps the portfolio within about 2× of the better one
 * everywhere; adding more members (PCT-3, a second random) cost up to 3.5× on the reorder programs.
 */
export const PORTFOLIO_MEMBERS: readonly StrategySpec[] = [
  { kind: 'random' },
  { kind: 'pct', depth: 4, unit: 'choice', spawn: 'below-parent' },
];

/** What a campaign's strategy learns from each finished run. */
export interface RunObservation {
  readonly steps: number;
  /** Choice points: steps with two or more ready tasks. */
  readonly choices: number;
  readonly failed: boolean;
}

/**
 * A strategy over a campaign of runs of the same program: `next()` makes the strategy of the next run,
 * `observe()` reports how that run went. PCT without an explicit k learns it here: k is the longest run
 * seen so far (in PCT's unit), starting from INITIAL_RUN_LENGTH_ESTIMATE. Burckhardt et al. take k as
 * known; a k far above the true length puts most change points after the run has ended (the run
 * degenerates to fixed priorities), one far below crowds them into its opening steps.
 * Deterministic: the same rng and the same observations give the same strategies.
 */
export interface CampaignStrategy {
  next(): Strategy;
  observe(run: RunObservation): void;
}

export const INITIAL_RUN_LENGTH_ESTIMATE = 50;

export function campaignStrategy(spec: StrategySpec, rng: Rng): CampaignStrategy {
  // The longest run seen, by the strategy kind that ran it: a portfolio's PCT learns k from its own
  // runs (under random, contended locks wake more often, so random's runs make more choices), and
  // from any run until it has one of its own.
  const longest = new Map<string, { steps: number; choices: number }>();
  let run = 0;
  let lastKind = '';
  const grow = (key: string, r: RunObservation) => {
    const seen = longest.get(key) ?? { steps: 0, choices: 0 };
    longest.set(key, { steps: Math.max(seen.steps, r.steps), choices: Math.max(seen.choices, r.choices) });
  };
  const resolve = (s: PctSpec): PctSpec => {
    if (s.stepsEstimate !== undefined) return s;
    const seen = longest.get('pct') ?? longest.get('any');
    const length = seen ? ((s.unit ?? 'step') === 'choice' ? seen.choices : seen.steps) : 0;
    return { ...s, stepsEstimate: length > 0 ? length : INITIAL_RUN_LENGTH_ESTIMATE };
  };
  const build = (s: StrategySpec, runRng: Rng): Strategy => {
    lastKind = s.kind === 'replay' ? (s.after?.kind ?? 'fifo') : s.kind;
    if (s.kind === 'pct') return makeStrategy(resolve(s), runRng, INITIAL_RUN_LENGTH_ESTIMATE);
    if (s.kind === 'replay' && s.after?.kind === 'pct')
      return makeStrategy({ ...s, after: resolve(s.after) }, runRng, INITIAL_RUN_LENGTH_ESTIMATE);
    return makeStrategy(s, runRng, INITIAL_RUN_LENGTH_ESTIMATE);
  };
  return {
    next() {
      run++;
      const runRng = rng.fork(`run ${run}`);
      if (spec.kind !== 'portfolio') return build(spec, runRng);
      // FIFO is deterministic: its one run is all it can add, so the portfolio spends it first.
      if (run === 1) return build({ kind: 'fifo' }, runRng);
      const members = spec.members ?? PORTFOLIO_MEMBERS;
      const member = members[(run - 2) % members.length];
      if (!member) throw new RangeError('portfolio: no members');
      if (member.kind === 'portfolio') throw new RangeError('portfolio: a member cannot be a portfolio');
      return build(member, runRng);
    },
    observe(r) {
      grow('any', r);
      grow(lastKind, r);
    },
  };
}
