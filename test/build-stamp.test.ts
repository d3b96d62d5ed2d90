/**
 * scripts/build.mjs skips tsc only when dist/ is the build of exactly the sources present now (its
 * stamp, dist/build-stamp.json, written last by a successful build). Run here, unchanged, on a tiny
 * project of the same shape (src/ compiled by tsconfig.build.json, the assets it copies, the test
 * titles it records, a JSON file outside src/ that a source imports): every kind of change makes the
 * stamp stale (build.mjs's own check, asked in-process: a tsc run costs ~1 s of CPU, the check
 * milliseconds), a stale stamp is a full build whose dist/ has the changes, and a failed build leaves
 * no stamp behind.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));

const FILES: Record<string, string> = {
  'package.json': '{ "name": "tiny", "type": "module" }\n',
  'tsconfig.json': `${JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      resolveJsonModule: true,
      allowImportingTsExtensions: true,
      lib: ['ES2022'],
      types: [],
    },
  })}\n`,
  'tsconfig.build.json': `${JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: {
      noEmit: false,
      outDir: 'dist',
      rootDir: '.',
      declaration: true,
      rewriteRelativeImportExtensions: true,
    },
    include: ['src'],
    exclude: ['**/*.test.ts'],
  })}\n`,
  'spec/data.json': '{ "answer": 42 }\n',
  'src/index.ts':
    "import data from '../spec/data.json' with { type: 'json' };\nexport const answer: number = data.answer;\n",
  // Without @types/node (a tenth of the compiler's time here): the two functions the fixture uses.
  'src/node.d.ts':
    "declare module 'node:fs' {\n  export function readFileSync(path: string, encoding: 'utf8'): string;\n}\n" +
    "declare module 'node:path' {\n  export function join(...parts: string[]): string;\n}\n",
  'src/check/test-titles.ts':
    "import { readFileSync } from 'node:fs';\nimport { join } from 'node:path';\n" +
    'export function testCoverage(root: string, dirs: readonly string[]): Map<string, string[]> {\n' +
    "  const text = readFileSync(join(root, dirs[0] ?? '', 'a.test.ts'), 'utf8');\n" +
    "  return new Map([[text.trim(), ['src/a.test.ts']]]);\n}\n",
  'src/cli/coverage.ts': "export const TEST_DIRS = ['src'] as const;\n",
  'src/a.test.ts': 'title one\n',
  'src/cli/worker/boot.mjs': 'export const boot = 1;\n',
  'src/vectors/sources/v.json': '{}\n',
};

let root = '';

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** Runs the project's build script on the tiny project; what it said, and its exit code. */
function build(): { status: number | null; said: string } {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: r.status, said: `${r.stdout}${r.stderr}` };
}

/** Builds and says whether tsc ran (a full build) or the stamp served dist/ as it was. */
function buildKind(): 'full' | 'skipped' {
  const r = build();
  expect(r.status, r.said).toBe(0);
  if (r.said.includes('no tsc run')) return 'skipped';
  expect(r.said).toContain('ready');
  return 'full';
}

const dist = (rel: string) => readFileSync(join(root, 'dist', rel), 'utf8');

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cetp-sim-build-stamp-'));
  for (const [rel, text] of Object.entries(FILES)) write(rel, text);
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(REPO, 'scripts', 'build.mjs'), join(root, 'scripts', 'build.mjs'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** build.mjs's own check (what it runs before deciding to build), imported from the tiny project's copy. */
type CheckStamp = (root: string) => { fresh: boolean; why: string };
let checkStamp: CheckStamp = () => expect.unreachable('build.mjs not imported');

/** Each kind of change the stamp must see, with how to undo it (the stamp digests content, so undoing restores it). */
function changes(): { what: string; apply: () => void; undo: () => void }[] {
  const edit = (what: string, rel: string, text: string) => {
    const before = readFileSync(join(root, rel), 'utf8');
    return { what, apply: () => write(rel, text), undo: () => write(rel, before) };
  };
  return [
    edit('an edited source', 'src/index.ts', `${FILES['src/index.ts']}export const edited = 1;\n`),
    {
      what: 'a new source file',
      apply: () => write('src/new.ts', 'export const n = 1;\n'),
      undo: () => rmSync(join(root, 'src/new.ts')),
    },
    edit('a JSON file a source imports from outside src/', 'spec/data.json', '{ "answer": 44 }\n'),
    edit('a config', 'tsconfig.json', FILES['tsconfig.json']?.replace('"ES2022"', '"ES2023"') ?? ''),
    edit('a test title', 'src/a.test.ts', 'title three\n'),
    edit('an asset', 'src/cli/worker/boot.mjs', 'export const boot = 3;\n'),
    edit('a file of dist/ edited', 'dist/src/index.js', `${dist('src/index.js')}// stale\n`),
    (() => {
      const before = dist('src/extra.js');
      return {
        what: 'a file of dist/ lost',
        apply: () => rmSync(join(root, 'dist/src/extra.js')),
        undo: () => write('dist/src/extra.js', before),
      };
    })(),
  ];
}

describe('scripts/build.mjs and its stamp', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    const script = pathToFileURL(join(root, 'scripts', 'build.mjs')).href;
    checkStamp = ((await import(script)) as { checkStamp: CheckStamp }).checkStamp;
  });

  it('builds, then serves the same dist/ without tsc while nothing changed', () => {
    expect(buildKind()).toBe('full');
    expect(dist('src/index.js')).toContain('answer');
    expect(JSON.parse(dist('rule-tests.json'))).toEqual({ 'title one': ['src/a.test.ts'] });
    expect(buildKind()).toBe('skipped');
    expect(buildKind()).toBe('skipped');
  });

  it('a stale stamp is a full build, and the new dist/ has each change: sources, a new file, a title, an asset', () => {
    appendFileSync(join(root, 'src/index.ts'), 'export const edited = "edit-1";\n');
    write('src/extra.ts', 'export const extra = "extra-1";\n');
    write('spec/data.json', '{ "answer": 43 }\n');
    write('src/a.test.ts', 'title two\n');
    write('src/cli/worker/boot.mjs', 'export const boot = 2;\n');
    expect(buildKind()).toBe('full');
    expect(dist('src/index.js')).toContain('edit-1');
    expect(dist('src/extra.js')).toContain('extra-1');
    expect(JSON.parse(dist('rule-tests.json'))).toEqual({ 'title two': ['src/a.test.ts'] });
    expect(dist('src/cli/worker/boot.mjs')).toContain('boot = 2');
    expect(buildKind()).toBe('skipped');
  });

  it('each kind of change makes the stamp stale (build.mjs’s own check, no tsc run), and undoing it makes it fresh again', () => {
    expect(checkStamp(root)).toEqual({ fresh: true, why: 'dist/ is the build of these sources' });
    for (const change of changes()) {
      change.apply();
      expect(checkStamp(root).fresh, change.what).toBe(false);
      change.undo();
      expect(checkStamp(root).fresh, `${change.what}, undone`).toBe(true);
    }
  });

  it('dist/ edited or a file of it lost since the build: rebuilt, not served', () => {
    appendFileSync(join(root, 'dist/src/index.js'), '// stale\n');
    rmSync(join(root, 'dist/src/extra.js'));
    expect(buildKind()).toBe('full');
    expect(dist('src/index.js')).not.toContain('stale');
    expect(dist('src/extra.js')).toContain('extra-1');
  });

  it('a failed build leaves no stamp: the build after the fix is a full one', () => {
    write('src/extra.ts', 'export const extra: number = "not a number";\n');
    const failed = build();
    expect(failed.status).not.toBe(0);
    expect(failed.said).toContain('TS2322');
    write('src/extra.ts', 'export const extra = "extra-2";\n');
    expect(buildKind()).toBe('full');
    expect(dist('src/extra.js')).toContain('extra-2');
    expect(buildKind()).toBe('skipped');
  });
});
