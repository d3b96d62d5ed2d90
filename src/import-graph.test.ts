/**
 * The import graph of the tree, read by the source-rule tests' one scanner (src/tidy/source-scan.ts:
 * every import and re-export, type-only ones included — a type-only arrow still ties two files'
 * meanings together):
 * - src/sim has no hub: no file that world.ts reaches imports world.ts back (issue 16); the folder's
 *   modules take what they need of the world through narrow host interfaces (BinderHost, ContentHost,
 *   ActivityHost, ContextHost, FdHost, StorageHost, UserHost);
 * - folders stay in their layers (issue 33), lowest first: base < sim < protocol < subjects <
 *   providers < consumer < check < fuzz < harness, vectors < index.ts, vitest.ts < zoo < cli. A file
 *   imports its own folder and the layers below it, never a layer above nor a neighbour of its own
 *   layer (harness and vectors know nothing of each other); src/protocol knows nothing of the
 *   simulation either. No exceptions: nothing in src/ imports properties/ (tests, controls and
 *   regressions, a plain user of src/), and the fuzz engine lives in src/fuzz;
 * - no file in src/ over 500 lines (counted as wc -l counts them), tests included: every source,
 *   test and document; only the vector corpus's JSON data (src/vectors/sources/*.json) is not code
 *   and is not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf as absoluteImportsOf, circles, parse, ROOT, sourceFiles } from './tidy/source-scan.ts';

/** Relative imports and re-exports of `text` (a file at `file`), as paths from the repository root. */
function importsOf(file: string, text: string): string[] {
  return absoluteImportsOf(parse(file, text)).map((f) => relative(ROOT, f));
}

type Graph = ReadonlyMap<string, readonly string[]>;

/** Each file's imports, read once for all the graphs of this file. */
const IMPORTS = new Map<string, string[]>();
function importsOnce(file: string): string[] {
  const found = IMPORTS.get(file) ?? importsOf(file, readFileSync(file, 'utf8'));
  IMPORTS.set(file, found);
  return found;
}

function graphOf(files: readonly string[]): Graph {
  return new Map(files.map((f) => [relative(ROOT, f), importsOnce(f)]));
}

/** Files reachable from `start` (not counting `start` unless a path leads back to it). */
function reachable(graph: Graph, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.get(start) ?? [])];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.get(next) ?? []));
  }
  return seen;
}

/** The files that lie on an import circle through `hub`: reachable from it, and reaching it. */
function circleThrough(graph: Graph, hub: string): string[] {
  return [...reachable(graph, hub)].filter((f) => f === hub || reachable(graph, f).has(hub)).sort();
}

/** Arrows from a file under `from` to a file under one of `to` (folders, from the repository root). */
function arrows(graph: Graph, from: string, to: readonly string[], except: readonly string[] = []): string[] {
  return [...graph]
    .filter(([file]) => file.startsWith(from) && !except.some((e) => file.startsWith(e)))
    .flatMap(([file, deps]) =>
      deps.filter((d) => to.some((t) => d.startsWith(t))).map((d) => `${file} -> ${d}`),
    );
}

/** The layers of src/, lowest first: a file may import its own folder and the layers below. */
const LAYERS: readonly (readonly string[])[] = [
  // src/tidy/ is the source-rule tests' scanner (test support, imports nothing of src/).
  ['src/base/', 'src/tidy/'],
  ['src/sim/'],
  ['src/protocol/'],
  ['src/subjects/'],
  ['src/providers/'],
  ['src/consumer/'],
  ['src/check/'],
  ['src/fuzz/'],
  ['src/harness/', 'src/vectors/'],
  ['src/index.ts', 'src/vitest.ts'],
  ['src/zoo/'],
  ['src/cli/'],
];

/** [layer, folder] of a file of src/ (undefined outside the layers). */
function placeOf(file: string): readonly [number, string] | undefined {
  for (const [layer, folders] of LAYERS.entries()) {
    const folder = folders.find((f) => file.startsWith(f));
    if (folder !== undefined) return [layer, folder];
  }
  return undefined;
}

/** Arrows up a layer, or across to a neighbour in the same layer; files of src/ outside every layer. */
function layerBreaches(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    if (!file.startsWith('src/')) continue;
    const from = placeOf(file);
    if (from === undefined) {
      out.push(`${file}: in no layer`);
      continue;
    }
    for (const dep of deps) {
      const to = placeOf(dep);
      if (to === undefined || to[1] === from[1]) continue;
      if (to[0] >= from[0]) out.push(`${file} -> ${dep}`);
    }
  }
  return out.sort();
}

/**
 * The import circles left when the check came (issue 33), type-only arrows included: a ratchet —
 * a circle must lie inside one of these (they may only shrink or break), none may appear elsewhere.
 * src/sim has none since its reorganisation into rooms (each room's shared types in a leaf module).
 */
const KNOWN_CIRCLES: readonly (readonly string[])[] = [
  ['src/protocol/annotations.ts', 'src/protocol/schemas/tool.ts'],
  ['src/protocol/methods.ts', 'src/protocol/schemas/negotiate.ts', 'src/protocol/schemas/registry.ts'],
  [
    'src/consumer/confirmation.ts',
    'src/consumer/options.ts',
    'src/consumer/parts.ts',
    'src/consumer/planted.ts',
  ],
  ['src/consumer/execution.ts', 'src/consumer/operations.ts'],
  ['src/cli/commands/matrix.ts', 'src/cli/matrix-doc.ts'],
];

/** Circles not inside a known one. */
function newCircles(graph: Graph, known: readonly (readonly string[])[] = KNOWN_CIRCLES): string[][] {
  return circles(graph).filter((c) => !known.some((k) => c.every((f) => k.includes(f))));
}

/** Every file under `dir` except JSON data (the vector corpus), tests and documents included. */
function everyFile(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : everyFile(path);
    return entry.name.endsWith('.json') ? [] : [path];
  });
}

/** Lines as `wc -l` counts them: newline characters, plus a last line that has none. */
function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text === '' || text.endsWith('\n') ? newlines : newlines + 1;
}

const MAX_LINES = 500;

/** The files of `files` (path, text) over MAX_LINES lines. */
function longFiles(files: Iterable<readonly [string, string]>): { file: string; lines: number }[] {
  return [...files]
    .map(([file, text]) => ({ file, lines: lineCount(text) }))
    .filter((f) => f.lines > MAX_LINES);
}

describe('the import graph', () => {
  const graph = graphOf([...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'properties'))]);

  it('reads the tree', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('src/sim/world.ts')).toContain('src/sim/binder/binder.ts');
  });

  it('has no import circle through src/sim/world.ts (no hub)', () => {
    expect(circleThrough(graph, 'src/sim/world.ts')).toEqual([]);
  });

  it('keeps the folders in their layers, with no exception', () => {
    expect(layerBreaches(graph)).toEqual([]);
    expect(arrows(graph, 'src/protocol/', ['src/sim/'])).toEqual([]);
    expect(arrows(graph, 'src/', ['properties/'])).toEqual([]);
    expect(graph.has('src/fuzz/fuzz.ts')).toBe(true);
    const engineInProperties = [...graph.keys()].filter(
      (f) => f.startsWith('properties/') && !/^properties\/(controls|regressions|user-apps)\//.test(f),
    );
    expect(engineInProperties).toEqual([]);
  });

  it('has no new import circle, type-only imports included (issue 33)', () => {
    expect(newCircles(graphOf(sourceFiles(join(ROOT, 'src'))))).toEqual([]);
  });

  it('has no import circle at all in src/sim, none allowed back (its rooms, issue 33)', () => {
    expect(circles(graphOf(sourceFiles(join(ROOT, 'src', 'sim'))))).toEqual([]);
    expect(KNOWN_CIRCLES.flat().filter((f) => f.startsWith('src/sim/'))).toEqual([]);
  });

  it('sees an import circle when there is one', () => {
    const probe: Graph = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts', 'src/x.ts']],
      ['src/c.ts', ['src/a.ts']],
      ['src/d.ts', ['src/a.ts']],
      ['src/x.ts', []],
    ]);
    expect(circles(probe)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
    expect(newCircles(probe, [['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/z.ts']])).toEqual([]);
    expect(newCircles(probe, [['src/a.ts', 'src/b.ts']])).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });

  it('has no file in src over 500 lines, tests included (issue 16)', () => {
    const files = everyFile(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain(join(ROOT, 'src', 'providers', 'apps', 'payments.test.ts'));
    expect(longFiles(files.map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')] as const))).toEqual([]);
  });

  it('sees a file over 500 lines when there is one', () => {
    const probe = [
      ['src/at-limit.ts', 'x\n'.repeat(500)],
      ['src/no-final-newline.ts', 'x\n'.repeat(499) + 'x'],
      ['src/one-over.test.ts', 'x\n'.repeat(501)],
      ['src/one-over-no-final-newline.ts', 'x\n'.repeat(500) + 'x'],
    ] as const;
    expect(longFiles(probe)).toEqual([
      { file: 'src/one-over.test.ts', lines: 501 },
      { file: 'src/one-over-no-final-newline.ts', lines: 501 },
    ]);
    expect(lineCount('')).toBe(0);
  });

  it('sees a circle and a stray arrow when there is one', () => {
    const probe: Graph = new Map([
      ['src/sim/world.ts', ['src/sim/binder/binder.ts', 'src/sim/core/rng.ts']],
      ['src/sim/binder/binder.ts', ['src/sim/binder/parcel.ts']],
      ['src/sim/binder/parcel.ts', ['src/sim/world.ts']],
      ['src/sim/core/rng.ts', []],
      ['src/protocol/digest.ts', ['src/sim/memo.ts']],
    ]);
    expect(circleThrough(probe, 'src/sim/world.ts')).toEqual([
      'src/sim/binder/binder.ts',
      'src/sim/binder/parcel.ts',
      'src/sim/world.ts',
    ]);
    expect(arrows(probe, 'src/protocol/', ['src/sim/'])).toEqual([
      'src/protocol/digest.ts -> src/sim/memo.ts',
    ]);
    const layered: Graph = new Map([
      ['src/fuzz/fuzz.ts', ['src/check/checker.ts', 'src/fuzz/scenario/model.ts']],
      ['src/check/checker.ts', ['src/fuzz/suites.ts', 'src/subjects/subjects.ts']],
      ['src/harness/replay.ts', ['src/vectors/run.ts', 'src/fuzz/fuzz.ts']],
      ['src/stray.ts', []],
    ]);
    expect(layerBreaches(layered)).toEqual([
      'src/check/checker.ts -> src/fuzz/suites.ts',
      'src/harness/replay.ts -> src/vectors/run.ts',
      'src/stray.ts: in no layer',
    ]);
    const text = "import type { World } from '../world.ts';\nexport { x } from '../../base/memo.ts';\n";
    expect(importsOf(join(ROOT, 'src/sim/binder/binder.ts'), text)).toEqual([
      'src/sim/world.ts',
      'src/base/memo.ts',
    ]);
  });
});
