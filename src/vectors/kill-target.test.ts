/**
 * A `kill` step's target (kill-target.ts; FIDELITY.md row 35.8c): `process: "provider"` kills the
 * process the provider runs in, `main` (the default) the app's main process. For an app whose
 * provider declares `android:process=":cetp"` they differ: the vector "after the provider process
 * restarts, an old session is NEGOTIATION_REQUIRED" passes only when the kill reaches the provider's
 * process. The old engine killed the package's main process whatever the step said, so the
 * `provider` run below fails on it. For the reference fixtures (one process) both targets are the
 * same process, so old vectors keep their meaning.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_VECTORS_DIR } from '../cli/commands/vectors.ts';
import { ALERTS, type ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../fuzz/scenario/model.ts';
import { Ajv2020 } from '../protocol/schemas/ajv.ts';
import { bestError, loadCorpus } from './corpus.ts';
import { runVectorInWorld } from './engine.ts';
import type { KillTarget, Step, Vector } from './format.ts';
import { VECTOR_FILE_SCHEMA } from './schemas.ts';
import { withProviderProcess } from './split-fixture.ts';
import { vectorJudge } from './verdicts.ts';

const corpus = loadCorpus(DEFAULT_VECTORS_DIR);
const RESTART = corpus.files
  .flatMap((f) => f.content.vectors)
  .find((v) => v.id === 'neg-restart-invalidates-session');

/** ALERTS with its provider in `<package>:cetp` (android:process), its confirmation in the main process. */
const SPLIT = withProviderProcess(ALERTS, ':cetp');

/** The restart vector with its kill step aimed at `target` (absent: as recorded). */
function aimed(target: KillTarget | undefined): Vector {
  if (!RESTART) throw new Error('neg-restart-invalidates-session is missing from the corpus');
  const steps = RESTART.steps.map(
    (s): Step => (s.op === 'kill' && target ? { op: 'kill', process: target } : s),
  );
  return { ...RESTART, steps };
}

async function failures(fixture: ProviderFixture, vector: Vector): Promise<number> {
  const r = await runVectorInWorld(vector, { fixture, variant: REFERENCE, judge: vectorJudge(vector) });
  return r.failures.length;
}

describe('a kill step names the process it kills', () => {
  it('for a provider in its own android:process, only `process: "provider"` restarts the provider', async () => {
    expect(await failures(SPLIT, aimed('provider'))).toBe(0);
    expect(await failures(SPLIT, aimed('main'))).toBeGreaterThan(0); // the old session lives on in :cetp
    expect(await failures(SPLIT, aimed(undefined))).toBeGreaterThan(0); // absent = main, as before
  });

  it('for a one-process app both targets are the same process: the recorded vector passes either way', async () => {
    for (const target of [undefined, 'main', 'provider'] as const)
      expect(await failures(ALERTS, aimed(target))).toBe(0);
  });

  it('a kill step with an unknown target is refused by the schema, naming the field', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(VECTOR_FILE_SCHEMA);
    const file = corpus.files.find((f) => f.content.vectors.some((v) => v.id === RESTART?.id))?.content;
    const bad = JSON.parse(JSON.stringify(file)) as { vectors: { id: string; steps: { op: string }[] }[] };
    const vector = bad.vectors.findIndex((v) => v.id === RESTART?.id);
    const step = bad.vectors[vector]?.steps.findIndex((s) => s.op === 'kill') ?? -1;
    Object.assign(bad.vectors[vector]?.steps[step] ?? {}, { process: 'zygote' });
    expect(validate(bad)).toBe(false);
    expect(bestError(validate.errors ?? [])).toEqual({
      path: `$.vectors[${vector}].steps[${step}].process`,
      message: 'must be equal to one of the allowed values (["main","provider"])',
    });
  });
});
