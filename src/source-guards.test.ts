/**
 * Guards over the source text itself, for rules a test of behaviour cannot see:
 * - the determinism law (docs/design.md): no ambient time or randomness in src/ outside src/cli;
 * - no object literal with its own getter or setter: V8 gives each such literal a hidden class of its
 *   own, kept in the old generation, so the accessor's closure — and everything it reaches, a whole
 *   simulated world — survives every young-generation GC (README, Benchmarks). Use a class accessor.
 * - no shared state at module level, in src/ and properties/ (issue 16): no top-level `let` or `var`,
 *   and no module-level mutable collection — a Map, Set, WeakMap, WeakSet, array or memo made at
 *   top level (or as a static class field) — outside the one holder of caches, src/base/caches.ts.
 *   A constant lookup table (a Map or Set made from its contents and never written in its file) is
 *   not state; a cache is made through `caches.memo / map / weakMap / lazy`, named and bounded.
 */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, sourceFiles } from './tidy/source-scan.ts';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const PROPERTIES = fileURLToPath(new URL('../properties/', import.meta.url));
/** The one holder of module-level caches (relative to src/). */
const CACHE_HOLDER = join('base', 'caches.ts');

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Each file parsed once for all the guards of this file (parsing is most of their time). */
const PARSED = new Map<string, ts.SourceFile>();
function parsedOnce(file: string): ts.SourceFile {
  const source = PARSED.get(file) ?? parse(file);
  PARSED.set(file, source);
  return source;
}

/** Every node of `file` for which `matches` holds, as file:line and the node's first line. */
function find(file: string, matches: (node: ts.Node) => boolean): Finding[] {
  const source = parsedOnce(file);
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

/** A top-level `let` or `var`: module state any caller can change. */
function isTopLevelLet(node: ts.Node): boolean {
  return (
    ts.isVariableStatement(node) &&
    ts.isSourceFile(node.parent) &&
    (node.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const
  );
}

/** Constructors whose instance is a mutable collection, a cache, or a holder of compiled state. */
const COLLECTIONS = new Set([
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'Array',
  'BoundedMemo',
  'BoundedMap',
  'Lazy',
]);
const STATEFUL_NAME = /(Cache|Memo|Compiler)$/;
const WRITES = ['add', 'set', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice'];

/** Whether `name` is written through (`name.add(…)`, `name.set(…)`, …) anywhere in the file. */
function writtenInFile(source: ts.SourceFile, name: string): boolean {
  let written = false;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.expression.getText(source) === name &&
      WRITES.includes(node.expression.name.text)
    )
      written = true;
    if (!written) ts.forEachChild(node, visit);
  };
  visit(source);
  return written;
}

/**
 * The module-level state made in a top-level statement: a collection or cache constructed outside
 * any function (in a variable's initializer or a static class field), or an empty `[]` / `{}`
 * bound at top level. A Map or Set made from contents (`new Set(['a'])`) and never written in its
 * file is a constant lookup table and passes.
 */
function moduleStateIn(statement: ts.Statement, source: ts.SourceFile): ts.Node[] {
  const found: ts.Node[] = [];
  const inspect = (init: ts.Expression, binding: string | null): void => {
    if (
      (ts.isArrayLiteralExpression(init) && init.elements.length === 0) ||
      (ts.isObjectLiteralExpression(init) && init.properties.length === 0)
    ) {
      found.push(init);
      return;
    }
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
      if (ts.isNewExpression(node)) {
        const callee = node.expression.getText(source).replace(/<.*$/s, '');
        const constant =
          (callee === 'Map' || callee === 'Set') &&
          (node.arguments?.length ?? 0) > 0 &&
          node === init &&
          binding !== null &&
          !writtenInFile(source, binding);
        if ((COLLECTIONS.has(callee) || STATEFUL_NAME.test(callee)) && !constant) found.push(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(init);
  };
  if (ts.isVariableStatement(statement)) {
    for (const d of statement.declarationList.declarations) {
      if (d.initializer) inspect(d.initializer, ts.isIdentifier(d.name) ? d.name.text : null);
    }
  } else if (ts.isClassDeclaration(statement)) {
    for (const m of statement.members) {
      const isStatic =
        ts.canHaveModifiers(m) && ts.getModifiers(m)?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword);
      if (ts.isPropertyDeclaration(m) && isStatic && m.initializer) inspect(m.initializer, null);
    }
  }
  return found;
}

/**
 * Known module-level state that is not a cache, each with why it may stay. Matched exactly
 * (file and text): anything new fails the guard.
 */
const STATE_EXEMPTIONS: readonly { readonly file: string; readonly text: string; readonly why: string }[] = [
  {
    file: join('providers', 'sdk', 'types.ts'),
    text: 'new Set()',
    why: 'DEFAULT_PROVIDER_OPTIONS.disabledRules / plantedBugs: empty ReadonlySets, never written',
  },
];

function moduleState(file: string): Finding[] {
  if (relative(SRC, file) === CACHE_HOLDER) return [];
  const source = parsedOnce(file);
  return source.statements
    .flatMap((st) => moduleStateIn(st, source))
    .map((node) => ({
      file: relative(SRC, file),
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      text: node.getText(source).split('\n')[0] ?? '',
    }))
    .filter((f) => !STATE_EXEMPTIONS.some((e) => e.file === f.file && e.text === f.text));
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

  // cetp-sim's own code; src/cli/testdata holds stand-ins for users' modules, one of which keeps
  // module state on purpose (the module-state-isolation test needs it).
  const everywhere = [...files, ...sourceFiles(PROPERTIES)].filter(
    (f) => !relative(SRC, f).startsWith(join('cli', 'testdata')),
  );

  it('no top-level let or var, in src/ and properties/ (shared state goes through src/base/caches.ts)', () => {
    expect(everywhere.some((f) => f.startsWith(PROPERTIES))).toBe(true);
    expect(everywhere.flatMap((f) => find(f, isTopLevelLet))).toEqual([]);
  });

  it('no module-level mutable collection or cache outside the holder, in src/ and properties/', () => {
    expect(everywhere.flatMap(moduleState)).toEqual([]);
  });

  it('the state guards see what they look for', () => {
    const text = [
      'let a = 1;',
      'var b = 2;',
      'const c = 3;',
      'const cache = new Map<string, number>();',
      "const LOOKUP = new Set(['x', 'y']);",
      "const grown = new Set(['x']);",
      "grown.add('z');",
      'const memo = new BoundedMemo<string, string>(64);',
      'const list: number[] = [];',
      'const nested = { byId: new WeakMap() };',
      'const compiler = new ToolSchemaCompiler();',
      "const held = caches.memo<string, string>('probe', 8);",
      'class K { static readonly seen = new Set<string>(); local() { const m = new Map(); return m; } }',
      'function f() { const inner = new Map(); let i = 0; return [inner, i]; }',
    ].join('\n');
    const source = parse('probe.ts', text);
    const lets = source.statements.filter(isTopLevelLet).map((s) => s.getText(source));
    expect(lets).toEqual(['let a = 1;', 'var b = 2;']);
    const state = source.statements.flatMap((s) => moduleStateIn(s, source)).map((n) => n.getText(source));
    expect(state).toEqual([
      'new Map<string, number>()',
      "new Set(['x'])",
      'new BoundedMemo<string, string>(64)',
      '[]',
      'new WeakMap()',
      'new ToolSchemaCompiler()',
      'new Set<string>()',
    ]);
  });

  it('the guards see what they look for', () => {
    const probe = join(SRC, 'source-guards.probe.txt');
    const text = 'const a = { get x() { return 1; } };\nconst t = Date.now();\nconst d = new Date();\n';
    const source = parse(probe, text);
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
