// Module hooks of a cetp-sim worker thread, registered after tsx's (so they run first): a user's
// TypeScript module written as an ES module loads as one wherever it lives. Node takes a `.ts` file
// outside a package with "type": "module" (no package.json, or "type": "commonjs") for CommonJS, and
// tsx then compiles it to CommonJS: its `import` of cetp-sim's own ES modules becomes a require() of
// modules the worker is already loading, which Node refuses ("Cannot require() ES Module … in a
// cycle"). Here a `.ts`/`.tsx` file outside node_modules that Node would load as CommonJS, but that
// has ES module syntax (import/export, import.meta, top-level await), is loaded as an ES module —
// the rule Node's own --experimental-detect-module applies, extended to an explicit "commonjs"
// (TypeScript's `import` there means "I am an ES module"; a CommonJS `.ts` file keeps loading as
// CommonJS, and `.cts` always does).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { boundaryViolation, REFUSED, splitEntry } from './boundary.mjs';

const SOURCE = /\.[jt]sx?$/;
const LOADERS = { '.ts': 'ts', tsx: 'tsx', '.js': 'js', jsx: 'jsx' };
const CJS_FORMATS = new Set([undefined, null, 'commonjs', 'commonjs-typescript']);
// What V8 says when CommonJS-wrapped code uses syntax only an ES module may (Node's detection list).
const ESM_ONLY = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  'await is only valid in async functions and the top level bodies of modules',
];

const verdicts = new Map();

/** esbuild's transformSync, required on first use: most workers never need it (~0.05 s to load). */
const transformSync = (...args) => createRequire(import.meta.url)('esbuild').transformSync(...args);

function hasModuleSyntax(file) {
  let verdict = verdicts.get(file);
  if (verdict !== undefined) return verdict;
  let code;
  try {
    const source = readFileSync(file, 'utf8');
    code = transformSync(source, { loader: LOADERS[file.slice(-3)] ?? 'ts', sourcefile: file }).code;
  } catch {
    // Unreadable, or a syntax error: loaded as an ES module, tsx's compiler reports it with its
    // file, line and column (as CommonJS it would surface as a require() cycle instead).
    verdicts.set(file, true);
    return true;
  }
  try {
    compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname']);
    verdict = false;
  } catch (error) {
    verdict = error instanceof SyntaxError && ESM_ONLY.some((m) => error.message.includes(m));
  }
  verdicts.set(file, verdict);
  return verdict;
}

// Run from a checkout (the sources beside this file), a user module's `import … from 'cetp-sim'`
// loads the very sources this worker runs (package.json's "cetp-sim-source" export condition), not
// a dist/ built earlier: one copy of each class, and never stale code.
const FROM_SOURCE = existsSync(new URL('./worker.ts', import.meta.url));

// But a user's project may have its own installed cetp-sim, whose tarball has no src/: where the
// condition names a file that is not there, the package's default export (dist/) is the one.
async function sourceOrDefault(specifier, context, nextResolve) {
  if (!FROM_SOURCE) return nextResolve(specifier, context);
  const base = (context.conditions ?? []).filter((c) => c !== 'cetp-sim-source');
  try {
    const resolved = await nextResolve(specifier, { ...context, conditions: [...base, 'cetp-sim-source'] });
    if (!resolved.url.startsWith('file:') || existsSync(new URL(resolved.url))) return resolved;
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
  return nextResolve(specifier, { ...context, conditions: base });
}

// The split bundle this worker's code was loaded from (boot.mjs), or null: then there is none.
let split = null;

export function initialize(data) {
  split = data?.split ?? null;
}

/** A source file of cetp-sim's, as its entry in the split bundle, when there is one. */
function fromSplit(resolved) {
  if (split === null || !resolved.url.startsWith('file:')) return null;
  const entry = splitEntry(fileURLToPath(resolved.url), split);
  return entry === null ? null : { url: pathToFileURL(entry).href, format: 'module', shortCircuit: true };
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await sourceOrDefault(specifier, context, nextResolve);
  // A user's file may import only cetp-sim's public entries, of this copy (boundary.mjs); code with
  // no file of its own (a data: or blob: module) is never cetp-sim's.
  const parent = context.parentURL;
  if (resolved.url.startsWith('file:') && parent !== undefined) {
    const from = parent.startsWith('file:') ? fileURLToPath(parent) : parent.slice(0, 80);
    const refused = boundaryViolation(specifier, from, fileURLToPath(resolved.url));
    if (refused !== null) throw new Error(REFUSED + refused);
  }
  const bundled = fromSplit(resolved);
  if (bundled !== null) return bundled;
  if (!resolved.url.startsWith('file:') || !CJS_FORMATS.has(resolved.format)) return resolved;
  const url = new URL(resolved.url);
  if (!SOURCE.test(url.pathname) || url.pathname.includes('/node_modules/')) return resolved;
  return hasModuleSyntax(fileURLToPath(url)) ? { ...resolved, format: 'module' } : resolved;
}
