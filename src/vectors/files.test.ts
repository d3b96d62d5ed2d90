/**
 * The corpus reader's confinement (files.ts): which paths may name a corpus file, and the per-file and
 * per-corpus bounds, both checked before a file is opened.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CorpusReader, FileRefused, pathProblem } from './files.ts';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('corpus paths', () => {
  it('only plain relative paths inside the folder', () => {
    expect(pathProblem('envelope/envelope.json')).toBeNull();
    expect(pathProblem('../../etc/passwd')).toMatch(/outside the corpus folder/);
    expect(pathProblem('a/../../b')).toMatch(/outside the corpus folder/);
    expect(pathProblem('/etc/passwd')).toMatch(/absolute/);
    expect(pathProblem('C:\\x')).toMatch(/absolute/);
    expect(pathProblem('a//b')).toMatch(/not a plain relative path/);
    expect(pathProblem('./a')).toMatch(/not a plain relative path/);
    expect(pathProblem('a\0b')).toMatch(/NUL/);
    expect(pathProblem(3)).toMatch(/not a path/);
  });
});

describe('bounds', () => {
  it('a file past the per-file bound, and one that would take the corpus past its bound, are refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cetp-files-'));
    temps.push(dir);
    writeFileSync(join(dir, 'a'), '12345678');
    writeFileSync(join(dir, 'b'), '12345678');
    writeFileSync(join(dir, 'big'), '12345678901');
    const reader = new CorpusReader(dir, { file: 10, corpus: 15 });
    expect(reader.inspect('big')).toEqual({ kind: 'refused', reason: 'is larger than 10 bytes (11)' });
    expect(reader.bytes('a')?.toString()).toBe('12345678');
    expect(() => reader.bytes('b')).toThrow(FileRefused);
    expect(() => reader.bytes('b')).toThrow(/past 15 bytes/);
    expect(reader.refused('b')).toBe(true);
    expect(reader.bytes('missing')).toBeNull();
  });
});
