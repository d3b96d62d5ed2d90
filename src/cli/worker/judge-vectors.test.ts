/**
 * `vectors run --provider` judged apart from the module (issue #31), unit by unit: the judge in the
 * CLI's thread makes every vector's outcome from the records the worker hands over (structured
 * clones, as they cross the thread). An honest worker's outcomes come out unchanged; a worker that
 * reports a failing vector passing, hands over a record missing a step's judgement, no record at
 * all, or one that does not fit the vector, gets module-forges-verdict — provider and consumer
 * vectors alike. A failure the worker reports without a judgement (a call that threw) stands.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE, type Variant } from '../../fuzz/scenario/model.ts';
import { blobReader, loadCorpus, runInputs } from '../../vectors/corpus.ts';
import { REFERENCE_FIXTURES } from '../../vectors/fixtures.ts';
import type { Profile } from '../../vectors/format.ts';
import { type RunInput, runVectorFile, type VectorOutcome } from '../../vectors/run.ts';
import type { ProviderVectorRecord } from '../../vectors/verdicts.ts';
import { DEFAULT_VECTORS_DIR } from '../commands/vectors.ts';
import { MODULE_FORGES_VERDICT } from './judge.ts';
import { judgeVectorFile } from './judge-vectors.ts';
import type { VectorFileJob } from './protocol.ts';

const CORPUS = loadCorpus(DEFAULT_VECTORS_DIR);
const PROFILES: Profile[] = ['core', 'async', 'cancellation', 'large-results'];
const fileOf = (path: string) => runInputs(CORPUS).find((f) => f.path.includes(path)) as RunInput;

function jobOf(file: RunInput, ids: readonly string[]): VectorFileJob {
  return {
    kind: 'vectors',
    file,
    dir: CORPUS.dir,
    profiles: PROFILES,
    ids,
    modules: { provider: 'unused' },
    cwd: '.',
  };
}

/** The worker's outcomes (with records), as the CLI's thread receives them. */
async function claims(job: VectorFileJob, variant: Variant = REFERENCE): Promise<VectorOutcome[]> {
  const outcomes = await runVectorFile(job.file, {
    fixtures: REFERENCE_FIXTURES,
    profiles: job.profiles,
    ...(job.ids ? { ids: job.ids } : {}),
    blob: blobReader(CORPUS),
    variant,
    record: true,
  });
  return structuredClone(outcomes);
}

const withoutRecord = (outcomes: readonly VectorOutcome[]) => outcomes.map(({ record: _r, ...o }) => o);
const LEAKS: Variant = { ...REFERENCE, providerBugs: ['v1-lists-write-tools'] };

describe('vectors judged from their records in the CLI thread', () => {
  it("an honest worker's outcomes come out unchanged (passing, failing, skipped, consumer), with no record left on them", async () => {
    const descriptors = jobOf(fileOf('descriptors'), [
      'desc-v1-list-read-only',
      'desc-v1-execute-write-tool',
    ]);
    for (const variant of [REFERENCE, LEAKS]) {
      const worker = await claims(descriptors, variant);
      expect(worker.every((o) => o.record !== undefined)).toBe(true);
      const judged = judgeVectorFile(descriptors, worker);
      expect(judged).toEqual(withoutRecord(worker));
      expect(JSON.stringify(judged)).toBe(JSON.stringify(withoutRecord(worker)));
    }
    expect(withoutRecord(await claims(descriptors, LEAKS)).map((o) => o.status)).toEqual(['fail', 'fail']);
    const consumer = jobOf(fileOf('consumer'), [
      'cons-resolution-foreign-creator',
      'cons-resolution-mutable',
    ]);
    const honest = await claims(consumer, { ...REFERENCE, consumerBugs: ['consumer-accepts-foreign-pi'] });
    expect(honest.map((o) => o.status)).toEqual(['fail', 'fail']);
    expect(judgeVectorFile(consumer, honest)).toEqual(withoutRecord(honest));
  }, 120_000);

  it('a failing vector the worker reports passing is failed with module-forges-verdict first, then its own mismatch', async () => {
    const job = jobOf(fileOf('descriptors'), ['desc-v1-list-read-only']);
    const worker = await claims(job, LEAKS);
    const truth = worker[0]?.failures;
    const forged = worker.map(({ failures: _f, ...o }) => ({ ...o, status: 'pass' as const }));
    const [judged] = judgeVectorFile(job, forged);
    expect(judged?.status).toBe('fail');
    expect(judged?.failures?.[0]?.message).toMatch(
      new RegExp(`^${MODULE_FORGES_VERDICT}: the worker running the module reported the vector passing`),
    );
    expect(judged?.failures?.slice(1)).toEqual(truth);

    const consumer = jobOf(fileOf('consumer'), ['cons-resolution-foreign-creator']);
    const lying = (
      await claims(consumer, { ...REFERENCE, consumerBugs: ['consumer-accepts-foreign-pi'] })
    ).map(({ failures: _f, ...o }) => ({ ...o, status: 'pass' as const }));
    expect(judgeVectorFile(consumer, lying)[0]?.failures?.[0]?.message).toMatch(/^module-forges-verdict/);
  }, 120_000);

  it('a passing claim whose record lacks a judgement, no record at all, or a record that does not fit fails; a failure without a judgement stands', async () => {
    const job = jobOf(fileOf('envelope'), ['env-success']);
    const [honest] = await claims(job);
    const record = honest?.record as ProviderVectorRecord;
    expect(record.judgements.map((j) => j.step)).toEqual([0, 1]);
    const claim = (r: unknown) => [{ ...(honest as VectorOutcome), record: r } as VectorOutcome];

    const cut = judgeVectorFile(job, claim({ ...record, judgements: record.judgements.slice(0, 1) }))[0];
    expect(cut?.status).toBe('fail');
    expect(cut?.failures?.[0]).toMatchObject({ step: 1 });
    expect(cut?.failures?.[0]?.message).toMatch(/without handing over the judgement of step 1/);

    const none = judgeVectorFile(job, claim(undefined))[0];
    expect(none?.failures?.[0]?.message).toMatch(/handed over no record of vector env-success/);
    expect(judgeVectorFile(job, [])[0]?.failures?.[0]?.message).toMatch(/no record/);

    const misfit = {
      ...record,
      judgements: [{ kind: 'fd', step: 0, key: 'x', got: { size: 0, sha256: '' } }],
    };
    expect(judgeVectorFile(job, claim(misfit))[0]?.failures?.[0]?.message).toMatch(
      /could not read: a fd judgement at step 0, which judges no fd/,
    );
    const backwards = { ...record, judgements: [...record.judgements].reverse() };
    expect(judgeVectorFile(job, claim(backwards))[0]?.failures?.[0]?.message).toMatch(/out of order/);

    // The run threw at step 1 (no judgement there): the worker's failure stands, as it gave it.
    const threw = [{ step: 1, path: '$', message: 'RemoteException: provider died' }];
    const cutThrew = { ...record, judgements: record.judgements.slice(0, 1) };
    const stands = judgeVectorFile(job, [
      { ...(honest as VectorOutcome), status: 'fail', failures: threw, record: cutThrew },
    ])[0];
    expect(stands?.failures).toEqual(threw);
  }, 120_000);

  it("a vector skipped for a fixture the module lacks is the worker's word; any other skip is the judge's own", async () => {
    const job = jobOf(fileOf('envelope'), ['env-success']);
    const [honest] = await claims(job);
    const lacking = {
      ...(honest as VectorOutcome),
      status: 'skip' as const,
      reason: "no provider fixture 'alerts'",
    };
    expect(judgeVectorFile(job, [lacking])[0]).toMatchObject({ status: 'skip', reason: lacking.reason });
    // A skip it excuses otherwise, without the run's record: judged as a run it did not hand over.
    const { record: _r, ...bare } = honest as VectorOutcome;
    const excuse = { ...bare, status: 'skip' as const, reason: 'needs adb' };
    expect(judgeVectorFile(job, [excuse])[0]?.failures?.[0]?.message).toMatch(/no record/);
  }, 120_000);
});
