/**
 * Loading a user's module (`--provider MODULE`, `--consumer MODULE`) with a dynamic import. MODULE
 * is a file path, resolved against the current directory, or a package name resolvable from it.
 * TypeScript modules load as well as JavaScript ones: the cetp-sim binary runs under tsx. User
 * modules are imported in worker threads (worker/boot.mjs), whose hooks (worker/esm-hooks.mjs) load
 * a `.ts`/`.js` file with ES module syntax as an ES module wherever it lives — with or without a
 * package.json, even under "type": "commonjs".
 *
 * CommonJS TypeScript — a `.cts` file, or a `.ts` file with `require`/`module.exports` outside an
 * ES module package — runs in Node's own CommonJS loader, whose `require` (unlike the ES module
 * loader's stand-in for hook-compiled CommonJS) can require cetp-sim's ES modules (Node ≥ 20.19):
 * `.cts` files are required rather than imported, and CommonJS `.ts`/`.cts` files get their types
 * stripped (esbuild; a `.cts` file's `import` becomes `require`, as tsc compiles it). A `.ts` file
 * with ES module syntax that CommonJS code requires still loads as the ES module it is.
 * Every way this can go wrong is a CliError (exit 2) naming the flag and the module.
 */
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { isMainThread } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';
import { caches } from '../base/caches.ts';
import { CliError, isCliErrorCode } from '../harness/errors.ts';
import { drainEscapes, escapesAdvice, MODULE_ESCAPES_CHECKER } from '../harness/escapes.ts';
import { changedGlobals, globalsAdvice, restoreGlobals, snapshotGlobals } from '../harness/globals.ts';
import { resolveModule } from '../harness/module-path.ts';
import { watchExports } from '../harness/own-objects.ts';
import * as api from '../index.ts';

/** esbuild's transformSync, required when a module needs it (loading esbuild costs every worker ~0.05 s). */
function transformSync(...args: Parameters<typeof Esbuild.transformSync>): Esbuild.TransformResult {
  return (createRequire(import.meta.url)('esbuild') as typeof Esbuild).transformSync(...args);
}

import { guardAmbient, setPhase } from './worker/ambient.ts';
import { boundaryViolation, REFUSED, SPLIT_BUNDLE, splitEntry } from './worker/boundary.mjs';

export { resolveModule };

/** The user modules this thread imported (the judge's thread must have none: worker/judge.ts). */
const IMPORTED = caches.lazy('cli: user modules imported in this thread', () => new Set<string>());

export function userModulesImportedHere(): readonly string[] {
  return IMPORTED.made ? [...IMPORTED.get()] : [];
}

/** Imports the module a specifier names; its exports, or a CliError. */
export async function importUserModule(
  flag: string,
  specifier: string,
  cwd: string,
): Promise<Record<string, unknown>> {
  const file = resolveModule(flag, specifier, cwd);
  IMPORTED.get().add(file);
  // In a worker thread (where user code runs), calls out of the simulation are watched (ambient.ts),
  // before the globals' baseline: the guards are the globals a module must leave alone.
  const guarded = !isMainThread;
  // cetp-sim's public API is watched like the built-ins (src/harness/own-objects.ts).
  watchExports('cetp-sim', api);
  if (guarded) {
    guardAmbient();
    drainEscapes();
    setPhase('load');
  }
  // cetp-sim's own CommonJS hooks (node:module's _resolveFilename, _extensions) before the baseline.
  installCommonJsTypeScript();
  const globals = snapshotGlobals();
  let module: Record<string, unknown>;
  try {
    if (file.endsWith('.cts')) {
      const exports = createRequire(file)(file) as unknown;
      const named = typeof exports === 'object' && exports !== null ? exports : {};
      module = { ...named, default: exports };
    } else {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    }
  } catch (error) {
    restoreGlobals(globals);
    if (guarded) setPhase('run');
    refuseEscapes(flag, specifier, 'loading the module');
    const refused = refusedImport(error);
    if (refused)
      throw new CliError(
        isCliErrorCode(refused.code) ? refused.code : 'module_load_failed',
        `${flag} ${specifier}: ${refused.message}`,
      );
    throw new CliError(
      'module_load_failed',
      `${flag} ${specifier}: the module failed to load: ${loadFailure(error, file)}`,
    );
  }
  if (guarded) setPhase('run');
  refuseEscapes(flag, specifier, 'loading the module');
  const changed = changedGlobals(globals);
  if (changed.length > 0) {
    restoreGlobals(globals);
    throw new CliError(
      'module_patches_globals',
      `${flag} ${specifier}: loading the module ${globalsAdvice(changed)}`,
    );
  }
  return module;
}

/**
 * Refuses a module whose code called out of the simulation (src/harness/escapes.ts) while it loaded
 * or while cetp-sim checked it (`when`): exit 2, naming the calls and their frames.
 */
export function refuseEscapes(flag: string, specifier: string, when: string): void {
  const escapes = drainEscapes();
  if (escapes.length === 0) return;
  throw new CliError(
    'module_escapes_simulation',
    `${flag} ${specifier}: ${when}, ${escapesAdvice(escapes)} (${MODULE_ESCAPES_CHECKER})`,
  );
}

/** An import the module hooks refused (worker/boundary.mjs): its error code and message. */
function refusedImport(error: unknown): { code: string; message: string } | null {
  const message = error instanceof Error ? error.message : String(error);
  const at = message.indexOf(REFUSED);
  if (at < 0) return null;
  const refused = (message.slice(at + REFUSED.length).split('\n')[0] ?? '').trim();
  const colon = refused.indexOf(': ');
  return { code: refused.slice(0, colon), message: refused.slice(colon + 2) };
}

// What V8 says when CommonJS-wrapped code uses syntax only an ES module may (as esm-hooks.mjs).
const ESM_ONLY = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  'await is only valid in async functions and the top level bodies of modules',
];

/** Does `code` (JavaScript) use syntax only an ES module may? */
function hasModuleSyntax(code: string): boolean {
  try {
    compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname']);
    return false;
  } catch (error) {
    return error instanceof SyntaxError && ESM_ONLY.some((m) => error.message.includes(m));
  }
}

interface CommonJsModule {
  _compile(code: string, filename: string): void;
}
type Extension = (module: CommonJsModule, filename: string) => void;

/**
 * Teaches this thread's CommonJS loader `.cts` and CommonJS `.ts` files (once): types stripped by
 * esbuild, then compiled as Node compiles a `.js` file. A `.ts` file with ES module syntax is handed
 * to the `.js` handler, which loads it as an ES module (through the hooks, as before).
 */
function installCommonJsTypeScript(): void {
  const extensions = (Module as unknown as { _extensions: Record<string, Extension> })._extensions;
  const js = extensions['.js'];
  if (extensions['.cts'] !== undefined || js === undefined) return;
  const compile =
    (cts: boolean): Extension =>
    (module, filename) => {
      const source = readFileSync(filename, 'utf8');
      const stripped = transformSync(source, { loader: 'ts', sourcefile: filename }).code;
      if (!hasModuleSyntax(stripped)) {
        module._compile(stripped, filename);
      } else if (cts) {
        const options = { loader: 'ts', format: 'cjs', sourcefile: filename } as const;
        module._compile(transformSync(source, options).code, filename);
      } else {
        js(module, filename);
      }
    };
  extensions['.cts'] = compile(true);
  extensions['.ts'] ??= compile(false);
  if (!isMainThread) guardCommonJsRequires();
}

type ResolveFilename = (
  request: string,
  parent: { filename?: string } | undefined,
  ...rest: unknown[]
) => string;

/**
 * A `require` from a user's CommonJS file is held to the rule the module hooks hold its imports to
 * (worker/boundary.mjs): only cetp-sim's public entries, of this copy — `require('cetp-sim')` resolves
 * to the compiled dist/ where the hooks give an import the sources, a second copy.
 */
function guardCommonJsRequires(): void {
  const loader = Module as unknown as { _resolveFilename: ResolveFilename };
  const resolveFilename = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request, parent, ...rest) {
    const resolved = resolveFilename.call(this, request, parent, ...rest);
    const from = parent?.filename;
    if (from !== undefined && isAbsolute(resolved)) {
      const refused = boundaryViolation(request, from, resolved);
      if (refused !== null) throw new Error(REFUSED + refused);
    }
    // A worker started from the split bundle runs cetp-sim's sources from there (boot.mjs).
    return splitEntry(resolved, (globalThis as Record<symbol, unknown>)[SPLIT_BUNDLE]) ?? resolved;
  };
}

/**
 * Why a module failed to load, in one line a user can act on: for a syntax error, the file, line,
 * column and what the parser expected (esbuild's own message for TypeScript; for JavaScript, whose
 * SyntaxError carries no position, the same parser run over the file to find it).
 */
export function loadFailure(error: unknown, file: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const located = message.split('\n').find((line) => /:\d+:\d+: ERROR: /.test(line));
  if (located) return `syntax error at ${located.replace(': ERROR: ', ': ')}`;
  if (error instanceof SyntaxError) return syntaxErrorAt(file) ?? message.split('\n')[0] ?? message;
  return message.split('\n')[0] ?? message;
}

function syntaxErrorAt(file: string): string | null {
  try {
    transformSync(readFileSync(file, 'utf8'), {
      loader: /\.[cm]?ts$/.test(file) ? 'ts' : 'js',
      sourcefile: file,
      format: 'esm',
    });
    return null;
  } catch (error) {
    const first = (
      error as {
        errors?: { text: string; location: { file: string; line: number; column: number } | null }[];
      }
    ).errors?.[0];
    if (!first?.location) return null;
    const { line, column } = first.location;
    return `syntax error at ${file}:${line}:${column}: ${first.text}`;
  }
}

/** The first of `names` the module exports, looking in the default export too (CommonJS modules). */
export function exported(module: Record<string, unknown>, names: readonly string[]): unknown {
  const fallback = module.default;
  for (const name of names) {
    if (module[name] !== undefined) return module[name];
    if (typeof fallback === 'object' && fallback !== null && name in fallback)
      return (fallback as Record<string, unknown>)[name];
  }
  return undefined;
}
