import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fuzzProperty, type ReplayFile, replayScenario } from '../fuzz/fuzz.ts';
import { type PropertyDef, propertyById } from '../fuzz/suites.ts';
import { writeReplayFile } from '../harness/replay-file.ts';
import { FAILING_VERSIONS_FUZZ, runCli, tempDir } from './testing.ts';

type Json = Record<string, unknown> & {
  scenario: { actors: Record<string, Record<string, unknown>[]>; decisions: unknown[]; faults: unknown[] };
  variant: { providerBugs: string[]; consumerBugs: string[]; disabledRules: string[] };
};

const dir = tempDir('cetp-sim-replay-');
let good = '';
let recorded: Json;

/** A copy of the recorded replay file with one change, written beside it. */
function variantFile(name: string, change: (f: Json) => unknown): string {
  const copy = structuredClone(recorded);
  const replaced = change(copy);
  const path = join(dir, `${name}.json`);
  writeFileSync(path, typeof replaced === 'string' ? replaced : JSON.stringify(replaced ?? copy));
  return path;
}

beforeAll(async () => {
  const fuzz = await runCli([...FAILING_VERSIONS_FUZZ, '--out', dir]);
  expect(fuzz.code).toBe(1);
  good = join(dir, 'versions-0.replay.json');
  recorded = JSON.parse(readFileSync(good, 'utf8')) as Json;
});

describe('cetp-sim replay', () => {
  it('prints the trace and the violations, and exits 1 while the bug is there', async () => {
    const r = await runCli(['replay', good, '--mermaid']);
    expect(r.code).toBe(1);
    const text = r.stdout.join('\n');
    expect(text).toContain('planted bugs: v1-lists-write-tools');
    expect(text).toContain('method=list_tools');
    expect(text).toContain('sequenceDiagram');
    expect(text).toContain('still fails: 1 violation(s)');
    expect(text).toContain(`trace hash ${recorded.traceHash}`);
  });

  it('exits 0 when the scenario now passes (the bug fixed, the file recorded from the fixed code)', async () => {
    const fixed = { ...recorded, variant: { providerBugs: [], consumerBugs: [], disabledRules: [] } };
    const run0 = await replayScenario(
      propertyById('versions') as PropertyDef,
      fixed as unknown as ReplayFile,
    );
    expect(run0.violations).toEqual([]);
    const path = variantFile('fixed', () => ({ ...fixed, traceHash: run0.report.traceHash }));
    const r = await runCli(['replay', path]);
    expect(r.code).toBe(0);
    expect(r.stdout.join('\n')).toContain('now passes (recorded: 1 violation(s))');
  });

  it('an old file (no input digests) edited to drop the bug: its trace differs from the recorded hash, exit 3 with a hint', async () => {
    const path = variantFile('unbugged', (f) => {
      f.variant.providerBugs = [];
      delete f.inputs;
    });
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(3);
    const error = JSON.parse(r.stdout[0] ?? '{}').error;
    expect(error.code).toBe('determinism_break');
    expect(error.message).toContain('records no digest of its inputs');
    // With its digests (as fuzz writes it today) the same edit is a new scenario: replay-edited.test.ts.
  });

  it('a trace hash that differs from the recorded one is a loud determinism break, exit 3', async () => {
    const path = variantFile('hash', (f) => {
      f.traceHash = '0'.repeat(64);
    });
    const r = await runCli(['replay', path]);
    expect(r.code).toBe(3);
    expect(r.stderr.join('\n')).toContain('DETERMINISM BREAK');
    expect(r.stderr.join('\n')).toContain(`recorded ${'0'.repeat(64)}`);
  });

  it.each<[string, (f: Json) => unknown, string, string]>([
    ['not-json', () => '{"format": ', 'replay_invalid_json', 'not valid JSON'],
    [
      'format',
      (f) => ({ ...f, format: 'cetp-sim/replay@0' }),
      'replay_unknown_format',
      'expected "format": "cetp-sim/replay@1"',
    ],
    ['array', () => '[]', 'replay_unknown_format', 'found none'],
    [
      'decision',
      (f) => {
        f.scenario.decisions = ['x'];
      },
      'replay_invalid',
      '/scenario/decisions/0: must be integer',
    ],
    [
      'kind',
      (f) => {
        (f.scenario.actors.a ?? [])[0] = { kind: 'jump' };
      },
      'replay_invalid',
      "/scenario/actors/a/0: unknown kind 'jump'",
    ],
    ['extra', (f) => ({ ...f, extra: true }), 'replay_invalid', "unexpected property 'extra'"],
    [
      'missing',
      (f) => {
        const { scenario: _scenario, ...rest } = f;
        return rest;
      },
      'replay_invalid',
      "must have required property 'scenario'",
    ],
    [
      'fault',
      (f) => {
        f.scenario.faults = [{ at: 1, fault: { kind: 'kill' } }];
      },
      'replay_invalid',
      "/scenario/faults/0/fault: must have required property 'process'",
    ],
    ['hash', (f) => ({ ...f, traceHash: 'abc' }), 'replay_invalid', '/traceHash'],
    // Crafted files: every array and number has an upper bound, and nesting cannot blow the stack.
    [
      'huge-count',
      (f) => {
        f.scenario.actors.a = [
          {
            kind: 'execute',
            provider: 'alerts',
            tool: 'get_quote',
            args: 0,
            rid: { kind: 'fresh' },
            expiredDeadline: false,
            confirmedFlag: false,
            resolve: 'none',
            duplicates: 3_000_000,
          },
        ];
      },
      'replay_invalid',
      '/scenario/actors/a/0/duplicates: must be <= 16',
    ],
    [
      'many-decisions',
      (f) => {
        f.scenario.decisions = Array.from({ length: 30_000 }, () => 0);
      },
      'replay_invalid',
      '/scenario/decisions: must NOT have more than 20000 items',
    ],
    [
      'many-commands',
      (f) => {
        f.scenario.actors.a = Array.from({ length: 100 }, () => ({ kind: 'wait', ms: 1 }));
      },
      'replay_invalid',
      '/scenario/actors/a: must NOT have more than 64 items',
    ],
    [
      'long-wait',
      (f) => {
        f.scenario.actors.a = [{ kind: 'wait', ms: 1e15 }];
      },
      'replay_invalid',
      '/scenario/actors/a/0/ms: must be <=',
    ],
    [
      'deep-nesting',
      (f) => {
        const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
        return JSON.stringify(f).replace('"decisions":[', `"decisions":[${deep},`);
      },
      'replay_invalid_json',
      'not valid JSON',
    ],
    [
      'property',
      (f) => ({ ...f, property: 'nope' }),
      'replay_unknown_property',
      "unknown property 'nope'; valid: idempotency",
    ],
    [
      'bug',
      (f) => {
        f.variant.providerBugs = ['nope'];
      },
      'replay_unknown_bug',
      "unknown planted provider bug 'nope'",
    ],
    [
      'consumer-bug',
      (f) => {
        f.variant.consumerBugs = ['nope'];
      },
      'replay_unknown_bug',
      "unknown planted consumer bug 'nope'",
    ],
    [
      'rule',
      (f) => {
        f.variant.disabledRules = ['CETP-99-01'];
      },
      'replay_unknown_rule',
      "unknown rule id 'CETP-99-01'",
    ],
    [
      'provider',
      (f) => {
        f.scenario.actors.a?.push({ kind: 'v1-list', provider: 'payments' });
      },
      'replay_mismatch',
      "names provider 'payments'",
    ],
  ])(
    'a bad file (%s) is exit 2 with a structured error naming what is wrong',
    async (name, change, code, message) => {
      const path = variantFile(name, change);
      const r = await runCli(['replay', path, '--json']);
      expect(r.code).toBe(2);
      const { error } = JSON.parse(r.stdout[0] ?? '{}') as { error: { code: string; message: string } };
      expect(error.code).toBe(code);
      expect(error.message).toContain(path);
      expect(error.message).toContain(message);
    },
  );

  it('re-runs a consumer-driven scenario too, and checks its shape against the consumer scenario schema', async () => {
    const def = propertyById('consumer-versions') as PropertyDef;
    const variant = { providerBugs: [], consumerBugs: ['consumer-downgrades-to-v1'], disabledRules: [] };
    const result = await fuzzProperty(def, { seed: 1, runs: 50, tails: ['fifo'], variant });
    expect(result.status).toBe('failed');
    const path = join(dir, 'consumer-versions.replay.json');
    writeReplayFile(path, result.failure?.replay as ReplayFile, {}, process.cwd());
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout[0] ?? '{}')).toMatchObject({
      failed: true,
      traceHash: result.failure?.replay.traceHash,
    });

    const broken = JSON.parse(readFileSync(path, 'utf8')) as { scenario: { threads: unknown[][] } };
    (broken.scenario.threads[0] as unknown[])[0] = { kind: 'jump' };
    writeFileSync(path, JSON.stringify(broken));
    const bad = await runCli(['replay', path, '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout[0] ?? '{}').error.message).toContain(
      "/scenario/threads/0/0: unknown kind 'jump'",
    );
  });

  it('a 50 MB file is refused before it is read (exit 2, replay_too_large)', async () => {
    const path = variantFile('huge', (f) => `${JSON.stringify(f)}${' '.repeat(50 * 1024 * 1024)}`);
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout[0] ?? '{}') as { error: { code: string; message: string } };
    expect(error.code).toBe('replay_too_large');
    expect(error.message).toContain(path);
  });

  it('a replay file is data: a module it names is not loaded unless the command line names it', async () => {
    // A module that leaves a mark when anything imports it.
    const mark = join(dir, 'imported.mark');
    const module = join(dir, 'evil.provider.mjs');
    writeFileSync(
      module,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, 'x');\n`,
    );
    const path = variantFile('names-module', (f) => ({ ...f, modules: { provider: module } }));
    const r = await runCli(['replay', path, '--json']);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout[0] ?? '{}') as { error: { code: string; message: string } };
    expect(error.code).toBe('replay_needs_module');
    expect(error.message).toContain(`pass it to re-run: npx cetp-sim replay ${path} --provider ${module}`);
    expect(existsSync(mark)).toBe(false);
  });

  it('a missing file is exit 2 (replay_file_not_found)', async () => {
    const r = await runCli(['replay', join(dir, 'nope.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toContain('replay_file_not_found');
  });
});
