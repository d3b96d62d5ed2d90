/**
 * The fuzz engine: runs one property with fast-check (generating scenarios, running each in a fresh
 * world, judging it with the property's oracles) and, on failure, the shrunk scenario — commands,
 * user answers, faults and scheduler decisions minimised together — re-run to collect its trace and
 * a one-file replay. Deterministic: the same (seed, runs, strategy, variant) give the same result.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Violation } from '../check/checker.ts';
import { CONSUMER_KEY, type Exercised, ExerciseTally, exercisedIn, successTest } from '../check/exercised.ts';
import { type Frequencies, FrequencyTally, runLabels } from '../check/frequencies.ts';
import type { CallView, Observation } from '../check/observation.ts';
import { DEVICE_FAULTS } from '../sim/core/faults.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { type FloorVerdict, FloorWitnesses, floorViolation } from './floor-witness.ts';
import { scenarioArb } from './scenario/arbitraries.ts';
import {
  type ConsumerRun,
  type ConsumerScenario,
  consumerScenarioArb,
  runConsumerScenario,
} from './scenario/consumer.ts';
import type { Scenario, Tail, Variant } from './scenario/model.ts';
import { REFERENCE } from './scenario/model.ts';
import { type RunHooks, runScenario, type ScenarioRun } from './scenario/runner.ts';
import type { PropertyDef } from './suites.ts';
import {
  betterWitness,
  candidateOf,
  causeEvents,
  endings,
  faultsOf,
  type WitnessCandidate,
} from './witness.ts';

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
  /**
   * For a campaign-level verdict (`tool-never-succeeds`): the tool (`provider|tool`) whose failure
   * this run witnesses. Replaying judges the run again by that verdict: the tool executed, not once
   * successfully.
   */
  readonly campaign?: { readonly checker: typeof TOOL_NEVER_SUCCEEDS.checker; readonly tool: string };
  /**
   * For a floor the campaign missed (`floor-not-met`, src/fuzz/floor-witness.ts): the label, the
   * campaign's figures; this run is its witness, and replaying it judges the run by that floor again.
   */
  readonly floor?: FloorVerdict;
}

export interface FuzzOptions {
  readonly seed: number;
  /** Number of generated scenarios (ignored when `timeLimitMs` is set). */
  readonly runs: number;
  /** Stop after this much wall time instead (the CLI's --time; results then depend on speed). */
  readonly timeLimitMs?: number;
  /** false: the first failing run is reported as found, not shrunk (fast-check's endOnFailure). */
  readonly shrink?: boolean;
  readonly tails?: readonly Tail[];
  readonly variant?: Variant;
  /** Generate scheduler decisions (default) or leave the whole schedule to the tail strategy. */
  readonly generateDecisions?: boolean;
  /** Watching the campaign from outside (the CLI's watchdog); nothing it does changes a verdict. */
  readonly probe?: FuzzProbe;
}

/**
 * Lets a watchdog follow a campaign run by run. Runs are numbered from 0 in the order fast-check makes
 * them (generated, then shrinking); the same options give the same numbering, so a run that hung can
 * be found again by its number in a fresh process and watched there.
 */
/** Which run a record is of: a campaign's, its failure run again, a campaign verdict's witness again, a replay. */
export type RecordPhase = 'run' | 'final' | 'witness' | 'replay';

export interface FuzzProbe {
  /** Called as run `index` starts. */
  readonly started?: (index: number) => void;
  /** Run `index` is watched: its scenario is handed over before it runs, then each trace event. */
  readonly watch?: {
    readonly index: number;
    readonly scenario: (scenario: Scenario | ConsumerScenario) => void;
    readonly event: (event: TraceEvent) => void;
  };
  /**
   * Every run as it is judged here — a campaign's run (generated or shrinking), the failing scenario
   * run again (`final`), a campaign verdict's witness run again (`witness`) — for a judge elsewhere
   * to judge again from the run's record (src/cli/worker/judge.ts).
   */
  readonly recorded?: (
    phase: RecordPhase,
    scenario: Scenario | ConsumerScenario,
    run: ScenarioRun | ConsumerRun,
  ) => void;
}

/**
 * `passed` only when the runs judged something: `vacuous` when nothing reached the implementation
 * under test (no call, or no call answered), `failed` when a run broke a rule — or when the campaign
 * as a whole shows a tool that never works (`tool-never-succeeds`).
 */
export type PropertyStatus = 'passed' | 'failed' | 'vacuous';

export interface PropertyResult {
  readonly id: string;
  readonly rules: readonly string[];
  readonly runs: number;
  readonly status: PropertyStatus;
  /** What the runs (up to the first failure) exercised of the implementations under test. */
  readonly exercised: Exercised;
  /**
   * In how many of those runs each attack, clock crossing, lifecycle follow-up and method race
   * happened, read from the runs' observations (src/check/frequencies.ts).
   */
  readonly frequencies: Frequencies;
  /** For `vacuous`: why the campaign judged nothing. */
  readonly vacuity?: string;
  /**
   * Campaign verdicts the runs were too few (or too one-sided) to give — a tool with no success yet
   * not enough fair attempts to call it broken (`tool-never-succeeds`) — each with why. Not a
   * failure; absent when there is none.
   */
  readonly inconclusive?: readonly InconclusiveVerdict[];
  readonly failure?: {
    readonly replay: ReplayFile;
    readonly run: ScenarioRun | ConsumerRun;
  };
  /** For a passed campaign below a floor: per floor missed, its witness run's replay (floor-witness.ts). */
  readonly floorWitnesses?: readonly ReplayFile[];
}

/** A campaign-level verdict not given: which tool (`provider|tool`), over how many calls, and why. */
export interface InconclusiveVerdict {
  readonly checker: typeof TOOL_NEVER_SUCCEEDS.checker;
  readonly tool: string;
  readonly calls: number;
  readonly why: string;
}

/**
 * A tool executed this often in fault-free runs of one campaign without one success does not work:
 * the generators offer valid args (most pools start with them), approving users and honest
 * resolutions far more often than not, so a working tool succeeds long before.
 */
export const NEVER_SUCCEEDS_AFTER = 10;

/** The campaign-level verdict on a tool that never succeeded (it names the rules of answering a call). */
export const TOOL_NEVER_SUCCEEDS = {
  checker: 'tool-never-succeeds',
  ruleIds: ['CETP-4-04', 'CETP-4.2-01', 'CETP-4.4-02'],
} as const;

/** A per-property seed derived from the campaign seed, so running a subset changes nothing. */
export function propertySeed(seed: number, propertyId: string): number {
  return createHash('sha256').update(`${seed}/${propertyId}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** The arbitrary and runner of a property, by kind. */
function engine(def: PropertyDef, options: FuzzOptions) {
  const tails = options.tails ?? ['fifo'];
  const decisions = options.generateDecisions ?? true;
  // --device-faults: the device faults of issue 35 join a fault list (a property without faults stays so).
  const devices = options.variant?.deviceFaults === true && def.shape.faults.length > 0 ? DEVICE_FAULTS : [];
  if (def.kind === 'consumer') {
    // With device faults the agent may also ask on the consumer's main thread (input ANR, issue 35 5a).
    const mainThread = devices.length > 0 ? { mainThreadCalls: true } : {};
    const shape = { ...def.shape, faults: [...def.shape.faults, ...devices], ...mainThread };
    return {
      arbitrary: consumerScenarioArb(shape, tails, decisions) as fc.Arbitrary<Scenario | ConsumerScenario>,
      run: (s: Scenario | ConsumerScenario, v: Variant, hooks?: RunHooks) =>
        runConsumerScenario(def.fixture, s as ConsumerScenario, v, hooks),
      faultFree: (s: Scenario | ConsumerScenario) => faultFreeScenario(def, s),
    };
  }
  return {
    arbitrary: scenarioArb(
      { ...def.shape, faults: [...def.shape.faults, ...devices] },
      tails,
      decisions,
    ) as fc.Arbitrary<Scenario | ConsumerScenario>,
    run: (s: Scenario | ConsumerScenario, v: Variant, hooks?: RunHooks) =>
      runScenario(def.fixture, s as Scenario, v, hooks),
    faultFree: (s: Scenario | ConsumerScenario) => faultFreeScenario(def, s),
  };
}

/** The scenarios a campaign of `def` draws (a judge regenerates them: src/cli/worker/judge-scenarios.ts). */
export const scenarioArbitrary = (def: PropertyDef, options: FuzzOptions) => engine(def, options).arbitrary;

/** Whether a scenario of `def` runs without faults (nor consumer restarts). */
export function faultFreeScenario(def: PropertyDef, s: Scenario | ConsumerScenario): boolean {
  if (def.kind !== 'consumer') return s.faults.length === 0;
  return s.faults.length === 0 && (s as ConsumerScenario).consumerRestartsAtMs.length === 0;
}

/** fast-check's parameters for a campaign: its seed, and a number of runs or a time limit. */
function checkParameters(seed: number, options: FuzzOptions) {
  return {
    seed,
    numRuns: options.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : options.runs,
    ...(options.timeLimitMs !== undefined
      ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }
      : {}),
    ...(options.shrink === false ? { endOnFailure: true } : {}),
  };
}
export async function fuzzProperty(def: PropertyDef, options: FuzzOptions): Promise<PropertyResult> {
  const variant = options.variant ?? REFERENCE;
  const seed = propertySeed(options.seed, def.id);
  const { arbitrary, run: runOne, faultFree } = engine(def, options);
  const tally = new ExerciseTally();
  const frequencies = new FrequencyTally();
  const floors = new FloorWitnesses<Scenario | ConsumerScenario>(def.floors ?? {});
  /** By verdict key (see ExerciseTally.neverSucceeded): the run that shows it best (src/fuzz/witness.ts). */
  const witnesses = new Map<string, WitnessCandidate<Scenario | ConsumerScenario>>();
  let counting = true;
  let index = 0;
  const probe = options.probe;
  const property = fc.asyncProperty(arbitrary, async (scenario) => {
    const run = await runOne(scenario, variant, probe ? watching(probe, index++, scenario) : undefined);
    probe?.recorded?.('run', scenario, run);
    const held = run.violations.length === 0;
    if (counting) {
      // Only the runs up to the first failure: shrinking re-runs variations of the failing one.
      const exercised = exercisedIn(run.observation, run.context, faultFree(scenario));
      tally.add(exercised);
      frequencies.add(floors.add(scenario, run));
      for (const [key, t] of [...exercised.tools, ...exercised.providers]) {
        const candidate = candidateOf(scenario, t, run.observation);
        const best = witnesses.get(key);
        if (candidate && (!best || betterWitness(candidate, best))) witnesses.set(key, candidate);
      }
      counting = held;
    }
    return held;
  });
  const details = await fc.check(property, checkParameters(seed, options));
  const common = {
    id: def.id,
    rules: def.ruleIds,
    runs: details.numRuns,
    exercised: tally.exercised,
    frequencies: frequencies.frequencies,
  };
  const fuzz = {
    seed,
    path: details.counterexamplePath ?? '',
    runsToFailure: details.numRuns,
    shrinks: details.numShrinks,
  };
  if (details.failed && details.counterexample !== null) {
    const [scenario] = details.counterexample as [Scenario | ConsumerScenario];
    const rerun = await runOne(scenario, variant);
    probe?.recorded?.('final', scenario, rerun);
    // A failure always names a verdict: the counterexample re-run passing is one (not reproducible).
    const run = rerun.violations.length > 0 ? rerun : { ...rerun, violations: [notReproducible(fuzz)] };
    const replay = replayOf(def, variant, scenario, run, fuzz, run.violations);
    return { ...common, status: 'failed', failure: { replay, run } };
  }
  const vacuity = vacuityOf(tally.exercised, details.numRuns);
  if (vacuity !== null) return { ...common, status: 'vacuous', vacuity };
  const [broken] = tally.neverSucceeded(NEVER_SUCCEEDS_AFTER);
  const witness = broken ? witnesses.get(broken.tool)?.scenario : undefined;
  if (!broken || !witness) {
    const missed = await floorReplays(def, floors, { variant, seed, f: common.frequencies, runOne });
    return { ...common, status: 'passed', ...inconclusiveOf(tally), ...missed };
  }
  // The campaign's verdict, witnessed by the run that shows it best (answered failures, then shortest).
  const run = await runOne(witness, variant);
  probe?.recorded?.('witness', witness, run);
  const violations = [neverSucceededVerdict(run, broken), ...run.violations];
  const replay = {
    ...replayOf(def, variant, witness, run, { ...fuzz, path: '' }, violations),
    campaign: { checker: TOOL_NEVER_SUCCEEDS.checker, tool: broken.tool },
  };
  return { ...common, status: 'failed', failure: { replay, run: { ...run, violations } } };
}

/** The campaign verdicts too few runs could give (tool-never-succeeds), if any. */
function inconclusiveOf(tally: ExerciseTally): { inconclusive?: InconclusiveVerdict[] } {
  const inconclusive = tally
    .inconclusive(NEVER_SUCCEEDS_AFTER)
    .map((i) => ({ checker: TOOL_NEVER_SUCCEEDS.checker, ...i }));
  return inconclusive.length > 0 ? { inconclusive } : {};
}

/** The replay of each floor's witness run (run again here, so the file carries its trace hash). */
async function floorReplays(
  def: PropertyDef,
  floors: FloorWitnesses<Scenario | ConsumerScenario>,
  campaign: {
    variant: Variant;
    seed: number;
    f: Frequencies;
    runOne: (s: Scenario | ConsumerScenario, v: Variant) => Promise<ScenarioRun | ConsumerRun>;
  },
): Promise<{ floorWitnesses?: ReplayFile[] }> {
  const { variant, seed, f, runOne } = campaign;
  const out: ReplayFile[] = [];
  for (const { verdict, scenario } of floors.missed(f)) {
    const run = await runOne(scenario, variant);
    const violation = floorViolation(verdict, runLabels(run.observation, run.context));
    const fuzz = { seed, path: '', runsToFailure: f.runs, shrinks: 0 };
    out.push({ ...replayOf(def, variant, scenario, run, fuzz, [violation]), floor: verdict });
  }
  return out.length > 0 ? { floorWitnesses: out } : {};
}

/** The verdict on a failing run whose scenario, run again at once, broke nothing. */
export const RUN_NOT_REPRODUCIBLE = 'run-not-reproducible';

export function notReproducible(fuzz: ReplayFile['fuzz']): Violation {
  return {
    checker: RUN_NOT_REPRODUCIBLE,
    ruleIds: [],
    class: 'correctness',
    message:
      `run ${fuzz.runsToFailure} failed, but its scenario (shrunk ${fuzz.shrinks} time(s)) run again at once broke ` +
      'nothing: the runs are not a function of their scenario. Something outside the simulation decides ' +
      'them (wall-clock time, Math.random, state kept between runs at module top level)', // determinism-ok: a message, not a call
    events: [],
    calls: [],
  };
}

/** The campaign verdict in words, for `provider|tool`, `provider|*` (executions) or `provider|**` (calls). */
export function neverSucceededMessage(key: string, calls: number): string {
  const [provider, tool] = key.split('|');
  if (tool === CONSUMER_KEY)
    return `the consumer ${provider} never completed a call: ${calls} calls to its providers, not one answered success — it leaves them unusable`;
  if (tool === '**')
    return `${provider} never answered success: ${calls} calls (negotiate, list_tools, execute_tool, …), not one succeeded`;
  if (tool === '*')
    return `no tool of ${provider} ever succeeded: ${calls} executions, not one answered success (or accepted with its operation seen succeeding)`;
  return `${tool} on ${provider} never succeeded in fault-free runs: ${calls} executions, not one answered success (or accepted with its operation seen succeeding), at least ${NEVER_SUCCEEDS_AFTER} of them failing by the provider's own fault`;
}

/** The calls a verdict key names in a run: a tool's executions, a provider's executions or all its calls. */
export function executionsOf(
  run: { readonly observation: { readonly calls: readonly CallView[] } },
  key: string,
): CallView[] {
  const [provider, tool] = key.split('|');
  if (tool === CONSUMER_KEY) return run.observation.calls.filter((c) => c.caller === provider);
  if (tool === '**') return run.observation.calls.filter((c) => c.provider === provider);
  if (tool === '*')
    return run.observation.calls.filter((c) => c.provider === provider && c.method === 'execute_tool');
  return run.observation.calls.filter((c) => c.method === 'execute_tool' && c.toolKey === key);
}

/** The campaign's verdict (TOOL_NEVER_SUCCEEDS) on `broken`, with its cause in the witness run `run`. */
export function neverSucceededVerdict(
  run: { readonly observation: Observation },
  broken: { readonly tool: string; readonly calls: number },
): Violation {
  const calls = executionsOf(run, broken.tool);
  return {
    ...TOOL_NEVER_SUCCEEDS,
    class: 'liveness',
    message: `${neverSucceededMessage(broken.tool, broken.calls)}. Witness run: its ${calls.length} call(s) ended ${endings(calls)}; faults: ${faultsOf(run.observation)}`,
    events: causeEvents(run.observation, calls),
    calls: calls.map((c) => c.id),
  };
}

/** The witnessed tool's executions in a run, when none of them succeeded (the campaign verdict holds). */
export function stillNeverSucceeds(
  run: { readonly observation: Observation },
  key: string,
): Violation | null {
  const calls = executionsOf(run, key);
  const succeeded = successTest(run.observation);
  const ok = calls.some((c) =>
    c.method === 'execute_tool' ? succeeded(c) : c.reply.kind === 'bundle' && c.reply.status === 'success',
  );
  if (calls.length === 0 || ok) return null;
  return {
    ...TOOL_NEVER_SUCCEEDS,
    class: 'liveness',
    message: `${neverSucceededMessage(key, calls.length)} (in this run; the campaign saw it never succeed). Its calls ended ${endings(calls)}; faults: ${faultsOf(run.observation)}`,
    events: causeEvents(run.observation, calls),
    calls: calls.map((c) => c.id),
  };
}

/** The run hooks that let a probe see run `index` start (and watch it, if it is the one). */
function watching(probe: FuzzProbe, index: number, scenario: Scenario | ConsumerScenario): RunHooks {
  probe.started?.(index);
  const watch = probe.watch;
  if (watch?.index !== index) return {};
  watch.scenario(scenario);
  return {
    world(world) {
      world.trace.onRecord = watch.event;
    },
  };
}

/** Why a campaign judged nothing, or null when it exercised the implementation under test. */
export function vacuityOf(exercised: Exercised, runs: number): string | null {
  if (runs === 0) return 'no run finished in the time given';
  if (exercised.calls === 0) return `${runs} runs sent no call to the implementation under test`;
  if (exercised.answered === 0)
    return `${exercised.calls} calls reached the implementation under test and none was answered with a Bundle`;
  return null;
}

export function replayOf(
  def: PropertyDef,
  variant: Variant,
  scenario: Scenario | ConsumerScenario,
  run: { readonly report: { readonly traceHash: string } },
  fuzz: ReplayFile['fuzz'],
  violations: readonly Violation[],
): ReplayFile {
  return {
    format: REPLAY_FORMAT,
    property: def.id,
    rules: def.ruleIds,
    fuzz,
    variant,
    scenario,
    traceHash: run.report.traceHash,
    violations: violations.map(({ checker, ruleIds, class: cls, message }) => ({
      checker,
      ruleIds,
      class: cls,
      message,
    })),
  };
}

/** Re-runs a replay file's scenario bit for bit and judges it again (with its campaign verdict, if any). */
export async function replayScenario(
  def: PropertyDef,
  replay: Pick<ReplayFile, 'scenario' | 'variant' | 'campaign' | 'floor'>,
  hooks: RunHooks = {},
): Promise<ScenarioRun | ConsumerRun> {
  const run = await engine(def, { seed: 0, runs: 1 }).run(replay.scenario, replay.variant, hooks);
  const campaign = replay.campaign ? stillNeverSucceeds(run, replay.campaign.tool) : null;
  const floor = replay.floor ? floorViolation(replay.floor, runLabels(run.observation, run.context)) : null;
  const verdict = campaign ?? floor;
  return verdict ? { ...run, violations: [verdict, ...run.violations] } : run;
}
