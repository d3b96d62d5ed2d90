/**
 * The fuzz engine: runs one property with fast-check (generating scenarios, running each in a fresh
 * world, judging it with the property's oracles) and, on failure, the shrunk scenario — commands,
 * user answers, faults and scheduler decisions minimised together — re-run to collect its trace and
 * a one-file replay. Deterministic: the same (seed, runs, strategy, variant) give the same result.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Violation } from '../src/check/checker.ts';
import { scenarioArb } from './scenario/arbitraries.ts';
import {
  type ConsumerRun,
  type ConsumerScenario,
  consumerScenarioArb,
  runConsumerScenario,
} from './scenario/consumer.ts';
import type { Scenario, Tail, Variant } from './scenario/model.ts';
import { REFERENCE } from './scenario/model.ts';
import { runScenario, type ScenarioRun } from './scenario/runner.ts';
import type { PropertyDef } from './suites.ts';

export const REPLAY_FORMAT = 'cetp-sim/replay@1';

export interface ReplayFile {
  readonly format: typeof REPLAY_FORMAT;
  readonly property: string;
  readonly rules: readonly string[];
  readonly fuzz: {
    readonly seed: number;
    readonly path: string;
    readonly runsToFailure: number;
    readonly shrinks: number;
  };
  readonly variant: Variant;
  /** A raw-driver Scenario or, for consumer-driven properties, a ConsumerScenario. */
  readonly scenario: Scenario | ConsumerScenario;
  readonly traceHash: string;
  readonly violations: readonly Pick<Violation, 'checker' | 'ruleIds' | 'class' | 'message'>[];
}

export interface FuzzOptions {
  readonly seed: number;
  /** Number of generated scenarios (ignored when `timeLimitMs` is set). */
  readonly runs: number;
  /** Stop after this much wall time instead (the CLI's --time; results then depend on speed). */
  readonly timeLimitMs?: number;
  readonly tails?: readonly Tail[];
  readonly variant?: Variant;
  /** Generate scheduler decisions (default) or leave the whole schedule to the tail strategy. */
  readonly generateDecisions?: boolean;
}

export interface PropertyResult {
  readonly id: string;
  readonly rules: readonly string[];
  readonly runs: number;
  readonly status: 'passed' | 'failed';
  readonly failure?: {
    readonly replay: ReplayFile;
    readonly run: ScenarioRun | ConsumerRun;
  };
}

/** A per-property seed derived from the campaign seed, so running a subset changes nothing. */
export function propertySeed(seed: number, propertyId: string): number {
  return createHash('sha256').update(`${seed}/${propertyId}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** The arbitrary and runner of a property, by kind. */
function engine(def: PropertyDef, options: FuzzOptions) {
  const tails = options.tails ?? ['fifo'];
  const decisions = options.generateDecisions ?? true;
  if (def.kind === 'consumer') {
    return {
      arbitrary: consumerScenarioArb(def.shape, tails, decisions) as fc.Arbitrary<
        Scenario | ConsumerScenario
      >,
      run: (s: Scenario | ConsumerScenario, v: Variant) =>
        runConsumerScenario(def.fixture, s as ConsumerScenario, v),
    };
  }
  return {
    arbitrary: scenarioArb(def.shape, tails, decisions) as fc.Arbitrary<Scenario | ConsumerScenario>,
    run: (s: Scenario | ConsumerScenario, v: Variant) => runScenario(def.fixture, s as Scenario, v),
  };
}

export async function fuzzProperty(def: PropertyDef, options: FuzzOptions): Promise<PropertyResult> {
  const variant = options.variant ?? REFERENCE;
  const seed = propertySeed(options.seed, def.id);
  const { arbitrary, run: runOne } = engine(def, options);
  const property = fc.asyncProperty(
    arbitrary,
    async (scenario) => (await runOne(scenario, variant)).violations.length === 0,
  );
  const details = await fc.check(property, {
    seed,
    numRuns: options.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : options.runs,
    ...(options.timeLimitMs !== undefined
      ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }
      : {}),
  });
  if (!details.failed || details.counterexample === null) {
    return { id: def.id, rules: def.ruleIds, runs: details.numRuns, status: 'passed' };
  }
  const [scenario] = details.counterexample as [Scenario | ConsumerScenario];
  const run = await runOne(scenario, variant);
  const replay: ReplayFile = {
    format: REPLAY_FORMAT,
    property: def.id,
    rules: def.ruleIds,
    fuzz: {
      seed,
      path: details.counterexamplePath ?? '',
      runsToFailure: details.numRuns,
      shrinks: details.numShrinks,
    },
    variant,
    scenario,
    traceHash: run.report.traceHash,
    violations: run.violations.map(({ checker, ruleIds, class: cls, message }) => ({
      checker,
      ruleIds,
      class: cls,
      message,
    })),
  };
  return {
    id: def.id,
    rules: def.ruleIds,
    runs: details.numRuns,
    status: 'failed',
    failure: { replay, run },
  };
}

/** Re-runs a replay file's scenario bit for bit. */
export async function replayScenario(
  def: PropertyDef,
  replay: ReplayFile,
): Promise<ScenarioRun | ConsumerRun> {
  return engine(def, { seed: 0, runs: 1 }).run(replay.scenario, replay.variant);
}
