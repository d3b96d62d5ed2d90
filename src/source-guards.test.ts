/**
 * Guards over the source text itself, for rules a test of behaviour cannot see:
 * - the determinism law (DESIGN.md): no ambient time or randomness in src/ outside src/cli;
 * - no object literal with its own getter or setter: V8 gives each such literal a hidden class of its
 *   own, kept in the old generation, so the accessor's closure — and everything it reaches, a whole
 *   simulated world — survives every young-generation GC (README, Benchmarks). Use a class accessor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Every node of `file` for which `matches` holds, as file:line and the node's first line. */
function find(file: string, matches: (node: ts.Node) => boolean): Finding[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (matches(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push({
        file: relative(SRC, file),
        line: line + 1,
        text: node.getText(source).split('\n')[0] ?? '',
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const AMBIENT = new Set([
  'Date.now',
  'Math.random',
  'performance.now',
  'process.hrtime',
  'crypto.randomUUID',
]);

function isAmbientCall(node: ts.Node): boolean {
  if (ts.isNewExpression(node)) {
    // new Date() reads the wall clock; new Date(ms) does not.
    return node.expression.getText() === 'Date' && (node.arguments?.length ?? 0) === 0;
  }
  if (!ts.isCallExpression(node)) return false;
  const callee = node.expression.getText();
  return AMBIENT.has(callee) || callee === 'randomUUID' || callee === 'randomBytes';
}

describe('source guards', () => {
  const files = sourceFiles(SRC);

  it('finds the sources it guards', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.endsWith(join('sim', 'world.ts')))).toBe(true);
  });

  it('no ambient time or randomness outside src/cli (the determinism law)', () => {
    const outsideCli = files.filter((f) => !relative(SRC, f).startsWith(`cli${'/'}`));
    expect(outsideCli.flatMap((f) => find(f, isAmbientCall))).toEqual([]);
  });

  it('no object literal with its own getter or setter', () => {
    const accessorLiteral = (node: ts.Node) =>
      ts.isObjectLiteralExpression(node) &&
      node.properties.some((p) => ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p));
    expect(files.flatMap((f) => find(f, accessorLiteral))).toEqual([]);
  });

  it('the guards see what they look for', () => {
    const probe = join(SRC, 'source-guards.probe.txt');
    const text = 'const a = { get x() { return 1; } };\nconst t = Date.now();\nconst d = new Date();\n';
    const source = ts.createSourceFile(probe, text, ts.ScriptTarget.Latest, true);
    const kinds: string[] = [];
    const visit = (node: ts.Node): void => {
      if (isAmbientCall(node)) kinds.push(node.getText(source));
      if (ts.isObjectLiteralExpression(node) && node.properties.some((p) => ts.isGetAccessorDeclaration(p)))
        kinds.push('accessor literal');
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(kinds).toEqual(['accessor literal', 'Date.now()', 'new Date()']);
  });
});
