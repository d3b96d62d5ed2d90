/**
 * Loading and verifying a vector corpus (a `vectors/` folder, ours or one vendored into a device
 * repo): the manifest and every file against their JSON Schemas, every file's SHA-256 against the
 * manifest, every blob a vector refers to, and what a schema cannot say (a `repeat` of an earlier
 * call, a flag or fixture the manifest declares, a regex that compiles, ids used once). Every
 * problem names its file and JSON path. Nothing in a corpus is ever executed, and nothing outside its
 * folder is ever read: paths are relative, links are not followed, files are regular and bounded
 * (files.ts), checked before anything is opened.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { caches } from '../base/caches.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { Ajv2020, type ErrorObject } from '../protocol/schemas/ajv.ts';
import { CONSUMER_FORMAT_ID, type ConsumerVector, type ConsumerVectorFile } from './consumer-format.ts';
import { CorpusReader, FileRefused, pathProblem } from './files.ts';
import type { Manifest, ReplyValue, Vector, VectorFile } from './format.ts';
import { isMatcher } from './matchers.ts';
import { CONSUMER_FILE_SCHEMA, MANIFEST_SCHEMA, VECTOR_FILE_SCHEMA } from './schemas.ts';

export interface CorpusIssue {
  readonly file: string;
  readonly path: string;
  readonly message: string;
}

export interface Corpus {
  readonly dir: string;
  readonly manifest: Manifest;
  readonly files: readonly { readonly path: string; readonly content: VectorFile }[];
  readonly consumerFiles: readonly { readonly path: string; readonly content: ConsumerVectorFile }[];
}

export class CorpusError extends Error {
  override readonly name = 'CorpusError';
  constructor(readonly issues: readonly CorpusIssue[]) {
    super(issues.map((i) => `${i.file}: ${i.path}: ${i.message}`).join('\n'));
  }
}

/** Compiled on first use, not at import: a worker thread that runs no vectors never compiles them. */
const validators = caches.lazy('vectors/corpus: the corpus file validators', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return {
    manifest: ajv.compile(MANIFEST_SCHEMA),
    vectorFile: ajv.compile(VECTOR_FILE_SCHEMA),
    consumerFile: ajv.compile(CONSUMER_FILE_SCHEMA),
  };
});

/** `/vectors/0/steps/2` → `$.vectors[0].steps[2]`. */
function jsonPath(pointer: string): string {
  return `$${pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((t) => (/^[0-9]+$/.test(t) ? `[${t}]` : `.${t}`))
    .join('')}`;
}

const COMPOSITE = new Set(['oneOf', 'anyOf', 'if', 'allOf']);

/** The most telling ajv error: the deepest one that is not a mere "no branch matched". */
export function bestError(errors: readonly ErrorObject[]): { path: string; message: string } {
  const ranked = [...errors].sort((a, b) => {
    const depth = b.instancePath.split('/').length - a.instancePath.split('/').length;
    return depth !== 0 ? depth : Number(COMPOSITE.has(a.keyword)) - Number(COMPOSITE.has(b.keyword));
  });
  const e = ranked.find((x) => !COMPOSITE.has(x.keyword)) ?? ranked[0];
  if (!e) return { path: '$', message: 'invalid' };
  const params = e.params as { allowedValues?: unknown; allowedValue?: unknown; additionalProperty?: string };
  const allowed = params.allowedValues ?? params.allowedValue;
  const detail =
    allowed !== undefined
      ? ` (${JSON.stringify(allowed)})`
      : params.additionalProperty !== undefined
        ? ` ('${params.additionalProperty}')`
        : '';
  return { path: jsonPath(e.instancePath), message: `${e.message ?? e.keyword}${detail}` };
}

/** The bytes of `file`, or null with its issue (missing, or refused as files.ts says) reported once. */
function readBytes(reader: CorpusReader, file: string, issues: CorpusIssue[]): Buffer | null {
  const refusedBefore = reader.refused(file);
  try {
    const bytes = reader.bytes(file);
    if (bytes === null) issues.push({ file, path: '$', message: 'file is missing' });
    return bytes;
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    if (!refusedBefore) issues.push({ file, path: '$', message: error.reason });
    return null;
  }
}

function readJson(
  reader: CorpusReader,
  file: string,
  issues: CorpusIssue[],
): { text: string; value: unknown } | null {
  const bytes = readBytes(reader, file, issues);
  if (bytes === null) return null;
  const text = bytes.toString('utf8');
  try {
    return { text, value: JSON.parse(text) };
  } catch (error) {
    issues.push({ file, path: '$', message: `not JSON: ${(error as Error).message}` });
    return null;
  }
}

/** Why the blob `sha256` of `size` bytes is unusable, or null (the file is not opened). */
function blobProblem(reader: CorpusReader, sha256: string, size: number): string | null {
  const found = reader.inspect(join('blobs', sha256));
  if (found.kind === 'missing') return `blob ${sha256} is missing from blobs/`;
  if (found.kind === 'refused') return `blob ${sha256} ${found.reason}`;
  return found.size !== size ? `blob ${sha256} is not ${size} bytes` : null;
}

function* sentValues(values: Readonly<Record<string, ReplyValue>> | null | undefined): Generator<ReplyValue> {
  for (const v of Object.values(values ?? {})) {
    yield v;
    if (v.type === 'bundle' && 'value' in v) yield* sentValues(v.value);
  }
}

function* regexes(e: unknown): Generator<{ pattern: string; path: string }> {
  const walk = function* (node: unknown, path: string): Generator<{ pattern: string; path: string }> {
    if (Array.isArray(node)) for (const [i, x] of node.entries()) yield* walk(x, `${path}[${i}]`);
    else if (typeof node === 'object' && node !== null) {
      if (isMatcher(node) && node.$match === 'regex')
        yield { pattern: node.pattern, path: `${path}.pattern` };
      for (const [k, v] of Object.entries(node)) yield* walk(v, `${path}.${k}`);
    }
  };
  yield* walk(e, '$');
}

/** Fds a vector refers to whose blob is missing or of another size. */
function blobProblems(reader: CorpusReader, values: Readonly<Record<string, ReplyValue>> | null): string[] {
  const problems: string[] = [];
  for (const value of sentValues(values))
    if (value.type === 'fd' && 'sha256' in value) {
      const problem = blobProblem(reader, value.sha256, value.size);
      if (problem !== null) problems.push(problem);
    }
  return problems;
}

/** What the schema cannot check in one consumer vector. */
function consumerIssues(
  reader: CorpusReader,
  file: string,
  at: string,
  v: ConsumerVector,
  manifest: Manifest,
): CorpusIssue[] {
  const issues: CorpusIssue[] = [];
  v.flags.forEach((f, i) => {
    if (!(f in manifest.flags))
      issues.push({
        file,
        path: `${at}.flags[${i}]`,
        message: `flag '${f}' is not in the manifest's flag registry`,
      });
  });
  v.replies.forEach((r, i) => {
    for (const problem of blobProblems(reader, r.reply))
      issues.push({ file, path: `${at}.replies[${i}]`, message: problem });
  });
  return issues;
}

/** What the schema cannot check in one vector. */
function vectorIssues(
  reader: CorpusReader,
  file: string,
  at: string,
  v: Vector,
  manifest: Manifest,
): CorpusIssue[] {
  const issues: CorpusIssue[] = [];
  const add = (path: string, message: string) => issues.push({ file, path: `${at}${path}`, message });
  if (!(v.provider in manifest.fixtures)) add('.provider', `fixture '${v.provider}' is not in the manifest`);
  v.flags.forEach((f, i) => {
    if (!(f in manifest.flags)) add(`.flags[${i}]`, `flag '${f}' is not in the manifest's flag registry`);
  });
  v.steps.forEach((s, i) => {
    if (s.op === 'repeat' && v.steps[s.step]?.op !== 'call')
      add(`.steps[${i}].step`, `repeats step ${s.step}, which is not an earlier call`);
    if (s.op === 'repeat' && s.step >= i) add(`.steps[${i}].step`, 'repeats a later step');
    const extras =
      s.op === 'call' ? s.extras : s.op === 'parallel' || s.op === 'poll-until' ? s.call.extras : null;
    for (const problem of blobProblems(reader, extras)) add(`.steps[${i}]`, problem);
    for (const { pattern, path } of regexes(s))
      try {
        new RegExp(pattern, 'u');
      } catch {
        add(`.steps[${i}]${path.slice(1)}`, `not a valid regex: ${pattern}`);
      }
  });
  return issues;
}

/** Folders of a corpus that hold no vector files (baselines are the user's, outside the manifest). */
const NOT_VECTOR_FOLDERS: ReadonlySet<string> = new Set(['schemas', 'blobs', 'baselines']);

function checkHashes(reader: CorpusReader, manifest: Manifest, issues: CorpusIssue[]): void {
  const listed = [...manifest.files, ...manifest.schemas];
  listed.forEach((entry, i) => {
    const key = i < manifest.files.length ? `files[${i}]` : `schemas[${i - manifest.files.length}]`;
    const problem = pathProblem(entry.path);
    if (problem !== null) {
      issues.push({ file: 'manifest.json', path: `$.${key}.path`, message: problem });
      return;
    }
    if (reader.inspect(entry.path).kind === 'missing') {
      issues.push({
        file: 'manifest.json',
        path: `$.${key}.path`,
        message: `${entry.path} is missing`,
      });
      return;
    }
    const bytes = readBytes(reader, entry.path, issues);
    if (bytes === null) return;
    const actual = sha256Hex(bytes);
    if (actual !== entry.sha256)
      issues.push({
        file: 'manifest.json',
        path: `$.${key}.sha256`,
        message: `${entry.path} has SHA-256 ${actual}`,
      });
  });
  manifest.blobs.forEach((blob, i) => {
    const file = join('blobs', blob.sha256);
    const found = reader.inspect(file);
    if (found.kind === 'refused') {
      readBytes(reader, file, issues);
      return;
    }
    const bytes = found.kind === 'file' ? readBytes(reader, file, issues) : null;
    if (bytes === null || sha256Hex(bytes) !== blob.sha256)
      issues.push({
        file: 'manifest.json',
        path: `$.blobs[${i}]`,
        message: `blob ${blob.sha256} is missing or altered`,
      });
  });
  const known = new Set(listed.map((e) => e.path));
  const dir = reader.root;
  for (const area of readdirSync(dir, { withFileTypes: true }))
    if (area.isDirectory() && !NOT_VECTOR_FOLDERS.has(area.name))
      for (const f of readdirSync(join(dir, area.name)))
        if (f.endsWith('.json') && !known.has(join(area.name, f)))
          issues.push({
            file: relative(dir, join(dir, area.name, f)),
            path: '$',
            message: 'not listed in the manifest',
          });
}

/** Every problem of the corpus in `dir` (empty: it verifies). */
export function verifyCorpus(dir: string): { issues: CorpusIssue[]; corpus: Corpus | null } {
  const issues: CorpusIssue[] = [];
  const reader = new CorpusReader(dir);
  const m = readJson(reader, 'manifest.json', issues);
  if (!m) return { issues, corpus: null };
  const validateManifest = validators.get().manifest;
  if (!validateManifest(m.value)) {
    issues.push({ file: 'manifest.json', ...bestError(validateManifest.errors ?? []) });
    return { issues, corpus: null };
  }
  const manifest = m.value as unknown as Manifest;
  checkHashes(reader, manifest, issues);
  const files: { path: string; content: VectorFile }[] = [];
  const consumerFiles: { path: string; content: ConsumerVectorFile }[] = [];
  const ids = new Map<string, string>();
  const seenId = (path: string, at: string, id: string) => {
    const other = ids.get(id);
    if (other) issues.push({ file: path, path: `${at}.id`, message: `id ${id} is also used in ${other}` });
    ids.set(id, path);
  };
  for (const entry of manifest.files) {
    if (pathProblem(entry.path) !== null) continue;
    const f = readJson(reader, entry.path, issues);
    if (!f) continue;
    const consumer = (f.value as { format?: unknown } | null)?.format === CONSUMER_FORMAT_ID;
    const validate = consumer ? validators.get().consumerFile : validators.get().vectorFile;
    if (!validate(f.value)) {
      issues.push({ file: entry.path, ...bestError(validate.errors ?? []) });
      continue;
    }
    if (consumer) {
      const content = f.value as unknown as ConsumerVectorFile;
      content.vectors.forEach((v, i) => {
        seenId(entry.path, `$.vectors[${i}]`, v.id);
        issues.push(...consumerIssues(reader, entry.path, `$.vectors[${i}]`, v, manifest));
      });
      consumerFiles.push({ path: entry.path, content });
      continue;
    }
    const content = f.value as unknown as VectorFile;
    content.vectors.forEach((v, i) => {
      const at = `$.vectors[${i}]`;
      seenId(entry.path, at, v.id);
      issues.push(...vectorIssues(reader, entry.path, at, v, manifest));
    });
    files.push({ path: entry.path, content });
  }
  return { issues, corpus: { dir, manifest, files, consumerFiles } };
}

/** The corpus in `dir`, or a CorpusError listing its problems. */
export function loadCorpus(dir: string): Corpus {
  const { issues, corpus } = verifyCorpus(dir);
  if (issues.length > 0 || !corpus) throw new CorpusError(issues);
  return corpus;
}

/** Every vector id of the corpus, provider and consumer side. */
export function vectorIds(corpus: Corpus): string[] {
  return [...corpus.files, ...corpus.consumerFiles].flatMap((f) => f.content.vectors.map((v) => v.id));
}

/** The corpus as the runner takes it: each file's provider or consumer vectors. */
export function runInputs(
  corpus: Corpus,
): { path: string; vectors?: readonly Vector[]; consumerVectors?: readonly ConsumerVector[] }[] {
  return [
    ...corpus.files.map((f) => ({ path: f.path, vectors: f.content.vectors })),
    ...corpus.consumerFiles.map((f) => ({ path: f.path, consumerVectors: f.content.vectors })),
  ];
}

/**
 * Reads a blob of the corpus (verified against the manifest when the corpus was loaded), under the
 * same confinement: a blob swapped for a link or a FIFO since is refused, not followed.
 */
export function blobReader(corpus: Pick<Corpus, 'dir'>): (sha256: string) => Uint8Array {
  const reader = new CorpusReader(corpus.dir);
  return (sha256) => {
    const bytes = reader.bytes(join('blobs', sha256));
    if (bytes === null) throw new FileRefused(join('blobs', sha256), 'is missing');
    return bytes;
  };
}
