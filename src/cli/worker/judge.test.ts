/**
 * The judge apart from the judged (issue #31), unit by unit: a run's record survives the structured
 * clone that carries it out of the worker — judged again from the clone, every run gets the verdict it
 * got where it ran — and the judge in the CLI's thread makes the property's verdict from the records
 * alone: an honest worker's answer comes out unchanged, a worker that hides a failing run or hands over
 * garbage fails, and a replay answered without its record fails.
 */
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS, runCheckers } from '../../check/checkers/index.ts';
import { exercisedIn } from '../../check/exercised.ts';
import { runLabels } from '../../check/frequencies.ts';
import { observeRecord, withFaultFree } from '../../check/observation.ts';
import { fuzzProperty, type PropertyResult, type RecordPhase } from '../../fuzz/fuzz.ts';
import { mutantById } from '../../fuzz/mutants.ts';
import type { ConsumerScenario } from '../../fuzz/scenario/consumer.ts';
import type { Scenario } from '../../fuzz/scenario/model.ts';
import { REFERENCE } from '../../fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../../fuzz/suites.ts';
import { CampaignJudge, isModuleVerdict, MODULE_FORGES_VERDICT, moduleVerdictsFirst } from './judge.ts';
import { judgeReplay } from './judge-replay.ts';
import type { FuzzJob, PropertyOutcome, RecordMessage } from './protocol.ts';

function def(id: string): PropertyDef {
  const found = propertyById(id);
  if (!found) throw new Error(`no property ${id}`);
  return found;
}

/** A campaign as the worker runs it, with every record as the judge receives it (a structured clone). */
async function campaign(id: string, runs: number, mutant?: string) {
  const variant = mutant ? (mutantById(mutant)?.variant ?? REFERENCE) : REFERENCE;
  const records: RecordMessage[] = [];
  const live: {
    phase: RecordPhase;
    violations: unknown;
    exercised: unknown;
    labels: unknown;
    hash: string;
  }[] = [];
  const property = def(id);
  const result = await fuzzProperty(property, {
    seed: 7,
    runs,
    variant,
    probe: {
      recorded: (phase, scenario, run) => {
        const faultFree =
          scenario.faults.length === 0 &&
          ((scenario as ConsumerScenario).consumerRestartsAtMs ?? []).length === 0;
        live.push({
          phase,
          violations: run.violations,
          exercised: exercisedIn(run.observation, run.context, faultFree),
          labels: runLabels(run.observation, run.context),
          hash: run.report.traceHash,
        });
        records.push(
          structuredClone({
            type: 'record',
            phase,
            scenario: scenario as Scenario | ConsumerScenario,
            record: run.observation.record,
            ...(run.observation.faultFree ? { faultFree: run.observation.faultFree } : {}),
            context: run.context,
            own: run.violations.filter((v) => isModuleVerdict(v.checker)),
          }),
        );
      },
    },
  });
  const job: FuzzJob = {
    kind: 'fuzz',
    property: id,
    seed: 7,
    runs,
    tails: ['fifo'],
    variant,
    modules: {},
    cwd: '.',
  };
  return { property, result, records, live, job };
}

/** The worker's answer, as jobs.ts makes it from the campaign's result. */
function proposal(result: PropertyResult): PropertyOutcome {
  const failure = result.failure;
  return {
    id: result.id,
    runs: result.runs,
    status: result.status,
    exercised: result.exercised,
    frequencies: result.frequencies,
    ...(result.vacuity !== undefined ? { reason: result.vacuity } : {}),
    ...(result.inconclusive ? { inconclusive: result.inconclusive } : {}),
    ...(failure
      ? {
          failure: {
            replay: failure.replay,
            violations: moduleVerdictsFirst(failure.run.violations),
            events: failure.run.world.trace.events,
            steps: failure.run.report.steps,
          },
        }
      : {}),
  };
}

const CASES: readonly (readonly [string, number, string?])[] = [
  ['idempotency', 12, 'dedup-check-then-insert'],
  ['confirmation', 8],
  ['large-results', 8],
  ['hostile', 8],
  ['consumer', 8],
  ['identity', 8],
];

describe('a run judged from its record, in another realm', () => {
  it.each(CASES)(
    '%s: every run judged again from a structured clone of its record gets the same violations, exercised counts, attack labels and trace hash',
    async (id, runs, mutant) => {
      const { property, records, live } = await campaign(
        String(id),
        Number(runs),
        mutant === undefined ? undefined : String(mutant),
      );
      expect(records.length).toBeGreaterThan(0);
      const checkers = property.fixture.checkers ?? ALL_CHECKERS;
      records.forEach((message, i) => {
        const was = live[i];
        const observation = withFaultFree(observeRecord(message.record), message.faultFree);
        const violations = [...runCheckers(observation, message.context, checkers), ...message.own];
        expect(violations, `${id} run ${i}`).toEqual(was?.violations);
        expect(observation.report.traceHash).toBe(was?.hash);
        if (message.phase !== 'run') return;
        const faultFree =
          message.scenario.faults.length === 0 &&
          ((message.scenario as ConsumerScenario).consumerRestartsAtMs ?? []).length === 0;
        expect(exercisedIn(observation, message.context, faultFree)).toEqual(was?.exercised);
        expect(runLabels(observation, message.context)).toEqual(was?.labels);
      });
    },
    120_000,
  );

  it("the judge's outcome from the records is the worker's own answer when nobody forged anything (a failure, a pass)", async () => {
    const cases: readonly (readonly [string, number, string | undefined])[] = [
      ['idempotency', 40, 'dedup-check-then-insert'],
      ['versions', 10, undefined],
    ];
    for (const [id, runs, mutant] of cases) {
      const { result, records, job } = await campaign(id, runs, mutant);
      const judge = new CampaignJudge(job);
      for (const r of records) judge.take(r);
      const proposed = proposal(result);
      const judged = judge.outcome(proposed);
      expect(judged.status, id).toBe(result.status);
      expect({ ...judged, failure: undefined }).toEqual({ ...proposed, failure: undefined });
      expect(judged.failure?.replay).toEqual(proposed.failure?.replay);
      expect(judged.failure?.violations).toEqual(proposed.failure?.violations);
      expect(judged.failure?.events.length).toBe(proposed.failure?.events.length);
    }
  }, 120_000);
});

describe('what a forging worker gets', () => {
  it('a worker answering "passed" while handing over a failing record: the property fails with module-forges-verdict and the oracles that saw it', async () => {
    const { result, records, job } = await campaign('idempotency', 40, 'dedup-check-then-insert');
    expect(result.status).toBe('failed');
    const judge = new CampaignJudge(job);
    // The worker's loop was patched: it never shrank, never re-ran, and says every run held.
    for (const r of records.filter((m) => m.phase === 'run')) judge.take(r);
    const forged: PropertyOutcome = {
      id: 'idempotency',
      runs: 40,
      status: 'passed',
      exercised: result.exercised,
      frequencies: result.frequencies,
    };
    const judged = judge.outcome(forged);
    expect(judged.status).toBe('failed');
    const checkers = judged.failure?.violations.map((v) => v.checker) ?? [];
    expect(checkers[0]).toBe(MODULE_FORGES_VERDICT);
    expect(checkers).toContain('single-effect');
    expect(judged.failure?.replay.fuzz.runsToFailure).toBe(result.failure?.replay.fuzz.runsToFailure);
    // The same answer on a campaign of a correct implementation is left as it is (no false alarm).
    const honest = await campaign('idempotency', 10);
    const control = new CampaignJudge(honest.job);
    for (const r of honest.records) control.take(r);
    expect(control.outcome(proposal(honest.result)).status).toBe('passed');
  }, 120_000);

  it('a worker that hands over no record at all judged nothing; a record the judge cannot read fails the property, never the CLI', () => {
    const job: FuzzJob = {
      kind: 'fuzz',
      property: 'versions',
      seed: 1,
      runs: 5,
      tails: ['fifo'],
      variant: REFERENCE,
      modules: {},
      cwd: '.',
    };
    const claim = (status: 'passed'): PropertyOutcome => ({
      id: 'versions',
      runs: 5,
      status,
      exercised: { calls: 9, answered: 9 } as PropertyOutcome['exercised'],
    });
    const silent = new CampaignJudge(job).outcome(claim('passed'));
    expect(silent.status).toBe('vacuous');
    expect(silent.reason).toMatch(/no run finished/);
    const judge = new CampaignJudge(job);
    judge.take({
      type: 'record',
      phase: 'run',
      scenario: {} as Scenario,
      record: {} as never,
      context: {} as never,
      own: [],
    });
    const garbage = judge.outcome(claim('passed'));
    expect(garbage.status).toBe('failed');
    expect(garbage.violations?.map((v) => v.checker)).toEqual([MODULE_FORGES_VERDICT]);
    expect(garbage.reason).toMatch(/could not read/);
  });

  it("a verdict of cetp-sim's own oracles the worker sends along is not taken: only the module's realm's own verdicts are", () => {
    expect(isModuleVerdict('single-effect')).toBe(false);
    expect(isModuleVerdict(MODULE_FORGES_VERDICT)).toBe(false);
    for (const own of ['module-globals', 'module-escapes-simulation', 'invariant:rows', 'model:notes'])
      expect(isModuleVerdict(own)).toBe(true);
  });

  it('a replay answered without its record fails, saying so', () => {
    const outcome = judgeReplay(
      {
        kind: 'replay',
        path: 'x.replay.json',
        property: 'versions',
        replay: {} as never,
        stream: false,
        modules: { provider: 'm.ts' },
        cwd: '.',
      },
      null,
    );
    expect(outcome.violations.map((v) => v.checker)).toEqual([MODULE_FORGES_VERDICT]);
  });
});
