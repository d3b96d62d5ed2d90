/**
 * The shape of the provider SDK and the reference consumer (issue 16): no file cycle in the SDK's
 * import graph, no file over 500 lines, no planted-bug branch in the reference code — planted bugs
 * substitute named parts from outside (planted.ts) — and every planted bug really substitutes one.
 * Files and imports are read by the source-rule tests' one scanner (src/tidy/source-scan.ts).
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REFERENCE_CONSUMER_PARTS } from '../../consumer/parts.ts';
import { CONSUMER_PLANTED_BUGS, plantConsumerBugs } from '../../consumer/planted.ts';
import { circles, parse, importsOf as scanImports, sourceFiles } from '../../tidy/source-scan.ts';
import { STEP_NAMES } from './execute/types.ts';
import { REFERENCE_PARTS } from './parts.ts';
import { PROVIDER_PLANTED_BUGS, plantBugs } from './planted.ts';

const SDK = fileURLToPath(new URL('.', import.meta.url));
const SRC = resolve(SDK, '../..');

/** Every relative import of `file`, type-only ones included, as absolute paths. */
const importsOf = (file: string): string[] => scanImports(parse(file));

describe('the provider SDK import graph', () => {
  it('the cycle finder finds cycles (so its silence means something)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no file cycle in src/providers/sdk, type imports included', () => {
    const graph = new Map(sourceFiles(SDK).map((f) => [f, importsOf(f)] as const));
    expect(graph.size).toBeGreaterThan(20);
    const found = circles(graph).map((c) => c.map((f) => relative(SRC, f)));
    expect(found).toEqual([]);
  });
});

describe('file size and planted-bug branches', () => {
  const files = [...sourceFiles(SDK), ...sourceFiles(join(SRC, 'consumer'))];

  it('no file of the SDK or the consumer is over 500 lines', () => {
    const long = files
      .map((f) => ({ file: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > 500);
    expect(long).toEqual([]);
  });

  it('the reference SDK and consumer have no planted-bug branch (`gates.bug(…)`)', () => {
    const branches = files
      .filter((f) => /\.bug\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(branches).toEqual([]);
  });
});

describe('planted bugs are substitutions', () => {
  it('the steps run in the spec order the table declares', () => {
    expect(Object.keys(REFERENCE_PARTS.steps)).toEqual([...STEP_NAMES]);
  });

  it.each(Object.keys(PROVIDER_PLANTED_BUGS))('provider bug %s replaces or wraps a named part', (name) => {
    const planted = plantBugs(REFERENCE_PARTS, [name]);
    const changed = (Object.keys(REFERENCE_PARTS) as (keyof typeof REFERENCE_PARTS)[]).filter(
      (k) => planted[k] !== REFERENCE_PARTS[k],
    );
    const steps = STEP_NAMES.filter((s) => planted.steps[s] !== REFERENCE_PARTS.steps[s]);
    expect(changed.length).toBeGreaterThan(0);
    // Only the steps a bug names change; the rest of the table is the reference's.
    if (!changed.includes('steps')) expect(steps).toEqual([]);
    expect(plantBugs(REFERENCE_PARTS, [])).toBe(REFERENCE_PARTS);
  });

  it.each(Object.keys(CONSUMER_PLANTED_BUGS))('consumer bug %s replaces a named part', (name) => {
    const planted = plantConsumerBugs(REFERENCE_CONSUMER_PARTS, [name]);
    const changed = (
      Object.keys(REFERENCE_CONSUMER_PARTS) as (keyof typeof REFERENCE_CONSUMER_PARTS)[]
    ).filter((k) => planted[k] !== REFERENCE_CONSUMER_PARTS[k]);
    expect(changed).toHaveLength(1);
  });

  it('unknown planted bugs are refused', () => {
    expect(() => plantBugs(REFERENCE_PARTS, ['provider-is-perfect'])).toThrow(RangeError);
    expect(() => plantConsumerBugs(REFERENCE_CONSUMER_PARTS, ['consumer-is-perfect'])).toThrow(RangeError);
  });
});
