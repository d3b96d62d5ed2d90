/**
 * The one source scanner of the source-rule tests (issue 33; after TigerBeetle's tidy.zig, one
 * parser for every rule): src/tidy.test.ts (function length), src/import-graph.test.ts (layers,
 * circles, file length), src/source-guards.test.ts (ambient time, module state) and
 * src/providers/sdk/structure.test.ts (the SDK's file cycles) walk the tree, parse with the TypeScript
 * parser and read imports through here. Test support only: nothing else imports it and the package
 * does not ship it (tsconfig.build.json leaves src/tidy/ out).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root (absolute, with a trailing separator). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WalkOptions {
  /** Include `*.test.ts` files (default: no). */
  readonly tests?: boolean;
  /** Folder names not entered (default: node_modules). */
  readonly skip?: readonly string[];
}

/** The TypeScript files under `dir` (absolute paths), in directory order. */
export function sourceFiles(dir: string, options: WalkOptions = {}): string[] {
  const skip = options.skip ?? ['node_modules'];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(entry.name) ? [] : sourceFiles(path, options);
    return entry.name.endsWith('.ts') && (options.tests === true || !entry.name.endsWith('.test.ts'))
      ? [path]
      : [];
  });
}

/** `file` parsed (its text read unless given), with parent links: getText and getStart work on every node. */
export function parse(file: string, text: string = readFileSync(file, 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** The module specifier a node names: an import or re-export, a dynamic import(), an import('…') type. */
function specifierOf(node: ts.Node): ts.Expression | undefined {
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return node.moduleSpecifier;
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
    return node.arguments[0];
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return node.argument.literal;
  return undefined;
}

/**
 * Every relative import of `source` — imports and re-exports, type-only ones included (a type-only
 * arrow still ties two files' meanings together), dynamic imports and import types — as absolute paths.
 */
export function importsOf(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const spec = specifierOf(node);
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.'))
      found.push(resolve(dirname(source.fileName), spec.text));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The import circles of `graph` (file → the files it imports): its strongly connected components of
 * two or more files, and a file that imports itself; each sorted, the lot by first file.
 */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) component.push(w);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
