/**
 * The notes example, fuzzed as a user would (`cetp-sim fuzz --provider … --json`, in process): it
 * holds every property at 40 runs each (the provider properties' CI budget; the default budget, five
 * times that, is `npm run campaign:long`, docs/long-campaigns.md), and the same fuzz finds a defect
 * planted in it — so
 * the example's green verdict is one that can fail. A planted SDK bug (`--mutant`) reaches it, and
 * an install() that drops the variant is refused rather than quietly testing the unmutated provider.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../../src/cli/testing.ts';

const MODULE = 'examples/notes-provider/notes.provider.ts';
const here = (file: string) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
const scratch = () => mkdtempSync(join(tmpdir(), 'cetp-sim-notes-'));
/** `npm run campaign:long` runs the soak at the CLI's default budget; `npm test` at 40 runs a property. */
const LONG = process.env.CETP_SIM_CAMPAIGN === 'long';
const BUDGET = LONG ? [] : ['--runs', '40'];

interface FuzzJson {
  passed: boolean;
  properties: {
    id: string;
    status: string;
    exercised: Record<string, number>;
    replayFile?: string;
    violations?: { checker: string; ruleIds: string[] }[];
  }[];
}

async function fuzz(args: string[]): Promise<{ code: number; json: FuzzJson | null; stdout: string[] }> {
  const io = memoryIo();
  const code = await main(['fuzz', '--json', '--workers', '1', '--out', scratch(), ...args], io);
  const line = io.stdout.length === 1 ? io.stdout[0] : undefined;
  return { code, json: line ? (JSON.parse(line) as FuzzJson) : null, stdout: [...io.stdout, ...io.stderr] };
}

/** A --provider module in a scratch directory, from its source text. */
function moduleFile(name: string, source: string): string {
  const path = join(scratch(), name);
  writeFileSync(path, source);
  return path;
}

describe('examples/notes-provider', () => {
  let mutantReplay = '';

  it('holds every property (40 runs each; the default budget in campaign:long), exercising writes and confirmations', {
    timeout: LONG ? 1_800_000 : 300_000,
  }, async () => {
    const { code, json } = await fuzz(['--provider', MODULE, ...BUDGET]);
    expect(json?.properties.map((p) => [p.id, p.status, p.violations ?? []])).toEqual(
      json?.properties.map((p) => [p.id, 'passed', []]),
    );
    expect(code).toBe(0);
    const total = (key: string) => json?.properties.reduce((n, p) => n + (p.exercised[key] ?? 0), 0) ?? 0;
    expect(total('effects')).toBeGreaterThan(0);
    expect(total('confirmations')).toBeGreaterThan(0);
  });

  it('CETP-7.2-06 / 4.3-09: finds a defect planted in it (a delete confirmation that hides which note)', async () => {
    const vague = moduleFile(
      'vague.provider.ts',
      `import { defineProvider } from ${here('../../src/index.ts')};
import { deleteNote, NOTES_DESCRIPTOR, NOTES_PACKAGE, NOTES_TOOLS } from ${here('./notes.ts')};
import { notesFixture } from ${here('./notes.provider.ts')};
const vague = { ...deleteNote, describeForConfirmation: () => ({ object: 'A note', action: 'Delete', parameters: [], irreversible: 'Permanent.' }) };
const notes = defineProvider({ packageName: NOTES_PACKAGE, descriptor: NOTES_DESCRIPTOR, tools: NOTES_TOOLS.map((t) => (t.name === 'delete_note' ? vague : t)) });
export const providers = [notes.fixture({ name: 'notes', tools: notesFixture.tools })];
`,
    );
    // Unshrunk (--no-shrink): whether and by which checker it fails is the same for the first failing run.
    const { code, json } = await fuzz(['--provider', vague, '--property', 'confirmation', '--no-shrink']);
    expect(code).toBe(1);
    const failed = json?.properties.find((p) => p.id === 'confirmation');
    expect(failed?.status).toBe('failed');
    // The user approved a screen that did not show the note: confirmation-screen-shows (7.2-06), or
    // approval-binding (4.3-09: an approval on a screen without the args binds nothing).
    expect(failed?.violations?.map((v) => v.checker)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(confirmation-screen-shows|approval-binding)$/)]),
    );
    expect(failed?.violations?.flatMap((v) => v.ruleIds)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^CETP-(7\.2-06|4\.3-09)$/)]),
    );
  });

  it('CETP-7.1-01: --mutant plants an SDK bug in it, and the fuzz finds it', async () => {
    const { code, json } = await fuzz([
      '--provider',
      MODULE,
      '--mutant',
      'uid-after-await',
      '--property',
      'idempotency',
      '--no-shrink',
    ]);
    expect(code).toBe(1);
    expect(json?.properties[0]?.status).toBe('failed');
    mutantReplay = json?.properties[0]?.replayFile ?? '';
  });

  it('--mutant (or its replay file) against an install() that drops the variant is refused, naming the fixture', async () => {
    const deaf = moduleFile(
      'deaf.provider.ts',
      `import { NOTES } from ${here('./notes.ts')};
import { notesFixture } from ${here('./notes.provider.ts')};
export const providers = [{ ...notesFixture, install: (world: Parameters<typeof NOTES.install>[0]) => NOTES.install(world) }];
`,
    );
    const refused =
      /providers\[0\] \(notes\) cannot run planted bug\(s\) uid-after-await: its install\(world, variant\) does not pass variant\.providerBugs/;
    const { code, stdout } = await fuzz(['--provider', deaf, '--mutant', 'uid-after-await']);
    expect(code).toBe(2);
    expect(stdout.join('\n')).toMatch(refused);
    expect(mutantReplay).not.toBe('');
    const io = memoryIo();
    expect(await main(['replay', mutantReplay, '--provider', deaf], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(refused);
  });
});
