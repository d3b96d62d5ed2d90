/**
 * Where `vectors generate --out DIR` may write: an empty or absent folder, or one holding a corpus
 * cetp-sim generated — its manifest.json has `format` cetp-vectors/1 and `generator.name` cetp-sim
 * (the marker) — with nothing else in it but the hand-written README.md and baselines/*.json. Only the
 * files that manifest lists (and it lists only relative paths inside the folder) are ever removed.
 * Anything else is the user's: the first such file is named and nothing is written or removed.
 */
import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CorpusError, type CorpusIssue } from './corpus.ts';
import { CorpusReader, FileRefused, pathProblem } from './files.ts';
import { FORMAT_ID } from './format.ts';

/** Files beside a generated corpus that are not generated (vectors/README.md, example baselines). */
const HAND_WRITTEN = (path: string) => path === 'README.md' || /^baselines\/[^/]+\.json$/.test(path);

export interface OutDir {
  /** The files the corpus already there lists (empty: a new folder). */
  readonly listed: ReadonlySet<string>;
  /** The vector files among them, as the manifest lists them (for ids that left the sources). */
  readonly vectorFiles: readonly string[];
  /** baselines/*.json kept beside the corpus. */
  readonly baselines: readonly string[];
}

/** Every entry under `dir` that is not a directory, sorted, as paths relative to it; links not followed. */
function entriesUnder(dir: string, prefix = ''): { path: string; entry: Dirent }[] {
  const entries = readdirSync(join(dir, prefix), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return entries.flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? entriesUnder(dir, path) : [{ path, entry }];
  });
}

const refuse = (issue: CorpusIssue): never => {
  throw new CorpusError([issue]);
};

/** The manifest's listed paths, each checked to stay inside the folder. */
function listedPaths(manifest: Record<string, unknown>): { listed: Set<string>; vectorFiles: string[] } {
  const listed = new Set(['manifest.json', 'uncovered.md']);
  const vectorFiles: string[] = [];
  for (const key of ['files', 'schemas'] as const) {
    const entries = manifest[key];
    if (!Array.isArray(entries)) refuse({ file: 'manifest.json', path: `$.${key}`, message: 'not a list' });
    (entries as unknown[]).forEach((entry, i) => {
      const path = (entry as { path?: unknown } | null)?.path;
      const problem = pathProblem(path);
      if (problem !== null) refuse({ file: 'manifest.json', path: `$.${key}[${i}].path`, message: problem });
      listed.add(path as string);
      if (key === 'files') vectorFiles.push(path as string);
    });
  }
  const blobs = manifest.blobs;
  if (!Array.isArray(blobs)) refuse({ file: 'manifest.json', path: '$.blobs', message: 'not a list' });
  (blobs as unknown[]).forEach((blob, i) => {
    const sha256 = (blob as { sha256?: unknown } | null)?.sha256;
    if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))
      refuse({ file: 'manifest.json', path: `$.blobs[${i}].sha256`, message: 'not a SHA-256' });
    listed.add(`blobs/${sha256 as string}`);
  });
  return { listed, vectorFiles };
}

/**
 * What `dir` holds, if generate may write there; else a CorpusError naming the first foreign file
 * (or the manifest's field that points outside the folder). Nothing is written or removed here.
 */
export function inspectOutDir(dir: string): OutDir {
  let root: ReturnType<typeof lstatSync> | undefined;
  try {
    root = lstatSync(dir, { throwIfNoEntry: false });
  } catch (error) {
    refuse({ file: dir, path: '$', message: `cannot be read: ${(error as NodeJS.ErrnoException).code}` });
  }
  const empty: OutDir = { listed: new Set(), vectorFiles: [], baselines: [] };
  if (root === undefined) return empty;
  if (!root.isDirectory()) refuse({ file: dir, path: '$', message: 'is not a directory' });
  const found = entriesUnder(dir);
  const first = found[0];
  if (first === undefined) return empty;
  const reader = new CorpusReader(dir);
  const foreign = (path: string, why: string) =>
    refuse({
      file: join(dir, path),
      path: '$',
      message: `${why}: vectors generate writes only into an empty folder or one holding a corpus it generated, and removes nothing it did not write (choose another --out)`,
    });
  let manifest: unknown;
  try {
    const bytes = reader.bytes('manifest.json');
    manifest = bytes === null ? null : JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    if (!(error instanceof FileRefused) && !(error instanceof SyntaxError)) throw error;
    manifest = null;
  }
  const m = manifest as { format?: unknown; generator?: { name?: unknown } } | null;
  if (typeof m !== 'object' || m === null || m.format !== FORMAT_ID || m.generator?.name !== 'cetp-sim')
    return foreign(first.path, 'not part of a corpus cetp-sim generated (no manifest.json of one here)');
  const { listed, vectorFiles } = listedPaths(manifest as Record<string, unknown>);
  const baselines: string[] = [];
  for (const { path, entry } of found) {
    if (!entry.isFile())
      foreign(path, `is not a regular file (${entry.isSymbolicLink() ? 'a link' : 'special'})`);
    if (listed.has(path)) continue;
    if (!HAND_WRITTEN(path)) foreign(path, "not listed in the corpus's manifest");
    if (path.startsWith('baselines/')) baselines.push(path);
  }
  return { listed, vectorFiles, baselines };
}

/** Files the old manifest listed that the new corpus does not have and that are still there. */
export function staleFiles(dir: string, out: OutDir, next: ReadonlyMap<string, string>): string[] {
  const reader = new CorpusReader(dir);
  return [...out.listed].filter((path) => !next.has(path) && reader.inspect(path).kind === 'file');
}
