/**
 * `vectors run`: every vector of the selected profiles against provider fixtures in the simulation
 * (the reference apps, a user's `--provider` module, or a planted-bug variant), each in its own
 * seeded world. A vector is skipped — with the reason — when it is deprecated, needs an ability the
 * runner lacks, a fixture the module does not provide, or a value type the simulated Bundle cannot
 * hold. Expected failures come from a baseline; one that now passes is stale and fails the run
 * (like the MCP conformance kit's baseline). A profile claim holds only if every MUST / MUST NOT
 * vector of the profile passes (CETP-9-10, CETP-9-11).
 */
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { REFERENCE, type Variant } from '../fuzz/scenario/model.ts';
import type { Baseline } from './baseline.ts';
import { consumerVectorJudge, runConsumerVector } from './consumer-engine.ts';
import type { ConsumerVector } from './consumer-format.ts';
import { runVectorInWorld, type StepFailure, vectorJudge } from './engine.ts';
import { type Ability, type Profile, profileOf, type Step, type Vector } from './format.ts';
import { unsupportedTypes } from './typed.ts';
import type { VectorRecord } from './verdicts.ts';

export type OutcomeStatus = 'pass' | 'fail' | 'skip' | 'xfail' | 'stale';

export interface VectorOutcome {
  readonly id: string;
  readonly title: string;
  readonly file: string;
  readonly level: Vector['level'];
  readonly profile: Profile;
  readonly rules: readonly string[];
  readonly status: OutcomeStatus;
  /** Why it was skipped, or the baseline's reason for an expected failure. */
  readonly reason?: string;
  readonly failures?: readonly StepFailure[];
  readonly ms: number;
  /** What the run judged, as data (with RunOptions.record): judged again where no user code runs. */
  readonly record?: VectorRecord;
}

export type ClaimStatus = 'met' | 'not met' | 'unverified';

export interface RunSummary {
  readonly outcomes: readonly VectorOutcome[];
  readonly counts: Readonly<Record<OutcomeStatus, number>>;
  readonly claims: Readonly<Partial<Record<Profile, ClaimStatus>>>;
  /** Baseline entries naming no vector of the corpus (stale too). */
  readonly unknownBaselineIds: readonly string[];
  readonly ok: boolean;
}

export interface RunOptions {
  readonly fixtures: readonly ProviderFixture[];
  readonly profiles: readonly Profile[];
  readonly lacks?: readonly Ability[];
  readonly variant?: Variant;
  readonly baseline?: Baseline;
  /** Only these vector ids (default: all). */
  readonly ids?: readonly string[];
  /** A blob of the corpus by SHA-256 (consumer vectors' file results). */
  readonly blob?: (sha256: string) => Uint8Array;
  readonly now?: () => number;
  /** Hand over each run's record on its outcome (a `--provider` module's runs: src/cli/worker/judge-vectors.ts). */
  readonly record?: boolean;
}

function extrasOf(step: Step) {
  if (step.op === 'call') return step.extras;
  if (step.op === 'parallel' || step.op === 'poll-until') return step.call.extras;
  return null;
}

/** Why `vector` cannot run here, or null. */
function skipReason(vector: Vector, options: RunOptions): string | null {
  return skipReasonGiven(
    vector,
    options.lacks,
    options.fixtures.map((f) => f.name),
  );
}

/** `no provider fixture 'NAME'`: the one skip that depends on the module under test. */
export function noFixture(vector: Vector): string {
  return `no provider fixture '${vector.provider}'`;
}

/** Why `vector` cannot run with `fixtures` (names) on a runner that `lacks` abilities, or null. */
export function skipReasonGiven(
  vector: Vector,
  lacks: readonly Ability[] | undefined,
  fixtures: readonly string[],
): string | null {
  if (vector.deprecated) return `deprecated since ${vector.deprecated.since}: ${vector.deprecated.reason}`;
  const missing = vector.requires.filter((a) => lacks?.includes(a));
  if (missing.length > 0) return `needs ${missing.join(', ')}`;
  if (!fixtures.includes(vector.provider)) return noFixture(vector);
  const types = [...new Set(vector.steps.flatMap((s) => unsupportedTypes(extrasOf(s))))];
  if (types.length > 0) return `sends ${types.join(', ')} values, which the simulated Bundle cannot hold`;
  return null;
}

/** One vector file's vectors: provider-side, consumer-side or both. */
export interface RunInput {
  readonly path: string;
  readonly vectors?: readonly Vector[];
  readonly consumerVectors?: readonly ConsumerVector[];
}

/** Runs a consumer vector against the reference consumer (with the variant's consumer bugs). */
async function runConsumerOne(
  file: string,
  vector: ConsumerVector,
  options: RunOptions,
): Promise<VectorOutcome> {
  const base = outcomeBase(file, vector);
  const skip = consumerSkipReason(vector, options.lacks);
  if (skip !== null) return { ...base, status: 'skip', reason: skip, ms: 0 };
  const now = options.now ?? (() => 0);
  const started = now();
  const { failures, record } = await runConsumerVector(vector, {
    variant: options.variant ?? REFERENCE,
    judge: consumerVectorJudge(vector),
    blob: options.blob ?? (() => new Uint8Array()),
  });
  return withRecord(judged(base, failures, Math.round(now() - started), options), record, options);
}

/** Why a consumer vector cannot run on a runner that `lacks` abilities, or null. */
export function consumerSkipReason(vector: ConsumerVector, lacks: readonly Ability[] | undefined) {
  const missing = vector.requires.filter((a) => lacks?.includes(a));
  if (vector.deprecated) return `deprecated: ${vector.deprecated.reason}`;
  return missing.length > 0 ? `needs ${missing.join(', ')}` : null;
}

function withRecord(outcome: VectorOutcome, record: VectorRecord, options: RunOptions): VectorOutcome {
  return options.record ? { ...outcome, record } : outcome;
}

/** The fields of a vector's outcome that the vector alone gives. */
export function outcomeBase(file: string, vector: Vector | ConsumerVector) {
  return {
    id: vector.id,
    title: vector.title,
    file,
    level: vector.level,
    profile: profileOf(vector),
    rules: vector.rules,
  };
}

/** The outcome of a run that failed with `failures` (none: it passed), given the baseline. */
export function judged(
  base: Omit<VectorOutcome, 'status' | 'ms'>,
  failures: readonly StepFailure[],
  ms: number,
  options: Pick<RunOptions, 'baseline'>,
): VectorOutcome {
  const expected = options.baseline?.get(base.id);
  if (expected !== undefined)
    return failures.length > 0
      ? { ...base, status: 'xfail', reason: expected, failures, ms }
      : { ...base, status: 'stale', reason: `passes now; remove it from the baseline (${expected})`, ms };
  return failures.length > 0 ? { ...base, status: 'fail', failures, ms } : { ...base, status: 'pass', ms };
}

async function runOne(file: string, vector: Vector, options: RunOptions): Promise<VectorOutcome> {
  const now = options.now ?? (() => 0);
  const base = outcomeBase(file, vector);
  const skip = skipReason(vector, options);
  if (skip !== null) return { ...base, status: 'skip', reason: skip, ms: 0 };
  const fixture = options.fixtures.find((f) => f.name === vector.provider) as ProviderFixture;
  const started = now();
  const { failures, record } = await runVectorInWorld(vector, {
    fixture,
    variant: options.variant ?? REFERENCE,
    judge: vectorJudge(vector),
  });
  return withRecord(judged(base, failures, Math.round(now() - started), options), record, options);
}

function claim(outcomes: readonly VectorOutcome[], profile: Profile): ClaimStatus {
  const must = outcomes.filter(
    (o) => o.profile === profile && (o.level === 'MUST' || o.level === 'MUST NOT'),
  );
  if (must.some((o) => o.status === 'fail' || o.status === 'xfail' || o.status === 'stale')) return 'not met';
  if (must.length === 0 || must.some((o) => o.status === 'skip' && !o.reason?.startsWith('deprecated')))
    return 'unverified';
  return 'met';
}

/** The outcomes of one vector file's vectors that belong to the selected profiles, in file order. */
export async function runVectorFile(file: RunInput, options: RunOptions): Promise<VectorOutcome[]> {
  const outcomes: VectorOutcome[] = [];
  for (const vector of file.vectors ?? [])
    if (selected(vector, options)) outcomes.push(await runOne(file.path, vector, options));
  for (const vector of file.consumerVectors ?? [])
    if (selected(vector, options)) outcomes.push(await runConsumerOne(file.path, vector, options));
  return outcomes;
}

export function selected(
  vector: Vector | ConsumerVector,
  options: Pick<RunOptions, 'profiles' | 'ids'>,
): boolean {
  return options.profiles.includes(profileOf(vector)) && (!options.ids || options.ids.includes(vector.id));
}

/** Whether any vector of `file` is selected (a file with none need not be run at all). */
export function selectsAny(file: RunInput, options: Pick<RunOptions, 'profiles' | 'ids'>): boolean {
  return [...(file.vectors ?? []), ...(file.consumerVectors ?? [])].some((v) => selected(v, options));
}

/** The run's verdict from its outcomes (in file order): counts, profile claims, stale baseline ids. */
export function summarize(
  files: readonly RunInput[],
  outcomes: readonly VectorOutcome[],
  options: Pick<RunOptions, 'profiles' | 'baseline'>,
): RunSummary {
  const all = files.flatMap((f) => [...(f.vectors ?? []), ...(f.consumerVectors ?? [])]);
  const counts = { pass: 0, fail: 0, skip: 0, xfail: 0, stale: 0 };
  for (const o of outcomes) counts[o.status]++;
  const known = new Set(all.map((v) => v.id));
  const unknownBaselineIds = [...(options.baseline?.keys() ?? [])].filter((id) => !known.has(id));
  const claims = Object.fromEntries(options.profiles.map((p) => [p, claim(outcomes, p)]));
  return {
    outcomes,
    counts,
    claims,
    unknownBaselineIds,
    ok: counts.fail === 0 && counts.stale === 0 && unknownBaselineIds.length === 0,
  };
}

/** Runs the vectors of `files` (path → vectors) that belong to the selected profiles. */
export async function runVectors(files: readonly RunInput[], options: RunOptions): Promise<RunSummary> {
  const outcomes: VectorOutcome[] = [];
  for (const f of files) outcomes.push(...(await runVectorFile(f, options)));
  return summarize(files, outcomes, options);
}
