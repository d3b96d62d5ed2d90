/**
 * Which rule ids the test suite claims to cover: every `it('CETP-x … : …')` title names the rules
 * its test shows. Ranges written "CETP-3.4-01 … CETP-3.4-07" cover every id between them. Used by
 * the coverage gates (`cetp-sim rules --coverage` and the tests that keep coverage from slipping).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { allRules } from '../protocol/index.ts';

const TITLE = /\bit(?:\.each\([^)]*\))?\(\s*(['"`])((?:(?!\1)[\s\S])*?)\1/g;
const RULE = /CETP-\d+(?:\.\d+)?-\d{2}/g;

/** Rule ids named in the test titles of one source text (ranges expanded). */
export function ruleIdsInTitles(source: string): string[] {
  const ordered: string[] = allRules().map((r) => r.id);
  const found = new Set<string>();
  for (const match of source.matchAll(TITLE)) {
    const title = match[2] ?? '';
    const ids = [...title.matchAll(RULE)].map((m) => m[0]);
    for (const id of ids) found.add(id);
    for (const range of title.matchAll(/(CETP-[\d.]+-\d{2})\s*(?:…|\.\.\.)\s*(CETP-[\d.]+-\d{2})/g)) {
      const from = ordered.indexOf(range[1] ?? '');
      const to = ordered.indexOf(range[2] ?? '');
      if (from >= 0 && to >= from) for (const id of ordered.slice(from, to + 1)) found.add(id);
    }
  }
  return [...found];
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** rule id → the test files (relative to `root`) whose titles name it. */
export function testCoverage(root: string, dirs: readonly string[]): Map<string, string[]> {
  const coverage = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const file of testFiles(join(root, dir))) {
      for (const id of ruleIdsInTitles(readFileSync(file, 'utf8'))) {
        const list = coverage.get(id) ?? [];
        list.push(relative(root, file));
        coverage.set(id, list);
      }
    }
  }
  return coverage;
}
