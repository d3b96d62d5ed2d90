/**
 * A vector run's verdict, as pure functions of data (issue #31): what each step of a provider vector
 * judges (a reply, the answers of a parallel step, a file's digest) and what a consumer vector
 * judges (the requests sent, the screens opened, the agent's outcome). The engines (engine.ts,
 * consumer-engine.ts) call them as the run goes, and record what they judged — the replies as
 * tagged values, the variables the run started with — as a `VectorRecord`: plain data a thread
 * that never loaded the provider under test judges again with the same functions
 * (src/cli/worker/judge-vectors.ts).
 */
import type { ConsumerVector, LaunchedApp } from './consumer-format.ts';
import type { Expect, FdExpect, JsonExpect, Step, Vector } from './format.ts';
import { type Mismatch, match, matchJsonValue } from './matchers.ts';
import type { Actual, Vars } from './typed.ts';

export interface FdDigest {
  readonly size: number;
  readonly sha256: string;
}

export interface StepFailure extends Mismatch {
  readonly step: number;
}

/** Where each step's expectation comes from. */
export interface Judge {
  reply(index: number, actual: Actual, vars: Vars): Expect;
  parallel(
    index: number,
    actuals: readonly Actual[],
    vars: Vars,
  ): readonly { count: number; reply: Expect }[];
  fd(index: number, got: FdDigest, vars: Vars): FdExpect;
}

/** The judge of `vectors run`: each step's recorded expectation. */
export function vectorJudge(vector: Vector): Judge {
  const step = (i: number) => vector.steps[i] as Step;
  return {
    reply: (i) => {
      const s = step(i);
      return 'expect' in s && !Array.isArray(s.expect) ? (s.expect as Expect) : { $match: 'any' };
    },
    parallel: (i) => {
      const s = step(i);
      return s.op === 'parallel' ? s.expect : [];
    },
    fd: (i) => {
      const s = step(i);
      return s.op === 'read-fd' ? s.expect : { size: -1, sha256: '' };
    },
  };
}

/** One judgement of a provider vector's run, as data: the step and what it judged. */
export type Judgement =
  | { readonly kind: 'reply'; readonly step: number; readonly actual: Actual }
  | { readonly kind: 'parallel'; readonly step: number; readonly actuals: readonly Actual[] }
  | { readonly kind: 'fd'; readonly step: number; readonly key: string; readonly got: FdDigest };

/** What a provider vector's run judged, in order, and the variables it started with. */
export interface ProviderVectorRecord {
  readonly kind: 'provider';
  readonly vars: readonly (readonly [string, unknown])[];
  readonly judgements: readonly Judgement[];
}

/** What a consumer vector's run judged: its requests by method, the screens it opened, its outcome. */
export interface ConsumerVectorRecord {
  readonly kind: 'consumer';
  readonly requests: readonly (readonly [string, readonly Actual[]])[];
  readonly launches: readonly LaunchedApp[];
  readonly outcome: unknown;
}

export type VectorRecord = ProviderVectorRecord | ConsumerVectorRecord;

const at = (step: number) => (m: Mismatch) => ({ ...m, step });

/** A reply against its expectation; binds the captures into `vars` when it matches. */
export function judgeReply(step: number, e: Expect, actual: Actual, vars: Vars): StepFailure[] {
  return match(e, actual, vars).map(at(step));
}

/** A parallel step's answers, each to a group of the expectation (`count` answers per group). */
export function judgeParallel(
  step: number,
  groups: readonly { count: number; reply: Expect }[],
  actuals: readonly Actual[],
  vars: Vars,
): StepFailure[] {
  const left = groups.map((g) => g.count);
  for (const [n, actual] of actuals.entries()) {
    const g = groups.findIndex(
      (group, i) => (left[i] ?? 0) > 0 && match(group.reply, actual, vars).length === 0,
    );
    if (g < 0)
      return [{ step, path: `$[${n}]`, message: 'an answer matches no expected group (or too many do)' }];
    left[g] = (left[g] ?? 0) - 1;
  }
  return [];
}

/** A file result's size and digest against the step's expectation. */
export function judgeFd(step: number, key: string, e: FdExpect, got: FdDigest, vars: Vars): StepFailure[] {
  return matchJsonValue(e, got, vars, `$.${key}`).map(at(step));
}

/** A judgement of `kind` at a step of this op: call, repeat and poll-until judge a reply. */
const JUDGED_AS: Readonly<Record<Step['op'], Judgement['kind'] | null>> = {
  call: 'reply',
  repeat: 'reply',
  'poll-until': 'reply',
  parallel: 'parallel',
  'read-fd': 'fd',
  user: null,
  kill: null,
  'advance-clock': null,
};

/** The steps of `vector` that judge something, in order. */
export function judgedSteps(vector: Vector): number[] {
  return vector.steps.flatMap((s, i) => (JUDGED_AS[s.op] !== null ? [i] : []));
}

/** An error a judgement threw, as the engine reports it. */
function thrownAt(step: number, error: unknown): StepFailure[] {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return [{ step, path: '$', message }];
}

/** Throws unless `j` is a judgement its step makes (a record that does not fit the vector). */
function checkFits(vector: Vector, j: Judgement): void {
  const step = vector.steps[j.step];
  if (step === undefined || JUDGED_AS[step.op] !== j.kind)
    throw new Error(`a ${j.kind} judgement at step ${j.step}, which judges no ${j.kind}`);
  if (j.kind === 'fd' && (step.op !== 'read-fd' || step.key !== j.key))
    throw new Error(`an fd judgement at step ${j.step} of another key (${j.key})`);
}

/** One recorded judgement, judged again with the vector's own expectations. */
function judgeAgain(judge: Judge, j: Judgement, vars: Vars): StepFailure[] {
  try {
    if (j.kind === 'reply') return judgeReply(j.step, judge.reply(j.step, j.actual, vars), j.actual, vars);
    if (j.kind === 'parallel')
      return judgeParallel(j.step, judge.parallel(j.step, j.actuals, vars), j.actuals, vars);
    return judgeFd(j.step, j.key, judge.fd(j.step, j.got, vars), j.got, vars);
  } catch (error) {
    return thrownAt(j.step, error);
  }
}

/**
 * A provider vector's record judged again: the failures of its first failing judgement (the run
 * stops there), and the steps it judged. Throws on a record that does not fit the vector (a
 * judgement out of order, or of a kind its step does not make).
 */
export function judgeProviderRecord(
  vector: Vector,
  record: ProviderVectorRecord,
): { failures: StepFailure[]; judged: number[] } {
  const vars: Vars = new Map(record.vars.map(([k, v]) => [String(k), v]));
  const judge = vectorJudge(vector);
  const judged: number[] = [];
  for (const j of record.judgements) {
    if (judged.length > 0 && j.step <= (judged.at(-1) as number))
      throw new Error(`judgements out of order: step ${j.step} after step ${judged.at(-1)}`);
    checkFits(vector, j);
    judged.push(j.step);
    const failures = judgeAgain(judge, j, vars);
    if (failures.length > 0) return { failures, judged };
  }
  return { failures: [], judged };
}

export interface ConsumerJudge {
  requests(method: string, actuals: readonly Actual[], vars: Vars): readonly Expect[];
  launches(actual: readonly LaunchedApp[]): readonly LaunchedApp[];
  outcome(actual: unknown): JsonExpect;
}

export function consumerVectorJudge(vector: ConsumerVector): ConsumerJudge {
  return {
    requests: (method) => vector.requests[method] ?? [],
    launches: () => vector.launches,
    outcome: () => vector.outcome,
  };
}

/** A consumer vector's failures from what its run recorded (engine and judge alike). */
export function judgeConsumerRecord(judge: ConsumerJudge, record: ConsumerVectorRecord): StepFailure[] {
  const failures: StepFailure[] = [];
  const vars: Vars = new Map();
  for (const [method, sent] of record.requests) {
    const expected = judge.requests(method, sent, vars);
    if (sent.length !== expected.length)
      failures.push({
        step: -1,
        path: `$.requests.${method}`,
        message: `sent ${sent.length}, expected ${expected.length}`,
      });
    else
      expected.forEach((e, i) => {
        for (const m of match(e, sent[i], vars, `$.requests.${method}[${i}]`))
          failures.push({ ...m, step: -1 });
      });
  }
  const launches = judge.launches(record.launches);
  if (record.launches.join() !== launches.join())
    failures.push({
      step: -1,
      path: '$.launches',
      message: `opened [${record.launches.join(', ')}], expected [${launches.join(', ')}]`,
    });
  for (const m of matchJsonValue(judge.outcome(record.outcome), record.outcome, vars, '$.outcome'))
    failures.push({ ...m, step: -1 });
  return failures;
}
