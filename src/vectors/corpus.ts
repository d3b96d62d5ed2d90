/**
 * Loading and verifying a vector corpus (a `vectors/` folder, ours or one vendored into a device
 * repo): the manifest and every file against their JSON Schemas, every file's SHA-256 against the
 * manifest, every blob a vector refers to, and what a schema cannot say (a `repeat` of an earlier
 * call, a flag or fixture the manifest declares, a regex that compiles, ids used once). Every
 * problem names its file and JSON path. Nothing in a corpus is ever executed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { caches } from '../base/caches.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { Ajv2020, type ErrorObject } from '../protocol/schemas/ajv.ts';
import { CONSUMER_FORMAT_ID, type ConsumerVector, type ConsumerVectorFile } from './consumer-format.ts';
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

function readJson(dir: string, file: string, issues: CorpusIssue[]): { text: string; value: unknown } | null {
  const full = join(dir, file);
  if (!existsSync(full)) {
    issues.push({ file, path: '$', message: 'file is missing' });
    return null;
  }
  const text = readFileSync(full, 'utf8');
  try {
    return { text, value: JSON.parse(text) };
  } catch (error) {
    issues.push({ file, path: '$', message: `not JSON: ${(error as Error).message}` });
    return null;
  }
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
function blobProblems(dir: string, values: Readonly<Record<string, ReplyValue>> | null): string[] {
  const problems: string[] = [];
  for (const value of sentValues(values))
    if (value.type === 'fd' && 'sha256' in value) {
      const blob = join(dir, 'blobs', value.sha256);
      if (!existsSync(blob)) problems.push(`blob ${value.sha256} is missing from blobs/`);
      else if (statSync(blob).size !== value.size)
        problems.push(`blob ${value.sha256} is not ${value.size} bytes`);
    }
  return problems;
}

/** What the schema cannot check in one consumer vector. */
function consumerIssues(
  dir: string,
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
    for (const problem of blobProblems(dir, r.reply))
      issues.push({ file, path: `${at}.replies[${i}]`, message: problem });
  });
  return issues;
}

/** What the schema cannot check in one vector. */
function vectorIssues(dir: string, file: string, at: string, v: Vector, manifest: Manifest): CorpusIssue[] {
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
    for (const value of sentValues(extras))
      if (value.type === 'fd' && 'sha256' in value) {
        const blob = join(dir, 'blobs', value.sha256);
        if (!existsSync(blob)) add(`.steps[${i}]`, `blob ${value.sha256} is missing from blobs/`);
        else if (statSync(blob).size !== value.size)
          add(`.steps[${i}]`, `blob ${value.sha256} is not ${value.size} bytes`);
      }
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

function checkHashes(dir: string, manifest: Manifest, issues: CorpusIssue[]): void {
  const listed = [...manifest.files, ...manifest.schemas];
  listed.forEach((entry, i) => {
    const key = i < manifest.files.length ? `files[${i}]` : `schemas[${i - manifest.files.length}]`;
    const full = join(dir, entry.path);
    if (!existsSync(full)) {
      issues.push({
        file: 'manifest.json',
        path: `$.${key}.path`,
        message: `${entry.path} is missing`,
      });
      return;
    }
    const actual = sha256Hex(readFileSync(full));
    if (actual !== entry.sha256)
      issues.push({
        file: 'manifest.json',
        path: `$.${key}.sha256`,
        message: `${entry.path} has SHA-256 ${actual}`,
      });
  });
  manifest.blobs.forEach((blob, i) => {
    const full = join(dir, 'blobs', blob.sha256);
    if (!existsSync(full) || sha256Hex(readFileSync(full)) !== blob.sha256)
      issues.push({
        file: 'manifest.json',
        path: `$.blobs[${i}]`,
        message: `blob ${blob.sha256} is missing or altered`,
      });
  });
  const known = new Set(listed.map((e) => e.path));
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
  const m = readJson(dir, 'manifest.json', issues);
  if (!m) return { issues, corpus: null };
  const validateManifest = validators.get().manifest;
  if (!validateManifest(m.value)) {
    issues.push({ file: 'manifest.json', ...bestError(validateManifest.errors ?? []) });
    return { issues, corpus: null };
  }
  const manifest = m.value as unknown as Manifest;
  checkHashes(dir, manifest, issues);
  const files: { path: string; content: VectorFile }[] = [];
  const consumerFiles: { path: string; content: ConsumerVectorFile }[] = [];
  const ids = new Map<string, string>();
  const seenId = (path: string, at: string, id: string) => {
    const other = ids.get(id);
    if (other) issues.push({ file: path, path: `${at}.id`, message: `id ${id} is also used in ${other}` });
    ids.set(id, path);
  };
  for (const entry of manifest.files) {
    const f = readJson(dir, entry.path, issues);
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
        issues.push(...consumerIssues(dir, entry.path, `$.vectors[${i}]`, v, manifest));
      });
      consumerFiles.push({ path: entry.path, content });
      continue;
    }
    const content = f.value as unknown as VectorFile;
    content.vectors.forEach((v, i) => {
      const at = `$.vectors[${i}]`;
      seenId(entry.path, at, v.id);
      issues.push(...vectorIssues(dir, entry.path, at, v, manifest));
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

/** Reads a blob of the corpus (verified against the manifest when the corpus was loaded). */
export function blobReader(corpus: Pick<Corpus, 'dir'>): (sha256: string) => Uint8Array {
  return (sha256) => readFileSync(join(corpus.dir, 'blobs', sha256));
}
