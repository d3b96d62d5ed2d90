/**
 * Tidy (after TigerBeetle's tidy.zig): rules about the shape of the code, read with the TypeScript
 * parser through the source-rule tests' one scanner (src/tidy/source-scan.ts). Functions stay short: at most MAX_FUNCTION_LINES lines (a function, method, accessor or
 * arrow function, in the non-test sources of src/). The functions longer than that when the rule came
 * (issue 33) are listed in tidy-long-functions.json with their length: a ratchet — no function may
 * join the list, and a listed one may only shrink (lower its figure when it does; drop it when it
 * fits).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, ROOT, sourceFiles } from './tidy/source-scan.ts';
import LISTED from './tidy-long-functions.json' with { type: 'json' };

const MAX_FUNCTION_LINES = 70;

/** The name a function node goes by: its own, or what it is assigned to; `<fn>` when it has none. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) return named.name.text;
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    if (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name)) return parent.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '<fn>';
}

/** Every function of `text` longer than `max` lines: `file name` (nested: outer/inner, repeats #2…) → lines. */
function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES): Map<string, number> {
  const source = parse(file, text);
  const out = new Map<string, number>();
  const seen = new Map<string, number>();
  const visit = (node: ts.Node, path: string): void => {
    let next = path;
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const base = `${path}${path ? '/' : ''}${nameOf(node)}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      next = n > 1 ? `${base}#${n}` : base;
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > max) out.set(`${file} ${next}`, end - start + 1);
    } else if (ts.isClassDeclaration(node) && node.name) next = `${path}${path ? '/' : ''}${node.name.text}`;
    ts.forEachChild(node, (child) => visit(child, next));
  };
  visit(source, '');
  return out;
}

describe('tidy', () => {
  const found = new Map<string, number>();
  for (const file of sourceFiles(join(ROOT, 'src'), { skip: ['node_modules', 'testdata'] }))
    for (const [key, lines] of longFunctions(relative(ROOT, file), readFileSync(file, 'utf8')))
      found.set(key, lines);
  const listed = LISTED as Record<string, number>;

  it(`no function over ${MAX_FUNCTION_LINES} lines joins the list, and a listed one only shrinks`, () => {
    const grown = [...found].filter(([key, lines]) => lines > (listed[key] ?? MAX_FUNCTION_LINES));
    expect(
      grown.map(([key, lines]) => `${key}: ${lines} lines (allowed ${listed[key] ?? MAX_FUNCTION_LINES})`),
    ).toEqual([]);
  });

  it('lists no function that is gone or now fits (keep the ratchet tight)', () => {
    const stale = Object.keys(listed).filter((key) => (found.get(key) ?? 0) < (listed[key] ?? 0));
    expect(stale).toEqual([]);
  });

  it('sees a long function, a method and an arrow, named by where they are', () => {
    const body = (n: number) => '  x;\n'.repeat(n);
    const text = `function outer() {\n${body(3)}  const inner = () => {\n${body(4)}  };\n}\nclass K {\n  m() {\n${body(5)}  }\n}\n`;
    expect([...longFunctions('f.ts', text, 4)]).toEqual([
      ['f.ts outer', 11],
      ['f.ts outer/inner', 6],
      ['f.ts K/m', 7],
    ]);
  });
});
