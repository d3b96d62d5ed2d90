/**
 * `vectors generate` reproduces the committed corpus byte for byte (the simulation, the reference
 * apps or the sources changed without regenerating: run `npx cetp-sim vectors generate`), and a
 * source whose check the reference contradicts is refused instead of recorded.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VECTORS_DIR } from '../cli/commands/vectors.ts';
import { droppedIds, fillVector, GenerationError, generateCorpus } from './generate.ts';
import { TEST_VECTOR } from './testing.ts';

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

/** Hand-written beside the generated files: the format's README and example baselines. */
const handWritten = (path: string) => path === 'README.md' || path.startsWith('baselines');

/** Generated once for the file's tests. */
let generated: ReturnType<typeof generateCorpus> | undefined;
const generate = () => {
  generated ??= generateCorpus();
  return generated;
};

describe('vectors generate', () => {
  it('regenerating changes no byte of the committed corpus (run `npx cetp-sim vectors generate` if this fails)', async () => {
    const { corpus, coverage } = await generate();
    const stale = [...corpus].filter(
      ([path, text]) =>
        !existsSync(join(DEFAULT_VECTORS_DIR, path)) ||
        readFileSync(join(DEFAULT_VECTORS_DIR, path), 'utf8') !== text,
    );
    expect(stale.map(([path]) => path)).toEqual([]);
    expect(filesUnder(DEFAULT_VECTORS_DIR).filter((p) => !corpus.has(p) && !handWritten(p))).toEqual([]);
    expect(coverage.uncovered.filter((u) => u.reason === null).map((u) => u.id)).toEqual([]);
  });

  it('CETP-5-01: every error code is produced by some vector; >= 90% of provider-side testable MUST / MUST NOT rules are covered', async () => {
    const { coverage } = await generate();
    expect(coverage.codesMissing).toEqual([]);
    expect(coverage.percent).toBeGreaterThanOrEqual(90);
    expect(coverage.covered.length + coverage.uncovered.length).toBe(coverage.rules.length);
  });

  it('a vector id may not leave the sources (ids are never reused; retire with deprecated)', async () => {
    const { corpus } = await generate();
    expect(droppedIds(DEFAULT_VECTORS_DIR, corpus)).toEqual([]);
    const without = new Map(corpus);
    const path = join('envelope', 'envelope.json');
    const file = JSON.parse(without.get(path) ?? '{}');
    file.vectors = file.vectors.filter((v: { id: string }) => v.id !== 'env-success');
    without.set(path, JSON.stringify(file));
    expect(droppedIds(DEFAULT_VECTORS_DIR, without)).toEqual(['env-success']);
  });

  it('refuses to record a vector whose check the reference contradicts', async () => {
    const source = {
      ...TEST_VECTOR,
      id: 'bad-check',
      title: 'expects success from an unknown method',
      steps: [{ op: 'call', method: 'nope', extras: {}, check: { status: 'success' } }],
    } as const;
    await expect(fillVector(source)).rejects.toThrow(GenerationError);
    await expect(fillVector(source)).rejects.toThrow(/step 0.*status/);
  });
});
