/**
 * The runner: the reference apps pass every vector; a planted bug fails the vector aimed at it;
 * skips name the missing ability; a baseline turns a known failure into xfail and a passing entry
 * into a stale failure; a profile claim holds only when every MUST vector of it passes; and the
 * reports (JSON, JUnit, CTRF) say the same thing. Also `mutants --vectors` on one planted bug.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VECTORS_DIR } from '../cli/commands/vectors.ts';
import { main } from '../cli/main.ts';
import { memoryIo } from '../cli/testing.ts';
import { mutantById } from '../fuzz/mutants.ts';
import type { ScriptedReply } from './consumer-format.ts';
import { blobReader, loadCorpus, runInputs, vectorIds } from './corpus.ts';
import { REFERENCE_FIXTURES } from './fixtures.ts';
import { PROFILES } from './format.ts';
import { ctrfReport, junitXml, runJson } from './reports.ts';
import { type RunOptions, runVectors } from './run.ts';

const corpus = loadCorpus(DEFAULT_VECTORS_DIR);
const files = runInputs(corpus);
const base: RunOptions = { fixtures: REFERENCE_FIXTURES, profiles: PROFILES, blob: blobReader(corpus) };
const ARGS_BUG = 'idem-reuse-id-other-args';

describe('vectors run', () => {
  it('the reference apps pass every vector, and every profile claim is met', async () => {
    const summary = await runVectors(files, base);
    expect(summary.outcomes.filter((o) => o.status !== 'pass')).toEqual([]);
    expect(summary.outcomes.length).toBe(vectorIds(corpus).length);
    expect(summary.claims).toEqual({
      core: 'met',
      async: 'met',
      cancellation: 'met',
      'large-results': 'met',
    });
    expect(summary.ok).toBe(true);
  });

  it('a planted bug fails the vector aimed at it, with the step and path, and the claim is not met', async () => {
    const mutant = mutantById('dedup-ignores-args');
    const summary = await runVectors(files, { ...base, ids: [ARGS_BUG], variant: mutant?.variant as never });
    const [outcome] = summary.outcomes;
    expect(outcome?.status).toBe('fail');
    expect(outcome?.failures?.[0]).toMatchObject({ step: 4, path: expect.stringMatching(/^\$\./) });
    expect(summary.claims.core).toBe('not met');
    expect(summary.ok).toBe(false);
  });

  it('a vector needing an ability the runner lacks is skipped with the reason; the claim is then unverified', async () => {
    const summary = await runVectors(files, { ...base, profiles: ['core'], lacks: ['second-uid'] });
    const skipped = summary.outcomes.filter((o) => o.status === 'skip');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((o) => o.reason === 'needs second-uid')).toBe(true);
    expect(summary.outcomes.every((o) => o.profile === 'core')).toBe(true);
    expect(summary.claims).toEqual({ core: 'unverified' });
  });

  it('a deprecated vector, or one sending a Java type the simulated Bundle lacks, is skipped with the reason', async () => {
    const [vector] = corpus.files.flatMap((f) => f.content.vectors).filter((v) => v.id === 'env-success');
    if (!vector) throw new Error('env-success is missing');
    const deprecated = { ...vector, id: 'x-old', deprecated: { since: '1.1', reason: 'superseded' } };
    const step = vector.steps[1] as Extract<(typeof vector.steps)[number], { op: 'call' }>;
    const asDouble = {
      ...vector,
      id: 'x-double',
      steps: [
        vector.steps[0],
        { ...step, extras: { ...step.extras, protocol_version: { type: 'double', value: 2 } } },
      ],
    } as typeof vector;
    const summary = await runVectors([{ path: 'x/x.json', vectors: [deprecated, asDouble] }], base);
    expect(summary.outcomes.map((o) => [o.status, o.reason])).toEqual([
      ['skip', 'deprecated since 1.1: superseded'],
      ['skip', 'sends double values, which the simulated Bundle cannot hold'],
    ]);
  });

  it('a baseline entry that fails is xfail; one that passes, or names no vector, is stale and fails the run', async () => {
    const variant = mutantById('dedup-ignores-args')?.variant as never;
    const ids = [ARGS_BUG, 'env-success'];
    const known = await runVectors(files, {
      ...base,
      ids,
      variant,
      baseline: new Map([[ARGS_BUG, 'known bug']]),
    });
    expect(known.outcomes.map((o) => [o.id, o.status])).toEqual([
      ['env-success', 'pass'],
      [ARGS_BUG, 'xfail'],
    ]);
    expect(known.ok).toBe(true);
    const fixed = await runVectors(files, { ...base, ids, baseline: new Map([[ARGS_BUG, 'known bug']]) });
    expect(fixed.outcomes.find((o) => o.id === ARGS_BUG)?.status).toBe('stale');
    expect(fixed.ok).toBe(false);
    const unknown = await runVectors(files, {
      ...base,
      ids: ['env-success'],
      baseline: new Map([['no-such', 'x']]),
    });
    expect(unknown.unknownBaselineIds).toEqual(['no-such']);
    expect(unknown.ok).toBe(false);
  });

  it('JSON, JUnit and CTRF reports agree on each vector', async () => {
    const variant = mutantById('dedup-ignores-args')?.variant as never;
    const summary = await runVectors(files, { ...base, ids: [ARGS_BUG, 'env-success'], variant });
    expect(runJson(summary).vectors.map((v) => v.status)).toEqual(['pass', 'fail']);
    const xml = junitXml(summary);
    expect(xml).toMatch(/<testsuite name="cetp-sim vectors" tests="2" failures="1"/);
    expect(xml).toContain(
      '<failure message="step 4: $.status: expected &quot;error&quot;, got &quot;success&quot;"',
    );
    const ctrf = ctrfReport(summary, { start: 1, stop: 2 }, '0.1.0');
    expect(ctrf).toMatchObject({
      reportFormat: 'CTRF',
      specVersion: '0.1.0',
      results: { tool: { name: 'cetp-sim' } },
    });
    expect(ctrf.results.summary).toMatchObject({
      tests: 2,
      passed: 1,
      failed: 1,
      skipped: 0,
      pending: 0,
      other: 0,
    });
    expect(ctrf.results.tests.map((t) => t.status)).toEqual(['passed', 'failed']);
  });

  it('the CLI prints identical --json bytes for identical runs and writes a CTRF file', async () => {
    const args = ['vectors', 'run', '--id', 'env-success', 'neg-invalid-session', '--json'];
    const [a, b] = [memoryIo(), memoryIo()];
    expect(await main(args, a)).toBe(0);
    expect(await main(args, b)).toBe(0);
    expect(a.stdout).toEqual(b.stdout);
    const out = `${process.env.TMPDIR ?? '/tmp'}/cetp-vectors-ctrf-${process.pid}.json`;
    expect(await main(['vectors', 'run', '--id', 'env-success', '--ctrf', out], memoryIo())).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).results.summary.passed).toBe(1);
  });

  it('consumer vectors: the reference consumer passes; one that retries with a new request_id fails on the ref', async () => {
    const ids = ['cons-retry-keeps-request-id'];
    expect((await runVectors(files, { ...base, ids })).outcomes.map((o) => o.status)).toEqual(['pass']);
    const variant = mutantById('consumer-new-request-id-on-retry')?.variant as never;
    const [outcome] = (await runVectors(files, { ...base, ids, variant })).outcomes;
    expect(outcome?.status).toBe('fail');
    expect(outcome?.failures?.[0]?.path).toBe('$.requests.execute_tool[1].request_id');
  });

  it('CETP-4.3-02 CETP-7.2-04 CETP-7.2-05: resolution vectors pass on the reference consumer; one that launches any PendingIntent opens the foreign, mutable, implicit and foreign-target tokens and resumes', async () => {
    const all = corpus.consumerFiles.flatMap((f) => f.content.vectors).map((v) => v.id);
    const ids = all.filter((id) => id.startsWith('cons-resolution-'));
    // Whose screen the buggy consumer opens for each token the reference refuses.
    const opened: Record<string, string> = {
      'cons-resolution-foreign-creator': 'other',
      'cons-resolution-mutable': 'provider',
      'cons-resolution-implicit': 'other',
      'cons-resolution-foreign-target': 'other',
    };
    expect(ids.filter((id) => !id.endsWith('-resumes'))).toEqual(Object.keys(opened));
    const reference = await runVectors(files, { ...base, ids });
    expect(reference.outcomes.map((o) => [o.id, o.status])).toEqual(ids.map((id) => [id, 'pass']));
    const variant = mutantById('consumer-accepts-foreign-pi')?.variant as never;
    const buggy = await runVectors(files, { ...base, ids, variant });
    for (const o of buggy.outcomes) {
      const app = opened[o.id];
      if (app === undefined) {
        expect(o.status).toBe('pass');
        continue;
      }
      expect(o.status).toBe('fail');
      expect(o.failures?.map((f) => f.path)).toEqual([
        '$.requests.execute_tool',
        '$.launches',
        '$.outcome.kind',
      ]);
      expect(o.failures?.[1]?.message).toBe(`opened [${app}], expected []`);
    }
  });

  it("CETP-4.3-07: the own-resolution vector fails when its token is another app's (the reference then refuses it: nothing launched, no resume)", async () => {
    const file = corpus.consumerFiles[0]?.content;
    const vector = file?.vectors.find((v) => v.id === 'cons-resolution-own-pi-resumes');
    if (!file || !vector) throw new Error('cons-resolution-own-pi-resumes is missing');
    const [reply] = vector.replies;
    const swapped = {
      ...vector,
      replies: [
        {
          ...(reply as ScriptedReply),
          reply: {
            ...reply?.reply,
            resolution: { type: 'pending_intent', creator: 'other', target: 'other', immutable: true },
          },
        } as ScriptedReply,
      ],
    };
    const [outcome] = (
      await runVectors([{ path: 'consumer/consumer.json', consumerVectors: [swapped] }], base)
    ).outcomes;
    expect(outcome?.status).toBe('fail');
    expect(outcome?.failures?.map((f) => f.path)).toEqual([
      '$.requests.execute_tool',
      '$.launches',
      '$.outcome.kind',
    ]);
  });

  it("--provider MODULE --fixture alerts holds a user's provider to the alerts vectors (here one that leaks write tools to v1)", async () => {
    const io = memoryIo();
    const module = 'src/cli/testdata/leaky-alerts.provider.ts';
    const ids = ['--id', 'desc-v1-list-read-only', 'env-success', 'op-cancel'];
    expect(
      await main(['vectors', 'run', '--provider', module, '--fixture', 'alerts', ...ids, '--json'], io),
    ).toBe(1);
    const statuses = JSON.parse(io.stdout[0] ?? '{}').vectors.map((v: { id: string; status: string }) => [
      v.id,
      v.status,
    ]);
    expect(statuses).toEqual([
      ['desc-v1-list-read-only', 'fail'],
      ['env-success', 'pass'],
      ['op-cancel', 'skip'],
    ]);
  });

  it('--baseline FILE: the example baseline turns the leaky module into a pass; on the reference its entries are stale; a malformed one exits 2', async () => {
    const module = 'src/cli/testdata/leaky-alerts.provider.ts';
    const baseline = `${DEFAULT_VECTORS_DIR}/baselines/example.baseline.json`;
    const ids = ['--id', 'desc-v1-list-read-only', 'desc-v1-execute-write-tool'];
    const leaky = [
      'vectors',
      'run',
      '--provider',
      module,
      '--fixture',
      'alerts',
      '--baseline',
      baseline,
      ...ids,
    ];
    expect(await main(leaky, memoryIo())).toBe(0);
    const reference = memoryIo();
    expect(await main(['vectors', 'run', '--baseline', baseline, ...ids, '--json'], reference)).toBe(1);
    expect(JSON.parse(reference.stdout[0] ?? '{}').counts.stale).toBe(2);
    const bad = memoryIo();
    expect(await main(['vectors', 'run', '--baseline', `${DEFAULT_VECTORS_DIR}/manifest.json`], bad)).toBe(2);
    expect(bad.stderr.join('\n')).toMatch(
      /invalid_baseline: .*manifest\.json: \$: must have required property 'expected_failures'|invalid_baseline: .*manifest\.json: \$/,
    );
  });

  it('mutants --vectors names the vector that kills a planted bug', async () => {
    const io = memoryIo();
    expect(await main(['mutants', '--vectors', '--id', 'dedup-ignores-args', '--json'], io)).toBe(0);
    const [row] = JSON.parse(io.stdout[0] ?? '{}').mutants;
    expect(row.killedBy).toContain(ARGS_BUG);
  });

  it('mutants --vectors: the consumer bug that launches any PendingIntent is killed by the four refusal vectors', async () => {
    const io = memoryIo();
    expect(await main(['mutants', '--vectors', '--id', 'consumer-accepts-foreign-pi', '--json'], io)).toBe(0);
    const [row] = JSON.parse(io.stdout[0] ?? '{}').mutants;
    expect(row).toMatchObject({ component: 'consumer', invisible: null });
    expect(row.killedBy).toEqual([
      'cons-resolution-foreign-creator',
      'cons-resolution-mutable',
      'cons-resolution-implicit',
      'cons-resolution-foreign-target',
    ]);
  });
});
