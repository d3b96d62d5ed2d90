/**
 * The docs, the spec notes and the code's comments point only at files in the repository: a clone
 * has no `../shared`, no author's absolute paths, and every relative link or backquoted repository
 * path names a file that exists (docs/design.md: what the code cites must live in the repo).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'reports', '.stryker-tmp', 'target']);

function walk(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

const MARKDOWN = walk(ROOT, (f) => f.endsWith('.md'));
const CODE = ['src', 'properties', 'bench', 'test', 'examples', 'scripts', 'bin'].flatMap((d) =>
  existsSync(join(ROOT, d)) ? walk(join(ROOT, d), (f) => /\.(ts|mjs|js)$/.test(f)) : [],
);
/** A path outside the clone: the shared folder beside it, or the authors' workplace. */
const OUTSIDE = /\.\.\/shared\/|(?<![\w.])\/work\/[\w.-]+/;
const REPO_PATH = /`((?:src|docs|spec|bench|vectors|properties|runners|examples|test|scripts)\/[^`\s]*)`/g;

/** Candidate paths a text names, without placeholders, globs or URLs. */
function named(text: string): { link: string[]; repo: string[] } {
  const plain = (t: string | undefined): t is string =>
    t !== undefined && !/^(https?:|mailto:|#)/.test(t) && !/[<>*{}$…]/.test(t);
  return {
    link: [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]?.split('#')[0]).filter(plain),
    repo: [...text.matchAll(REPO_PATH)].map((m) => m[1]).filter(plain),
  };
}

const tidy = (t: string): string =>
  t
    .replace(/#.*$/, '')
    .replace(/[.,:;)]+$/, '')
    .replace(/:\d+(-\d+)?$/, '');

describe('docs point only inside the repository', () => {
  it('no markdown file names ../shared or an absolute path of a machine', () => {
    const bad = MARKDOWN.filter((f) => OUTSIDE.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(bad).toEqual([]);
  });

  it('no source file names ../shared or an absolute path of a machine', () => {
    const self = relative(ROOT, import.meta.filename);
    const bad = CODE.filter((f) => relative(ROOT, f) !== self)
      .filter((f) => OUTSIDE.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(bad).toEqual([]);
  });

  it('every relative markdown link and backquoted repository path exists', () => {
    const missing: string[] = [];
    for (const file of MARKDOWN) {
      const text = readFileSync(file, 'utf8');
      const { link, repo } = named(text);
      for (const l of link.map(tidy))
        if (l !== '' && !existsSync(join(dirname(file), l))) missing.push(`${relative(ROOT, file)} → ${l}`);
      // Build outputs (a Maven `target/`, `dist/`) are named, not committed: a fresh clone has none.
      for (const p of repo.map(tidy).filter((p) => !/(^|\/)(target|dist)(\/|$)/.test(p)))
        if (!existsSync(join(ROOT, p))) missing.push(`${relative(ROOT, file)} → ${p}`);
    }
    expect(missing).toEqual([]);
  });

  it('the code cites the design law where it lives (docs/design.md)', () => {
    const bare = CODE.filter((f) => /\bDESIGN\.md\b/.test(readFileSync(f, 'utf8'))).map((f) =>
      relative(ROOT, f),
    );
    expect(bare).toEqual([]);
    expect(existsSync(join(ROOT, 'docs/design.md'))).toBe(true);
  });
});
