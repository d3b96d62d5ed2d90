/**
 * `vectors generate`: fills the corpus from the sources by running each against the reference
 * fixture in the simulation, recording its answers generalised (generalise.ts), then replaying the
 * filled vector through the runner's own judge — a vector the reference does not pass is never
 * written. Output is deterministic (seeded worlds, ordered keys, no times), so regenerating on a
 * clean tree changes no byte; the manifest carries every file's SHA-256.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { REFERENCE } from '../fuzz/scenario/model.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { CONSUMER_FORMAT_ID, type ConsumerVector, type ConsumerVectorFile } from './consumer-format.ts';
import { CorpusError } from './corpus.ts';
import { loadReasons, uncoveredMarkdown, type VectorCoverage, vectorCoverage } from './coverage.ts';
import { type EngineResult, type Judge, runVectorInWorld, vectorJudge } from './engine.ts';
import { CorpusReader, FileRefused } from './files.ts';
import { fixtureInfo, REFERENCE_FIXTURES } from './fixtures.ts';
import {
  BUILTIN_VARIABLES,
  type Expect,
  type FdExpect,
  type FlagInfo,
  FORMAT_ID,
  FORMAT_VERSION,
  type Manifest,
  type Step,
  type Vector,
  type VectorFile,
} from './format.ts';
import { generalise, override } from './generalise.ts';
import { type Blobs, type ConsumerSource, fillConsumerVector } from './generate-consumer.ts';
import { isMatcher, matchJsonValue } from './matchers.ts';
import { inspectOutDir, type OutDir } from './out-dir.ts';
import { SCHEMA_FILES } from './schemas.ts';
import {
  type Check,
  expandSteps,
  type SourceFile,
  type SourceStep,
  type SourceVector,
  sessionVariable,
} from './source.ts';
import type { Actual, Vars } from './typed.ts';

export const SOURCES_DIR = new URL('./sources/', import.meta.url);
/** Files of the sources folder that are registries, not vector sources. */
const REGISTRIES: ReadonlySet<string> = new Set(['flags.json', 'uncovered.json']);
export const SPEC_VERSION = 'CETP v2 (experimental), rules of spec/rules.json';
const GENERATOR_VERSION = '0.1.0';

export class GenerationError extends Error {
  override readonly name = 'GenerationError';
}

/** A reply as plain JSON, for `check` paths. */
function plain(actual: Actual): unknown {
  if (actual.type === 'bundle')
    return Object.fromEntries(Object.entries(actual.value).map(([k, v]) => [k, plain(v)]));
  if (actual.type === 'null') return null;
  if ('value' in actual) return actual.value;
  return actual;
}

function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current === 'string' && /^[[{]/.test(current)) current = JSON.parse(current);
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function checkReply(id: string, index: number, check: Check | undefined, actual: Actual, vars: Vars): void {
  for (const [path, want] of Object.entries(check ?? {})) {
    const got = at(plain(actual), path);
    const mismatches =
      isMatcher(want) || typeof want !== 'object' ? matchJsonValue(want, got, vars, path) : [];
    if (mismatches.length > 0)
      throw new GenerationError(
        `${id} step ${index}: the reference answered against the source's check: ${mismatches[0]?.path} ${mismatches[0]?.message}`,
      );
  }
}

/** A second caller's session token is its own variable (so both callers keep theirs). */
const SECOND_SESSION = { 'data.session_token': { $match: 'capture', as: sessionVariable('second') } };

function refine(step: SourceStep, e: Expect): Expect {
  const own = 'override' in step ? (step.override ?? {}) : {};
  const overrides =
    step.op === 'negotiate' && step.caller === 'second' && isSuccess(e) ? { ...SECOND_SESSION, ...own } : own;
  return Object.entries(overrides).reduce((acc, [path, value]) => override(acc, path, value), e);
}

function isSuccess(e: Expect): boolean {
  if (isMatcher(e) || e.type !== 'bundle') return false;
  const status = e.value.status;
  return status !== undefined && 'value' in status && status.value === 'success';
}

/** The judge that records: generalises each answer, checks it against the source, refines it. */
function recordingJudge(source: SourceVector, steps: Step[]): Judge {
  const judged = (i: number) => source.steps[i] as SourceStep;
  return {
    reply: (i, actual, vars) => {
      const s = judged(i);
      checkReply(source.id, i, 'check' in s ? s.check : undefined, actual, vars);
      const expect = refine(s, generalise(actual, vars));
      steps[i] = { ...(steps[i] as Step), expect } as Step;
      return expect;
    },
    parallel: (i, actuals, vars) => {
      const s = judged(i);
      const groups = new Map<string, { count: number; reply: Expect }>();
      for (const actual of actuals) {
        checkReply(source.id, i, 'check' in s ? s.check : undefined, actual, vars);
        const reply = refine(s, generalise(actual, vars));
        const key = JSON.stringify(reply);
        const group = groups.get(key);
        if (group) group.count++;
        else groups.set(key, { count: 1, reply });
      }
      const expect = [...groups.values()];
      steps[i] = { ...(steps[i] as Step), expect } as Step;
      return expect;
    },
    fd: (i, got, vars) => {
      // The digest and size the reply declared (captured) are what the bytes must match (4.5-03).
      const bound = (name: string, value: unknown) => vars.get(name) === value;
      const expect: FdExpect = {
        size: bound('size_bytes', got.size) ? { $match: 'ref', name: 'size_bytes' } : got.size,
        sha256: bound('sha256', got.sha256) ? { $match: 'ref', name: 'sha256' } : got.sha256,
      };
      steps[i] = { ...(steps[i] as Step), expect } as Step;
      return expect;
    },
  };
}

function failed(id: string, what: string, result: EngineResult): never {
  const f = result.failures[0];
  throw new GenerationError(`${id}: ${what} at step ${f?.step}: ${f?.path} ${f?.message}`);
}

async function fillConsumer(source: ConsumerSource, blobs: Blobs): Promise<ConsumerVector> {
  try {
    return await fillConsumerVector(source, blobs);
  } catch (error) {
    throw new GenerationError((error as Error).message);
  }
}

export function fixtureNamed(
  name: string,
  fixtures: readonly ProviderFixture[] = REFERENCE_FIXTURES,
): ProviderFixture {
  const fixture = fixtures.find((f) => f.name === name);
  if (!fixture) throw new GenerationError(`no provider fixture named '${name}'`);
  return fixture;
}

/** Fills one source vector from the reference, and proves the filled vector passes. */
export async function fillVector(source: SourceVector): Promise<Vector> {
  const fixture = fixtureNamed(source.provider);
  const { steps, fresh } = expandSteps(source);
  const { steps: _sourceSteps, ...meta } = source;
  const draft: Vector = { ...meta, fresh, steps };
  const recorded = await runVectorInWorld(draft, {
    fixture,
    variant: REFERENCE,
    judge: recordingJudge(source, steps),
  });
  if (recorded.failures.length > 0) failed(source.id, 'the reference failed while recording', recorded);
  const vector: Vector = { ...meta, fresh, steps };
  const replayed = await runVectorInWorld(vector, {
    fixture,
    variant: REFERENCE,
    judge: vectorJudge(vector),
  });
  if (replayed.failures.length > 0) failed(source.id, 'the filled vector fails on the reference', replayed);
  return vector;
}

export function loadSources(dir: URL = SOURCES_DIR): {
  files: SourceFile[];
  flags: Record<string, FlagInfo>;
  digest: string;
} {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const texts = names.map((n) => readFileSync(new URL(n, dir), 'utf8'));
  const digest = sha256Hex(names.map((n, i) => `${n}\n${texts[i]}`).join('\n'));
  const flagsIndex = names.indexOf('flags.json');
  const flags = flagsIndex < 0 ? {} : (JSON.parse(texts[flagsIndex] as string) as Record<string, FlagInfo>);
  const files = names.flatMap((n, i) =>
    REGISTRIES.has(n) ? [] : [JSON.parse(texts[i] as string) as SourceFile],
  );
  return { files, flags, digest };
}

/** Every file of the corpus, by path under vectors/, as the exact bytes to write. */
export type Corpus = Map<string, string>;

const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export interface Generated {
  readonly corpus: Corpus;
  readonly vectors: number;
  readonly coverage: VectorCoverage;
}

/** The whole corpus: vector files, schemas, uncovered.md and the manifest, as bytes by path. */
export async function generateCorpus(): Promise<Generated> {
  const { files, flags, digest } = loadSources();
  const corpus: Corpus = new Map();
  const all: Vector[] = [];
  let consumerCount = 0;
  const seen = new Set<string>();
  const blobs: Blobs = new Map();
  const checkSource = (source: { id: string; flags: readonly string[] }) => {
    if (seen.has(source.id)) throw new GenerationError(`vector id ${source.id} is used twice`);
    seen.add(source.id);
    const unknown = source.flags.filter((f) => !(f in flags));
    if (unknown.length > 0)
      throw new GenerationError(`${source.id}: flags not in flags.json: ${unknown.join(', ')}`);
  };
  for (const file of files) {
    const path = join(file.area, `${file.area}.json`);
    if (file.side === 'consumer') {
      const vectors: ConsumerVector[] = [];
      for (const source of file.vectors as readonly ConsumerSource[]) {
        checkSource(source);
        vectors.push(await fillConsumer(source, blobs));
      }
      consumerCount += vectors.length;
      const out: ConsumerVectorFile = {
        format: CONSUMER_FORMAT_ID,
        area: file.area,
        description: file.description,
        vectors,
      };
      corpus.set(path, text(out));
      continue;
    }
    const vectors: Vector[] = [];
    for (const source of file.vectors as readonly SourceVector[]) {
      checkSource(source);
      vectors.push(await fillVector(source));
    }
    all.push(...vectors);
    const out: VectorFile = { format: FORMAT_ID, area: file.area, description: file.description, vectors };
    corpus.set(path, text(out));
  }
  const blobList = [...blobs].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [sha256, bytes] of blobList) corpus.set(join('blobs', sha256), new TextDecoder().decode(bytes));
  for (const [name, schema] of Object.entries(SCHEMA_FILES)) corpus.set(join('schemas', name), text(schema));
  const entries = (paths: string[], count: (p: string) => number) =>
    paths.map((path) => ({ path, sha256: sha256Hex(corpus.get(path) as string), vectors: count(path) }));
  const vectorFiles = [...corpus.keys()].filter((p) => !p.startsWith('schemas') && !p.startsWith('blobs'));
  const manifest: Manifest = {
    format: FORMAT_ID,
    format_version: FORMAT_VERSION,
    spec: SPEC_VERSION,
    generator: { name: 'cetp-sim', version: GENERATOR_VERSION, sources_sha256: digest },
    variables: BUILTIN_VARIABLES,
    fixtures: fixtureInfo(),
    flags,
    files: entries(vectorFiles, (p) => (JSON.parse(corpus.get(p) as string) as VectorFile).vectors.length),
    schemas: entries(
      [...corpus.keys()].filter((p) => p.startsWith('schemas')),
      () => 0,
    ),
    blobs: blobList.map(([sha256, bytes]) => ({ sha256, size: bytes.length })),
  };
  const coverage = vectorCoverage(all, loadReasons(new URL('uncovered.json', SOURCES_DIR)));
  corpus.set('uncovered.md', uncoveredMarkdown(coverage));
  corpus.set('manifest.json', text(manifest));
  return { corpus, vectors: all.length + consumerCount, coverage };
}

/**
 * Ids in the corpus already at `dir` that the new corpus no longer has. Ids are never reused: a
 * vector is retired by marking it `deprecated` in its source, never by deleting it. Only the vector
 * files the old manifest lists are read (out-dir.ts), confined to the folder (files.ts).
 */
export function droppedIds(dir: string, corpus: Corpus, out: OutDir = inspectOutDir(dir)): string[] {
  const reader = new CorpusReader(dir);
  const ids = (texts: Iterable<readonly [string, string]>) =>
    new Set(
      [...texts].flatMap(([path, t]) => {
        let file: { vectors?: { id: string }[] };
        try {
          file = JSON.parse(t);
        } catch (error) {
          throw new CorpusError([
            { file: path, path: '$', message: `not JSON: ${(error as Error).message}` },
          ]);
        }
        return (file?.vectors ?? []).map((v) => v.id);
      }),
    );
  const previous = out.vectorFiles.flatMap((path): [string, string][] => {
    try {
      const bytes = reader.bytes(path);
      return bytes === null ? [] : [[path, bytes.toString('utf8')]];
    } catch (error) {
      if (error instanceof FileRefused)
        throw new CorpusError([{ file: path, path: '$', message: error.reason }]);
      throw error;
    }
  });
  const vectorFile = (path: string) => /^[a-z_]+\/[a-z_]+\.json$/.test(path);
  const now = ids([...corpus].filter(([path]) => vectorFile(path)));
  return [...ids(previous)].filter((id) => !now.has(id));
}
