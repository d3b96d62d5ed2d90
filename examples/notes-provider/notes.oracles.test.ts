/**
 * The notes app's own oracles (notes.oracles.ts) can fail, and hold on the app: an add_note that
 * stores two rows breaks the invariant one-row-per-add, an add_note that ignores its title breaks
 * the model — through the library (fuzzProvider, replay), the CLI (`fuzz --provider`, exit 1
 * naming the oracle) and cetp-sim/vitest (each oracle a failing test of its own) — while the notes
 * app holds both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../../src/cli/testing.ts';
import { fuzzProvider, type ProviderFixture, replay } from '../../src/index.ts';
import { doubleAddFixture, fixedTitleFixture } from './notes.mistakes.ts';
import { notesFixture } from './notes.provider.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'cetp-sim-notes-oracles-'));
const here = (file: string) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));

async function fuzz(
  fixture: ProviderFixture,
  property: string,
  replayDir: string | null = null,
  shrink = true,
) {
  const report = await fuzzProvider(fixture, { property, runs: 60, seed: 1, replayDir, shrink });
  const [result] = report.properties;
  return { result, checkers: [...new Set(result?.violations.map((v) => v.checker))] };
}

describe('the notes app’s own oracles', () => {
  it('hold on the notes app (idempotency and lifecycle: retries, kills, lost replies, wipes)', {
    timeout: 120_000,
  }, async () => {
    for (const property of ['idempotency', 'lifecycle']) {
      const { result } = await fuzz(notesFixture, property);
      expect([property, result?.status, result?.violations]).toEqual([property, 'passed', []]);
    }
  });

  it('invariant one-row-per-add fails on an add_note that stores two rows, and replays', {
    timeout: 120_000,
  }, async () => {
    const dir = scratch();
    const { result, checkers } = await fuzz(doubleAddFixture, 'idempotency', dir);
    expect(result?.status).toBe('failed');
    expect(checkers).toContain('invariant:one-row-per-add');
    const violation = result?.violations.find((v) => v.checker === 'invariant:one-row-per-add');
    expect(violation?.ruleIds).toEqual(['CETP-6-01']);
    expect(violation?.message).toMatch(
      /^invariant one-row-per-add of notes: \d+ notes, but at most \d+ add_note/,
    );
    // The replay file re-runs the shrunk scenario: the invariant fails again, and holds on the app.
    const file = result?.replay as string;
    const again = await replay(file, { providers: doubleAddFixture });
    expect(again.violations.map((v) => v.checker)).toContain('invariant:one-row-per-add');
    expect((await replay(file, { providers: notesFixture })).violations).toEqual([]);
  });

  it('the model fails on an add_note that ignores its title (the invariants do not see it)', {
    timeout: 120_000,
  }, async () => {
    // Unshrunk: which checkers fail, and how the model words it, is the first failing run's.
    const { result, checkers } = await fuzz(fixedTitleFixture, 'idempotency', null, false);
    expect(result?.status).toBe('failed');
    expect(checkers).toEqual(['model:notes']);
    expect(result?.violations[0]?.evidence.calls.length).toBeGreaterThan(0); // that request's calls
    expect(result?.violations[0]?.message).toMatch(
      /^model of notes: after \d+ requests that took effect \(.*add_note.*\), \["NOTE-\d+"\]\.title: the model has "(groceries|todo)", storage "note" \(last named by add_note request [0-9a-f-]+\)$/,
    );
  });

  it('cetp-sim fuzz --provider exits 1 naming invariant:one-row-per-add', { timeout: 120_000 }, async () => {
    const module = join(scratch(), 'double.provider.ts');
    writeFileSync(
      module,
      `import { doubleAddFixture } from ${here('./notes.mistakes.ts')};\nexport const providers = [doubleAddFixture];\n`,
    );
    const io = memoryIo();
    // Unshrunk: which checker fails is the first failing run's (the shrunk replay is tested above).
    const args = [
      'fuzz',
      '--provider',
      module,
      '--property',
      'idempotency',
      '--runs',
      '60',
      '--seed',
      '1',
      '--no-shrink',
    ];
    const code = await main([...args, '--json', '--workers', '1', '--out', scratch()], io);
    expect(code).toBe(1);
    const json = JSON.parse(io.stdout[0] ?? '{}') as {
      properties: { id: string; status: string; violations?: { checker: string }[] }[];
    };
    const [property] = json.properties;
    expect(property?.status).toBe('failed');
    expect(property?.violations?.map((v) => v.checker)).toContain('invariant:one-row-per-add');
  });

  it('cetp-sim/vitest: describeProvider lists each invariant and the model as a test; the broken ones fail', {
    timeout: 180_000,
  }, () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--reporter=verbose',
        'examples/notes-provider/notes.broken.fuzz.test.ts',
      ],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, CETP_SIM_BROKEN_NOTES: '1', NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
      },
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
    const output = `${r.stdout}${r.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
    expect(output).toMatch(/× .*idempotency \(CETP-9-05\)/);
    expect(output).toMatch(/× .*invariant:one-row-per-add \(notes\)/);
    expect(output).toMatch(/✓ .*invariant:row-belongs-to-adder \(notes\)/);
    expect(output).toMatch(/× .*model:notes/);
    expect(output).toContain('invariant:one-row-per-add broken in property idempotency');
    expect(output).toMatch(/Tests\s+3 failed \| 1 passed \(4\)/);
    expect(r.status, output).toBe(1);
  });
});
