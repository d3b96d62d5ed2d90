/**
 * `vectors run --provider` judged in the CLI's thread (issue #31; the campaign's judge is judge.ts):
 * the worker that loaded the module runs each vector against it and hands over, with its outcome,
 * the run's record (src/vectors/verdicts.ts) — every reply it judged as tagged data, the answers of
 * a parallel step, a file's digest, the variables the run started with; a consumer vector's requests,
 * screens opened and outcome. Here, where no user code is loaded, every vector is judged again from
 * that record with this thread's own matchers and the vector as this thread read it from the corpus,
 * and its outcome — skip, pass, fail, expected failure, stale baseline entry — made from that
 * judgement. The worker's outcome is only a claim: one it reports passing that its record shows
 * failing, a vector it ran without handing over the judgement of every step, or one it left out, is
 * `module-forges-verdict`.
 *
 * What the judge takes from the worker: which fixtures the module provides (a vector skipped for
 * `no provider fixture`), and a failure the run met without a judgement (a call that threw, polls
 * exhausted, no file in the reply, a run that never finished): a module can always fail its own run.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ConsumerVector } from '../../vectors/consumer-format.ts';
import type { Vector } from '../../vectors/format.ts';
import {
  consumerSkipReason,
  judged,
  noFixture,
  outcomeBase,
  selected,
  skipReasonGiven,
  type VectorOutcome,
} from '../../vectors/run.ts';
import {
  consumerVectorJudge,
  judgeConsumerRecord,
  judgedSteps,
  judgeProviderRecord,
  type StepFailure,
  type VectorRecord,
} from '../../vectors/verdicts.ts';
import { MODULE_FORGES_VERDICT } from './forged.ts';
import { noteJudged } from './judge.ts';
import type { VectorFileJob } from './protocol.ts';

function forged(step: number, message: string): StepFailure {
  return { step, path: '$', message: `${MODULE_FORGES_VERDICT}: ${message}` };
}

const HERE = '(judged again here, in a thread no user code runs in, from the record alone)';

/** A worker's failure as plain fields (its step, path and message), in the order it gave them. */
function plain(f: StepFailure): StepFailure {
  const fields: [string, unknown][] = [];
  for (const [k, v] of Object.entries(f))
    if (k === 'step') fields.push([k, Number(v)]);
    else if (k === 'path' || k === 'message') fields.push([k, String(v)]);
  return Object.fromEntries(fields) as unknown as StepFailure;
}

/** The failures of a vector from its own judgement and the worker's claim of it. */
function verdict(own: readonly StepFailure[], claimed: readonly StepFailure[], unjudged: number | null) {
  if (own.length > 0) {
    if (isDeepStrictEqual(claimed.map(plain), own)) return own;
    const step = own[0]?.step ?? -1;
    const said = claimed.length === 0 ? 'passing' : 'failing otherwise';
    return [
      forged(
        step,
        `the worker running the module reported the vector ${said}, yet its record shows step ${step} failing: something in the module's thread changed the verdict there ${HERE}`,
      ),
      ...own,
    ];
  }
  // A failure the run met without a judgement (a throw, exhausted polls) stands: never a forged pass.
  if (claimed.length > 0) return claimed.map(plain);
  if (unjudged !== null)
    return [
      forged(
        unjudged,
        `the worker reported the vector passing without handing over the judgement of step ${unjudged}`,
      ),
    ];
  return [];
}

/** The failures of a provider vector judged from `record`; `claimed`: the worker's. */
function judgeProvider(vector: Vector, record: VectorRecord, claimed: readonly StepFailure[]) {
  if (record.kind !== 'provider') throw new Error('a consumer record for a provider vector');
  const own = judgeProviderRecord(vector, record);
  const unjudged = judgedSteps(vector).find((s) => !own.judged.includes(s)) ?? null;
  return verdict(own.failures, claimed, unjudged);
}

/** The failures of a consumer vector judged from `record`; `claimed`: the worker's. */
function judgeConsumer(vector: ConsumerVector, record: VectorRecord, claimed: readonly StepFailure[]) {
  if (record.kind !== 'consumer') throw new Error('a provider record for a consumer vector');
  const methods = Object.keys(vector.requests);
  const recorded = record.requests.map(([m]) => m);
  if (methods.length > 0 && !isDeepStrictEqual(recorded, methods))
    throw new Error(`requests of [${recorded.join(', ')}], where the vector names [${methods.join(', ')}]`);
  return verdict(judgeConsumerRecord(consumerVectorJudge(vector), record), claimed, null);
}

/** One vector's outcome, judged here from the worker's claim of it. */
function judgeOne<V extends Vector | ConsumerVector>(
  job: VectorFileJob,
  vector: V,
  skip: string | null,
  claim: VectorOutcome | undefined,
  judge: (vector: V, record: VectorRecord, claimed: readonly StepFailure[]) => readonly StepFailure[],
): VectorOutcome {
  const base = outcomeBase(job.file.path, vector);
  if (skip !== null) return { ...base, status: 'skip', reason: skip, ms: 0 };
  // Which fixtures the module provides is the worker's word (its module's catalogue).
  if (claim?.status === 'skip' && 'steps' in vector && claim.reason === noFixture(vector))
    return { ...base, status: 'skip', reason: noFixture(vector), ms: 0 };
  const options = { baseline: new Map(job.baseline ?? []) };
  const ms = typeof claim?.ms === 'number' ? claim.ms : 0;
  if (!claim?.record)
    return judged(
      base,
      [forged(-1, `the worker handed over no record of vector ${vector.id}'s run`)],
      ms,
      options,
    );
  let failures: readonly StepFailure[];
  try {
    failures = judge(vector, claim.record, claim.failures ?? []);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    failures = [forged(-1, `the worker handed over a record the judge could not read: ${why}`)];
  }
  noteJudged();
  return judged(base, failures, ms, options);
}

/**
 * The outcomes of one vector file's selected vectors (in file order, as runVectorFile makes them),
 * judged from the records in the worker's outcomes (`claims`).
 */
export function judgeVectorFile(job: VectorFileJob, claims: readonly VectorOutcome[]): VectorOutcome[] {
  const claimOf = (id: string) => claims.find((c) => c.id === id);
  const selection = { profiles: job.profiles, ...(job.ids ? { ids: job.ids } : {}) };
  const outcomes: VectorOutcome[] = [];
  for (const vector of job.file.vectors ?? []) {
    if (!selected(vector, selection)) continue;
    const skip = skipReasonGiven(vector, job.lacks, [vector.provider]);
    outcomes.push(judgeOne(job, vector, skip, claimOf(vector.id), judgeProvider));
  }
  for (const vector of job.file.consumerVectors ?? []) {
    if (!selected(vector, selection)) continue;
    const skip = consumerSkipReason(vector, job.lacks);
    outcomes.push(judgeOne(job, vector, skip, claimOf(vector.id), judgeConsumer));
  }
  return outcomes;
}
