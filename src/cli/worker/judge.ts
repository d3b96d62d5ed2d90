/**
 * The judge apart from the judged (issue #31): a campaign against a user's module runs in a worker
 * thread, where the module is loaded; it is judged here, in the CLI's own thread, where no user
 * module ever is (the CLI loads user code only in workers). The worker hands over every run it made
 * as a record of plain data (src/check/record.ts) — a structured clone, so nothing of its realm comes
 * along: no function, no prototype, no patched checker — and this thread judges each one again with
 * its own oracles, from the record alone, and makes the property's verdict from its own judgements:
 * whether a run failed, what the campaign exercised, how often each attack happened, a tool that
 * never works, a campaign that judged nothing. The worker's own answer is only a proposal: of it the
 * judge keeps what fast-check found (the shrunk counterexample and its path) and what only the
 * module's realm can tell (what its code threw, the module's own oracles, the watches of its globals
 * and of its calls out of the simulation); a module that patched the worker's checkers, verdict or
 * property loop can then break its own runs, never the judgement of them.
 *
 * What it cannot be: a witness of what happened in the worker. A record is the worker's testimony; a
 * module set on lying can make its realm record something that did not happen (docs/verdicts.md).
 */

import { caches } from '../../base/caches.ts';
import type { Checker, Violation } from '../../check/checker.ts';
import { ALL_CHECKERS, runCheckers } from '../../check/checkers/index.ts';
import { ExerciseTally, exercisedIn } from '../../check/exercised.ts';
import { FrequencyTally, runLabels } from '../../check/frequencies.ts';
import { type Observation, observeRecord, withFaultFree } from '../../check/observation.ts';
import { INVARIANT_PREFIX, MODEL_PREFIX } from '../../check/user-oracles.ts';
import { FloorWitnesses, floorViolation } from '../../fuzz/floor-witness.ts';
import {
  faultFreeScenario,
  NEVER_SUCCEEDS_AFTER,
  neverSucceededVerdict,
  notReproducible,
  propertySeed,
  type ReplayFile,
  replayOf,
  TOOL_NEVER_SUCCEEDS,
  vacuityOf,
} from '../../fuzz/fuzz.ts';
import { replayablePropertyById } from '../../fuzz/registry.ts';
import type { PropertyDef } from '../../fuzz/suites.ts';
import { betterWitness, candidateOf, type WitnessCandidate } from '../../fuzz/witness.ts';
import { CliError } from '../../harness/errors.ts';
import { MODULE_ESCAPES_CHECKER } from '../../harness/escapes.ts';
import { MODULE_GLOBALS_CHECKER } from '../../harness/globals.ts';
import { forgedVerdict, MODULE_FORGES_VERDICT } from './forged.ts';
import { ScenarioCheck } from './judge-scenarios.ts';
import type { FuzzJob, PropertyOutcome, RecordMessage } from './protocol.ts';

// The verdict's name, where the judges' tests look for it (its home is forged.ts).
export { MODULE_FORGES_VERDICT };

/**
 * Verdicts only the module's realm can give, which the judge takes from the worker as they come: the
 * module's own oracles (user code: `invariant:…`, `model:…`) and the watches on its globals and its
 * calls out of the simulation. Any other checker id the worker names is the judge's to give.
 */
export function isModuleVerdict(checker: string): boolean {
  return (
    checker === MODULE_GLOBALS_CHECKER ||
    checker === MODULE_ESCAPES_CHECKER ||
    checker.startsWith(INVARIANT_PREFIX) ||
    checker.startsWith(MODEL_PREFIX)
  );
}

/** A run as the judge judged it. */
interface Judged {
  readonly scenario: ReplayFile['scenario'];
  readonly message: RecordMessage;
  readonly observation: Observation;
  readonly violations: readonly Violation[];
}

/** How many runs this thread's judges judged (the judge-realm test reads it; nothing else does). */
const JUDGED = caches.lazy('cli/worker: runs judged in this thread', () => ({ runs: 0 }));

export function runsJudgedHere(): number {
  return JUDGED.made ? JUDGED.get().runs : 0;
}

/** Counts a run judged in this thread. */
export function noteJudged(): void {
  JUDGED.get().runs++;
}

/** Judges one campaign (one fuzz job) from the records its worker hands over, in the order it made them. */
export class CampaignJudge {
  private readonly def: PropertyDef;
  private readonly checkers: readonly Checker[];
  private readonly tally = new ExerciseTally();
  private readonly frequencies = new FrequencyTally();
  /** Per floored label, the run that came closest (src/fuzz/floor-witness.ts). */
  private readonly floors: FloorWitnesses<Judged>;
  /** By verdict key: the first run that called it in vain (ExerciseTally.neverSucceeded). */
  private readonly witnesses = new Map<string, WitnessCandidate<Judged>>();
  private counting = true;
  private runs = 0;
  private firstFailure: Judged | null = null;
  /** The campaign's first run, as judged (what a fresh instance of the modules did with its scenario). */
  private first: Judged | null = null;
  private final: Judged | null = null;
  /** Records the judge could not read (a forged or broken message): each is a failure. */
  private readonly unreadable: string[] = [];
  /** The counted runs' scenarios, drawn again at the end (judge-scenarios.ts). */
  private readonly scenarios = new ScenarioCheck();

  constructor(private readonly job: FuzzJob) {
    const def = replayablePropertyById(job.property);
    if (!def) throw new CliError('unknown_property', `unknown property '${job.property}'`);
    this.def = def;
    this.checkers = def.fixture.checkers ?? ALL_CHECKERS;
    this.floors = new FloorWitnesses(def.floors ?? {});
  }

  /** Judges one record (a `record` message of the job's worker). */
  take(message: RecordMessage): void {
    let judged: Judged;
    try {
      judged = this.judge(message);
    } catch (error) {
      this.unreadable.push(error instanceof Error ? error.message : String(error));
      this.counting = false;
      return;
    }
    noteJudged();
    if (message.phase === 'final') this.final = judged;
    if (message.phase !== 'run' || !this.counting) return;
    this.runs++;
    if (this.runs === 1) this.first = judged;
    this.scenarios.note(message.scenario);
    const { observation, violations } = judged;
    const exercised = exercisedIn(observation, message.context, faultFreeScenario(this.def, judged.scenario));
    this.tally.add(exercised);
    this.frequencies.add(this.floors.add(judged, { observation, context: message.context }));
    // The witness of a campaign verdict: the run that shows it best, chosen as the engine does.
    for (const [key, t] of [...exercised.tools, ...exercised.providers]) {
      const candidate = candidateOf(judged, t, observation);
      const best = this.witnesses.get(key);
      if (candidate && (!best || betterWitness(candidate, best))) this.witnesses.set(key, candidate);
    }
    if (violations.length > 0) {
      this.counting = false;
      this.firstFailure = judged;
    }
  }

  /**
   * The campaign's first run, if its scenario is `scenario`: its verdict and trace hash. In a worker
   * whose first job this was (nothing ran before it in that instance of the modules), that is what
   * running the scenario at once in a fresh instance gives (user-modules.ts checkModuleIsolation).
   */
  firstRunOf(
    scenario: ReplayFile['scenario'],
  ): { violations: readonly Violation[]; traceHash: string } | null {
    const first = this.first;
    if (first === null || JSON.stringify(first.scenario) !== JSON.stringify(scenario)) return null;
    return { violations: first.violations, traceHash: first.observation.report.traceHash };
  }

  private judge(message: RecordMessage): Judged {
    const observation = withFaultFree(observeRecord(message.record), message.faultFree);
    const own = runCheckers(observation, message.context, this.checkers);
    const theirs = message.own.filter((v) => isModuleVerdict(v.checker));
    return { scenario: message.scenario, message, observation, violations: [...own, ...theirs] };
  }

  /**
   * The property's outcome, from the judge's own judgements; `proposed` is what the worker answered
   * (kept: fast-check's counterexample and path, what the module threw).
   */
  outcome(proposed: PropertyOutcome): PropertyOutcome {
    const common = {
      id: this.def.id,
      runs: this.runs,
      exercised: this.tally.exercised,
      frequencies: this.frequencies.frequencies,
    };
    const seed = propertySeed(this.job.seed, this.def.id);
    if (this.unreadable.length > 0) {
      const violation = forgedVerdict(
        `the worker handed over a record the judge could not read: ${this.unreadable[0]}`,
      );
      return { ...common, status: 'failed', reason: violation.message, violations: [violation] };
    }
    const failed = proposed.failure && !proposed.failure.replay.campaign ? proposed.failure : undefined;
    const path =
      failed && this.final ? { scenario: this.final.scenario, path: failed.replay.fuzz.path } : undefined;
    const lie = this.scenarios.verify(this.job, this.def, proposed.catalogue, path);
    if (lie) return { ...common, status: 'failed', reason: lie.message, violations: [lie] };
    // A failure the worker reports without a record to judge it by stands: a module can always fail
    // its own runs, and a failure is never a forged pass.
    if (failed && !this.final && !this.firstFailure) {
      const { catalogue: _catalogue, ...claim } = proposed;
      return claim;
    }
    if (this.firstFailure || (failed && this.final)) {
      // The worker's shrunk counterexample when it found one (judged again here), else the first run
      // the judge saw failing, as it was generated.
      const proposedFinal = failed && this.final ? this.final : null;
      const run = proposedFinal ?? (this.firstFailure as Judged);
      const fuzz: ReplayFile['fuzz'] = {
        seed,
        path: proposedFinal && failed ? failed.replay.fuzz.path : '',
        runsToFailure: this.runs,
        shrinks: proposedFinal && failed ? failed.replay.fuzz.shrinks : 0,
      };
      const violations = run.violations.length > 0 ? run.violations : [notReproducible(fuzz)];
      const all = proposedFinal ? violations : [...violations, forgedVerdict(forgedMessage(this.runs))];
      return {
        ...common,
        status: 'failed',
        failure: {
          replay: replayOf(this.def, this.job.variant, run.scenario, run.observation, fuzz, all),
          violations: moduleVerdictsFirst(all),
          events: run.message.record.events,
          steps: run.message.record.report.steps,
          ...(proposedFinal && failed?.thrown ? { thrown: failed.thrown } : {}),
        },
      };
    }
    const vacuity = vacuityOf(this.tally.exercised, this.runs);
    if (vacuity !== null) return { ...common, status: 'vacuous', reason: vacuity };
    const [broken] = this.tally.neverSucceeded(NEVER_SUCCEEDS_AFTER);
    const witness = broken ? this.witnesses.get(broken.tool)?.scenario : undefined;
    if (!broken || !witness) {
      const inconclusive = this.tally
        .inconclusive(NEVER_SUCCEEDS_AFTER)
        .map((i) => ({ checker: TOOL_NEVER_SUCCEEDS.checker, ...i }));
      const floors = this.floorWitnesses(seed);
      return { ...common, status: 'passed', ...(inconclusive.length > 0 ? { inconclusive } : {}), ...floors };
    }
    return { ...common, status: 'failed', failure: this.campaignFailure(seed, broken, witness, proposed) };
  }

  /** Per floor the campaign missed, its witness run's replay (from the run's record: nothing re-runs here). */
  private floorWitnesses(seed: number): Pick<PropertyOutcome, 'floorWitnesses'> {
    const out = this.floors.missed(this.frequencies.frequencies).map(({ verdict, scenario: w }) => {
      const violation = floorViolation(verdict, runLabels(w.observation, w.message.context));
      const fuzz = { seed, path: '', runsToFailure: verdict.runs, shrinks: 0 };
      const base = replayOf(this.def, this.job.variant, w.scenario, w.observation, fuzz, [violation]);
      return { label: verdict.label, replay: { ...base, floor: verdict } };
    });
    return out.length > 0 ? { floorWitnesses: out } : {};
  }

  /** The campaign's verdict (TOOL_NEVER_SUCCEEDS) as a failure, witnessed by `witness`. */
  private campaignFailure(
    seed: number,
    broken: { readonly tool: string; readonly calls: number },
    witness: Judged,
    proposed: PropertyOutcome,
  ): NonNullable<PropertyOutcome['failure']> {
    // The campaign's verdict, witnessed by the run that shows it best (answered failures, then
    // shortest; its record as it was handed over), in the engine's words (src/fuzz/fuzz.ts).
    const violations = [neverSucceededVerdict(witness, broken), ...witness.violations];
    const fuzz = { seed, path: '', runsToFailure: this.runs, shrinks: 0 };
    return {
      replay: {
        ...replayOf(this.def, this.job.variant, witness.scenario, witness.observation, fuzz, violations),
        campaign: { checker: TOOL_NEVER_SUCCEEDS.checker, tool: broken.tool },
      },
      violations: moduleVerdictsFirst(violations),
      events: witness.message.record.events,
      steps: witness.message.record.report.steps,
      // What the module threw in its witness run, when the worker named the same verdict.
      ...(proposed.failure?.replay.campaign?.tool === broken.tool && proposed.failure.thrown
        ? { thrown: proposed.failure.thrown }
        : {}),
    };
  }
}

function forgedMessage(run: number): string {
  return (
    `the worker running the module did not report run ${run} failing (or handed over no record of its ` +
    "failing run), yet the run's record shows it failing: something in the module's thread changed the " +
    'verdict there (judged again here, in a thread no user code runs in, from the record alone)'
  );
}

/**
 * A run whose user code escaped the simulation or patched what judges it is first of all that: its
 * other violations may be consequences (reported after it).
 */
export function moduleVerdictsFirst(violations: readonly Violation[]): readonly Violation[] {
  const own = (v: Violation) =>
    v.checker === MODULE_ESCAPES_CHECKER ||
    v.checker === MODULE_GLOBALS_CHECKER ||
    v.checker === MODULE_FORGES_VERDICT;
  return [...violations.filter(own), ...violations.filter((v) => !own(v))];
}
