/**
 * Crash points with a user's module, judged in the CLI's thread (issue #31; the campaign's judge is
 * judge.ts, the replay's judge-replay.ts): the worker that loaded the module runs every point of the
 * flow and hands over each run's record as it ends; here, where no user code is loaded, each record
 * is judged again with this thread's own crash-point oracles (crashpoint-oracles.ts), and the side's
 * report — its points, live and applied kills, failing steps and first failure — is made from those
 * judgements alone. The worker's report is only a claim: a step it reports holding that its record
 * shows failing (or a point it handed over no record of) is `module-forges-verdict`.
 *
 * What the judge takes from the worker: which tool makes the flow (found by fault-free runs in the
 * module's realm) and the verdicts only that realm can give (judge.ts isModuleVerdict).
 */
import type { Checker, Violation } from '../../check/checker.ts';
import { ALL_CHECKERS, runCheckers } from '../../check/checkers/index.ts';
import { observeRecord, withFaultFree } from '../../check/observation.ts';
import { CRASHPOINTS_CONSUMER, CRASHPOINTS_RAW } from '../../fuzz/crashpoint-oracles.ts';
import {
  type CrashSide,
  type FlowReport,
  type PointFailure,
  pointReplayOf,
  type SideReport,
} from '../../fuzz/crashpoints.ts';
import type { Variant } from '../../fuzz/scenario/model.ts';
import { forgedVerdict } from './forged.ts';
import { isModuleVerdict, moduleVerdictsFirst, noteJudged } from './judge.ts';
import type { CrashpointsJob, RecordMessage, WorkerMessage } from './protocol.ts';
import type { Host, JobEnd, JobWatch } from './worker-host.ts';

/** A point's run as the judge judged it. */
interface JudgedPoint {
  readonly message: RecordMessage;
  readonly step: number;
  /** Its place among the flow's point runs (both sides), as the worker numbers them. */
  readonly index: number;
  readonly violations: readonly Violation[];
  readonly traceHash: string;
}

function judgePoint(message: RecordMessage, index: number, checkers: readonly Checker[]): JudgedPoint {
  const observation = withFaultFree(observeRecord(message.record), message.faultFree);
  const own = runCheckers(observation, message.context, checkers);
  const theirs = message.own.filter((v) => isModuleVerdict(v.checker));
  noteJudged();
  return {
    message,
    step: message.point?.step ?? -1,
    index,
    violations: [...own, ...theirs],
    traceHash: observation.report.traceHash,
  };
}

function failureOf(side: CrashSide, variant: Variant, p: JudgedPoint, violations: readonly Violation[]) {
  const def = side === 'provider' ? CRASHPOINTS_RAW : CRASHPOINTS_CONSUMER;
  const report = { traceHash: p.traceHash };
  const all = moduleVerdictsFirst(violations);
  return {
    step: p.step,
    violations: all,
    replay: pointReplayOf(def, variant, p.message.scenario, { report, violations: all }, p.index),
    events: p.message.record.events,
  } satisfies PointFailure;
}

/** Whether the kill before `step` found `process` running (the worker's `live`, from the trace). */
function killedLive(p: JudgedPoint, process: string): boolean {
  return p.message.record.events.some(
    (e) => e.kind === 'process.kill' && e.step === p.step && e.data.actor === process,
  );
}

/** One side's report from its judged points; `claim` is the worker's report of it. */
function judgeSide(claim: SideReport, points: readonly JudgedPoint[], variant: Variant): SideReport {
  const base = points.find((p) => p.step === -1);
  const claimed = new Set(claim.failedSteps);
  const { side, process } = claim;
  if (!base) {
    const violation = forgedVerdict(`the worker handed over no record of the ${side} side's fault-free run`);
    return {
      side,
      process,
      points: claim.points,
      live: 0,
      applied: 0,
      failedSteps: [-1],
      ...noRun(claim, violation),
    };
  }
  const count = base.message.record.report.steps;
  if (base.violations.length > 0) {
    const extra = claimed.has(-1) ? [] : [forgedVerdict(forgedMessage(side, -1))];
    const failure = failureOf(side, variant, base, [...base.violations, ...extra]);
    return { side, process, points: count, live: 0, applied: 0, failedSteps: [-1], failure };
  }
  let live = 0;
  let applied = 0;
  const failedSteps: number[] = [];
  let failure: PointFailure | undefined;
  for (let step = 0; step < count; step++) {
    const p = points.find((q) => q.step === step);
    if (!p) {
      failedSteps.push(step);
      failure ??= failureOf(side, variant, base, [
        forgedVerdict(`the worker handed over no record of ${side} point ${step}`),
      ]);
      continue;
    }
    if (p.message.record.report.unappliedFaults.length === 0) applied++;
    if (killedLive(p, process)) live++;
    if (p.violations.length === 0) continue;
    failedSteps.push(step);
    const extra = claimed.has(step) ? [] : [forgedVerdict(forgedMessage(side, step))];
    failure ??= failureOf(side, variant, p, [...p.violations, ...extra]);
  }
  return { side, process, points: count, live, applied, failedSteps, ...(failure ? { failure } : {}) };
}

/** A side without a fault-free record: the worker's failure if it claimed one, with the forgery first. */
function noRun(claim: SideReport, violation: Violation): { failure?: PointFailure } {
  if (!claim.failure) return {};
  return { failure: { ...claim.failure, violations: [violation, ...claim.failure.violations] } };
}

function forgedMessage(side: CrashSide, step: number): string {
  const which = step === -1 ? `the ${side} side's fault-free run` : `${side} point ${step}`;
  return (
    `the worker running the module reported ${which} holding, yet its record shows it failing: ` +
    "something in the module's thread changed the verdict there (judged again here, in a thread no " +
    'user code runs in, from the record alone)'
  );
}

/** The flow's report from the records (`records`, in the order the worker made them). */
export function judgeFlow(
  job: CrashpointsJob,
  claim: FlowReport,
  records: readonly RecordMessage[],
): FlowReport {
  if (claim.flow === null) return claim;
  const judged = { provider: [] as JudgedPoint[], consumer: [] as JudgedPoint[] };
  records.forEach((m, index) => {
    const side = m.point?.side;
    if (side === undefined) return;
    const def = side === 'provider' ? CRASHPOINTS_RAW : CRASHPOINTS_CONSUMER;
    judged[side].push(judgePoint(m, index, def.fixture.checkers ?? ALL_CHECKERS));
  });
  const sides = claim.sides.map((s) => judgeSide(s, judged[s.side], job.variant));
  return { kind: claim.kind, flow: claim.flow, sides };
}

/** Runs a crash-point job on `host` and judges it here when it runs user code (else its own answer stands). */
export async function runJudgedCrashpoints(
  host: Host,
  job: CrashpointsJob,
  watch: JobWatch,
): Promise<JobEnd<FlowReport>> {
  const records: RecordMessage[] = [];
  const end = await host.run<FlowReport>(job, {
    ...watch,
    onMessage: (m: WorkerMessage) => {
      if (m.type === 'record') records.push(m);
      else watch.onMessage?.(m);
    },
  });
  if (end.kind !== 'done' || job.modules.provider === undefined) return end;
  return { ...end, result: judgeFlow(job, end.result, records) };
}
