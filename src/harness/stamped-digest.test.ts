import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cetpSimHash, moduleHash } from './code-identity.ts';
import { stampedDigest } from './stamped-digest.ts';

const dir = mkdtempSync(join(tmpdir(), 'stamped-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file dated `ageS` seconds ago (settled: its digest may be recorded). */
function write(path: string, text: string, ageS = 60): void {
  writeFileSync(path, text);
  const at = new Date(Date.UTC(2026, 0, 1) - ageS * 1000);
  utimesSync(path, at, at);
}

describe('stampedDigest: a digest of files, remembered by their stamps', () => {
  it('is computed once while nothing changed, again when a stamped path changed', () => {
    const file = join(dir, 'once.txt');
    write(file, 'one');
    let computed = 0;
    const digest = () =>
      stampedDigest(`test\0${file}`, (stamps) => {
        computed++;
        stamps.set(file, `${file.length}`);
        stamps.set(dir, '-');
        return `d${computed}`;
      });
    // The stamps recorded above are wrong on purpose (a directory that "does not exist"): never reused.
    expect([digest(), digest()]).toEqual(['d1', 'd2']);
  });

  it('moduleHash sees an edit of the same size, and a file added where an import looks', () => {
    const mod = join(dir, 'mod');
    mkdirSync(mod);
    write(join(mod, 'entry.ts'), "import { x } from './lib/x.js';\nexport const y = x;\n");
    mkdirSync(join(mod, 'lib'));
    write(join(mod, 'lib', 'x.ts'), 'export const x = 1;\n');
    for (const d of [join(mod, 'lib'), mod]) utimesSync(d, new Date(0), new Date(0));
    const first = moduleHash('entry.ts', mod);
    expect(moduleHash('entry.ts', mod)).toBe(first); // from the record
    write(join(mod, 'lib', 'x.ts'), 'export const x = 2;\n', 30); // same size, other mtime
    const edited = moduleHash('entry.ts', mod);
    expect(edited).not.toBe(first);
    write(join(mod, 'lib', 'x.ts'), 'export const x = 1;\n', 20);
    expect(moduleHash('entry.ts', mod)).toBe(first);
    // './lib/x.js' now names a file of its own: it, not x.ts, is what the import reaches.
    write(join(mod, 'lib', 'x.js'), 'export const x = 3;\n');
    expect(moduleHash('entry.ts', mod)).not.toBe(first);
  });

  it('cetpSimHash is the same computed or recorded', () => {
    expect(cetpSimHash()).toBe(cetpSimHash());
    expect(cetpSimHash()).toMatch(/^[0-9a-f]{64}$/);
  });
});
