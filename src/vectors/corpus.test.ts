/**
 * The committed corpus verifies; every way a vendored copy can be broken is refused with the file
 * and the JSON path (schema violation, unknown matcher, hash mismatch, missing blob, not JSON), and
 * the CLI turns it into exit 2 without a stack trace.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_VECTORS_DIR } from '../cli/commands/vectors.ts';
import { main } from '../cli/main.ts';
import { memoryIo } from '../cli/testing.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { verifyCorpus } from './corpus.ts';

const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cetp-vectors-'));
  copies.push(dir);
  cpSync(DEFAULT_VECTORS_DIR, dir, { recursive: true });
  return dir;
}

const FILE = join('envelope', 'envelope.json');
const CONSUMER_FILE = join('consumer', 'consumer.json');

/** Edits a vector file and re-hashes it in the manifest (so only the edit is wrong). */
function edit(dir: string, change: (file: { vectors: Record<string, unknown>[] }) => void, at = FILE): void {
  const path = join(dir, at);
  const file = JSON.parse(readFileSync(path, 'utf8'));
  change(file);
  const text = `${JSON.stringify(file, null, 2)}\n`;
  writeFileSync(path, text);
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  for (const entry of manifest.files) if (entry.path === at) entry.sha256 = sha256Hex(text);
  writeFileSync(manifestPath, JSON.stringify(manifest));
}

describe('vectors verify', () => {
  it('the committed corpus verifies', () => {
    const { issues, corpus } = verifyCorpus(DEFAULT_VECTORS_DIR);
    expect(issues).toEqual([]);
    expect(corpus?.files.length).toBeGreaterThan(5);
  });

  it('a schema violation names the file and the JSON path', () => {
    const dir = copy();
    edit(dir, (f) => {
      (f.vectors[1] as { level: string }).level = 'MUSTN';
    });
    expect(verifyCorpus(dir).issues).toEqual([
      { file: FILE, path: '$.vectors[1].level', message: expect.any(String) },
    ]);
  });

  it('an unknown matcher is refused at its $match', () => {
    const dir = copy();
    edit(dir, (f) => {
      const step = (f.vectors[0] as { steps: { expect: unknown }[] }).steps[1] as { expect: unknown };
      step.expect = { $match: 'regexp', pattern: 'x' };
    });
    const [issue] = verifyCorpus(dir).issues;
    expect(issue).toMatchObject({ file: FILE, path: '$.vectors[0].steps[1].expect.$match' });
    expect(issue?.message).toMatch(/allowed values.*regex/);
  });

  it('a scripted PendingIntent is a closed value: an unknown target, a key the format lacks or a token Android cannot create is refused at the reply', () => {
    for (const resolution of [
      { type: 'pending_intent', creator: 'provider', target: 'system', immutable: true },
      { type: 'pending_intent', creator: 'provider', target: 'provider', immutable: true, flags: [] },
      // Android 14 refuses to create a mutable PendingIntent with an implicit Intent.
      { type: 'pending_intent', creator: 'provider', target: 'implicit', immutable: false },
    ]) {
      const dir = copy();
      edit(
        dir,
        (f) => {
          const [reply] = (
            f.vectors.find((v) => v.id === 'cons-resolution-own-pi-resumes') as {
              replies: { reply: Record<string, unknown> }[];
            }
          ).replies;
          if (reply) reply.reply.resolution = resolution;
        },
        CONSUMER_FILE,
      );
      const { issues } = verifyCorpus(dir);
      expect(issues.length).toBeGreaterThan(0);
      for (const issue of issues)
        expect(issue).toMatchObject({
          file: CONSUMER_FILE,
          path: expect.stringMatching(/^\$\.vectors\[\d+\]\.replies\[0\]\.reply\.resolution/),
        });
    }
  });

  it('a file changed after generation fails its manifest hash', () => {
    const dir = copy();
    writeFileSync(
      join(dir, FILE),
      readFileSync(join(dir, FILE), 'utf8').replace('"since": "1.0"', '"since": "1.1"'),
    );
    const [issue] = verifyCorpus(dir).issues;
    expect(issue).toMatchObject({
      file: 'manifest.json',
      path: expect.stringMatching(/^\$\.files\[\d+\]\.sha256$/),
    });
  });

  it('a vector sending a file whose blob is missing is refused', () => {
    const dir = copy();
    edit(dir, (f) => {
      const step = (f.vectors[0] as { steps: { extras: Record<string, unknown> }[] }).steps[1] as {
        extras: Record<string, unknown>;
      };
      step.extras.attachment = { type: 'fd', sha256: 'ab'.repeat(32), size: 3 };
    });
    expect(verifyCorpus(dir).issues).toEqual([
      {
        file: FILE,
        path: '$.vectors[0].steps[1]',
        message: `blob ${'ab'.repeat(32)} is missing from blobs/`,
      },
    ]);
  });

  it('a blob altered after generation is refused', () => {
    const dir = copy();
    const { corpus } = verifyCorpus(dir);
    const sha = corpus?.manifest.blobs[0]?.sha256 ?? '';
    writeFileSync(join(dir, 'blobs', sha), 'tampered');
    expect(verifyCorpus(dir).issues).toContainEqual({
      file: 'manifest.json',
      path: '$.blobs[0]',
      message: `blob ${sha} is missing or altered`,
    });
  });

  it('a manifest that is not JSON is refused; the CLI exits 2 naming file and path, no stack trace', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'manifest.json'), '{"format": ');
    const io = memoryIo();
    expect(await main(['vectors', 'verify', '--dir', dir], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/invalid_corpus: manifest\.json: \$: not JSON/);
    expect(io.stderr.join('\n')).not.toMatch(/ at .*\.ts:/);
    const run = memoryIo();
    expect(await main(['vectors', 'run', '--dir', dir, '--json'], run)).toBe(2);
    expect(JSON.parse(run.stdout[0] ?? '{}').error.code).toBe('invalid_corpus');
  });
});
