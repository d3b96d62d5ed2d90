/**
 * The bundled worker (bundle.ts): cetp-sim's own worker code as one JavaScript file, cached by the
 * hash of its content, answering jobs exactly as the CLI's own thread does.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCorpus, runInputs } from '../../vectors/corpus.ts';
import { DEFAULT_VECTORS_DIR } from '../commands/vectors.ts';
import { tempDir } from '../testing.ts';
import { bundleWorkerSource, ownCodeWorker, sourcesKey, writeBundle } from './bundle.ts';
import { cachedBundle, splitBundle } from './bundler.mjs';
import { InProcessHost, WorkerHost } from './pool.ts';
import type { Job } from './protocol.ts';

const hosts: WorkerHost[] = [];
afterAll(() => Promise.all(hosts.map((h) => h.close())));

const withoutTimes = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === 'ms' || key === 'msToFailure' ? 0 : v)));

describe("the CLI's bundle (bin/cetp-sim.js in a checkout)", () => {
  it('is built again when an input it was built from changes, and reused while none does', async () => {
    const dir = tempDir('cetp-sim-cli-bundle-');
    const entry = join(dir, 'entry.ts');
    const past = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
    writeFileSync(entry, "export { value } from './value.ts';\n");
    writeFileSync(join(dir, 'value.ts'), 'export const value: number = 1;\n');
    past(entry, 1_000);
    past(join(dir, 'value.ts'), 1_000);
    const first = await cachedBundle(entry);
    expect((await import(first.href)).value).toBe(1);
    expect((await cachedBundle(entry)).href).toBe(first.href);
    writeFileSync(join(dir, 'value.ts'), 'export const value: number = 2;\n');
    past(join(dir, 'value.ts'), 2_000);
    const second = await cachedBundle(entry);
    expect(second.href).not.toBe(first.href);
    expect((await import(second.href)).value).toBe(2);
  });

  it('runs as the sources through tsx do (the same output, byte for byte)', () => {
    const bin = fileURLToPath(new URL('../../../bin/cetp-sim.js', import.meta.url));
    const help = (from: string) =>
      spawnSync(process.execPath, [bin, 'fuzz', '--help'], {
        env: { ...process.env, CETP_SIM_FROM: from, NO_COLOR: '1' },
        encoding: 'utf8',
      });
    const [bundled, tsx] = [help('source'), help('tsx')];
    expect(bundled.status).toBe(0);
    expect(bundled.stdout).toContain('--provider');
    expect(bundled.stdout).toBe(tsx.stdout);
    expect(bundled.stderr).toBe(tsx.stderr);
  });
});

describe('the worker bundle', () => {
  it('is found again by a key of its sources: a file changed, added or touched changes the key', () => {
    const root = tempDir('cetp-sim-sources-');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'sub', 'b.ts'), 'export const b = 1;\n');
    writeFileSync(join(root, 'notes.md'), 'not a source\n');
    const key = sourcesKey([root]);
    expect(sourcesKey([root])).toBe(key);
    writeFileSync(join(root, 'notes.md'), 'still not a source, longer\n');
    expect(sourcesKey([root])).toBe(key);
    writeFileSync(join(root, 'sub', 'b.ts'), 'export const b = 22;\n');
    const changed = sourcesKey([root]);
    expect(changed).not.toBe(key);
    utimesSync(join(root, 'a.ts'), new Date(0), new Date(0));
    expect(sourcesKey([root])).not.toBe(changed);
    const touched = sourcesKey([root]);
    writeFileSync(join(root, 'c.ts'), '');
    expect(sourcesKey([root])).not.toBe(touched);
  });

  it("holds cetp-sim's own code with each file's own import.meta.url; dependencies stay imports", async () => {
    const text = await bundleWorkerSource();
    expect(text).not.toContain('import.meta.url');
    const root = pathToFileURL(fileURLToPath(new URL('../../harness/root.ts', import.meta.url))).href;
    expect(text).toContain(JSON.stringify(root));
    expect(text).toMatch(/from "ajv"|from "ajv\//);
    expect(text).not.toContain("from 'tsx");
  });

  it('is named by its content: the same text is reused, another text gets another file', () => {
    const dir = tempDir('cetp-sim-bundle-');
    const first = writeBundle(dir, 'export const a = 1;\n');
    const mtime = statSync(first).mtimeMs;
    expect(writeBundle(dir, 'export const a = 1;\n')).toBe(first);
    expect(statSync(first).mtimeMs).toBe(mtime);
    const second = writeBundle(dir, 'export const a = 2;\n');
    expect(second).not.toBe(first);
    expect(readdirSync(dir).sort()).toEqual([first, second].map((p) => p.slice(dir.length + 1)).sort());
    // A day later, writing a third removes the two stale ones, never the one it wrote.
    const third = writeBundle(dir, 'export const a = 3;\n', Date.now() + 2 * 24 * 3_600_000);
    expect(readdirSync(dir)).toEqual([third.slice(dir.length + 1)]);
  });

  const envelope = runInputs(loadCorpus(DEFAULT_VECTORS_DIR)).find((f) => f.path.startsWith('envelope/'));
  const jobs: [string, Job][] = [
    [
      'a planted bug hunted',
      { kind: 'mutant', mutant: 'v1-lists-write-tools', seed: 3, runsPerProperty: 50, tails: ['fifo'] },
    ],
    [
      'a vector file run (files found next to the sources)',
      {
        kind: 'vectors',
        file: envelope ?? { path: 'missing' },
        dir: DEFAULT_VECTORS_DIR,
        profiles: ['core'],
        modules: {},
        cwd: process.cwd(),
      },
    ],
  ];

  it.each(jobs)('%s: a worker started from it answers as the CLI thread does', async (_, job) => {
    const entry = await ownCodeWorker();
    expect(entry).not.toBeNull();
    const worker = new WorkerHost(entry ?? undefined);
    hosts.push(worker);
    const here = await new InProcessHost().run(job, { budgetMs: 600_000 });
    const there = await worker.run(job, { budgetMs: 600_000 });
    expect(there.kind).toBe('done');
    expect(withoutTimes(there)).toEqual(withoutTimes(here));
  });
});

describe('the split bundle (user-module workers, boot.mjs)', () => {
  /** Each .mjs file of the split bundle (a path relative to it) and its text. */
  const filesOf = (dir: string): Map<string, string> =>
    new Map(
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((name) => name.endsWith('.mjs'))
        .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
    );
  const FACADE = /^export \{[^}]*\} from "(\.\.\/)+core\.mjs";\n$/;

  it('holds each source file once: the core in core.mjs, behind facades the other entries import', async () => {
    const files = filesOf(await splitBundle());
    const facades = [...files].filter(([name, text]) => name.startsWith('src/') && FACADE.test(text));
    expect(facades.length).toBeGreaterThan(100); // the simulation, the checkers, the fuzz engine, …
    expect(
      files.has('src/cli/worker/worker.mjs') && !FACADE.test(files.get('src/cli/worker/worker.mjs') ?? ''),
    ).toBe(true);
    // esbuild marks each source file it bundles with a comment naming it (a file of re-exports has no
    // code to mark): a core file's code is in core.mjs, never in another entry or a chunk.
    const holdersOf = (source: string) =>
      [...files].filter(([, text]) => text.includes(`// ${source}\n`)).map(([file]) => file);
    expect(holdersOf('src/sim/world.ts')).toEqual(['core.mjs']);
    for (const [name] of facades)
      expect(
        holdersOf(name.replace(/\.mjs$/, '.ts')).filter((file) => file !== 'core.mjs'),
        name,
      ).toEqual([]);
  });

  it("a facade is the core's module: one World class whichever file a module imports it from", async () => {
    const dir = await splitBundle();
    const url = (name: string) => pathToFileURL(join(dir, name)).href;
    const index = (await import(url('src/index.mjs'))) as { World: unknown };
    const world = (await import(url('src/sim/world.mjs'))) as { World: unknown };
    expect(typeof index.World).toBe('function');
    expect(world.World).toBe(index.World);
  });
});
