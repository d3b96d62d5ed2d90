// Where cetp-sim's own code ends and a user's module begins (issue #31). Shared by the module hooks
// (esm-hooks.mjs, the thread that resolves imports) and the worker thread that runs the module
// (escapes.ts: which stack frame is the module's; module-loader.ts: CommonJS requires). Plain
// JavaScript, since the hooks thread loads it before any TypeScript support.
//
// cetp-sim's own code is every file of its package — the directory of its package.json, outside
// node_modules — except directories marked as user code by a file named USER_MARKER (the checkout's
// test modules that stand for a user's, src/cli/testdata/hostile/). Everything else is user code:
// the module, its own files, the packages it uses.
//
// A user file may import only the package's public entries ('cetp-sim', 'cetp-sim/vitest',
// 'cetp-sim/package.json'), resolved to the very copy this worker runs; never another file of the
// package (the checker list, the property catalogue, the simulation's internals), nor a second copy
// of cetp-sim (its classes are not this copy's: `instanceof` fails across them, silently).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const USER_MARKER = '.cetp-sim-user-modules';

function findRoot(file) {
  for (let dir = dirname(file); ; ) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if (JSON.parse(readFileSync(manifest, 'utf8')).name === 'cetp-sim') return dir;
      } catch {
        // not cetp-sim's: go on up
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The package root of the cetp-sim copy running this code. */
export const ROOT = findRoot(fileURLToPath(import.meta.url));
/** Run from a checkout (TypeScript sources beside this file) or from the compiled dist/. */
const FROM_SOURCE = existsSync(new URL('./worker.ts', import.meta.url));

/** The files the public entries resolve to in this copy ('cetp-sim', '/vitest', '/package.json'). */
export const PUBLIC_ENTRIES = new Set(
  ROOT === null
    ? []
    : [
        join(ROOT, 'package.json'),
        ...(FROM_SOURCE
          ? [join(ROOT, 'src', 'index.ts'), join(ROOT, 'src', 'vitest.ts')]
          : [join(ROOT, 'dist', 'src', 'index.js'), join(ROOT, 'dist', 'src', 'vitest.js')]),
      ],
);

const markedDirs = new Map();

function inMarkedDir(dir) {
  if (ROOT === null || dir === ROOT || !dir.startsWith(ROOT + sep)) return false;
  let marked = markedDirs.get(dir);
  if (marked === undefined) {
    marked = existsSync(join(dir, USER_MARKER)) || inMarkedDir(dirname(dir));
    markedDirs.set(dir, marked);
  }
  return marked;
}

/**
 * Where cetp-sim's bundles of its own code are (bundler.mjs), as Node names their files: the real
 * path (node_modules may be a link). Looked up until it exists.
 */
let bundles = null;
function inBundles(file) {
  if (bundles === null && ROOT !== null) {
    try {
      bundles = realpathSync(join(ROOT, 'node_modules', '.cache', 'cetp-sim')) + sep;
    } catch {
      return false;
    }
  }
  return bundles !== null && file.startsWith(bundles);
}

/** Whether `file` (a path) is cetp-sim's own code (its bundles included). */
export function isOwn(file) {
  if (inBundles(file)) return true;
  if (ROOT === null || !file.startsWith(ROOT + sep)) return false;
  if (file.startsWith(join(ROOT, 'node_modules') + sep)) return false;
  return !inMarkedDir(dirname(file));
}

/** Whether `file` is one of cetp-sim's own dependencies (its node_modules). */
export function isOwnDependency(file) {
  return ROOT !== null && file.startsWith(join(ROOT, 'node_modules') + sep);
}

const shown = (file) => {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
};

const CETP_SIM = /^cetp-sim(\/|$)/;

/**
 * Why `parent` (a path) may not import `resolved` (a path) through `specifier`: a message starting
 * with the error code, or null when it may.
 */
export function boundaryViolation(specifier, parent, resolved) {
  if (ROOT === null || isOwn(parent)) return null;
  if (CETP_SIM.test(specifier)) {
    if (PUBLIC_ENTRIES.has(resolved)) return null;
    const entry = FROM_SOURCE ? 'src/index.ts' : 'dist/src/index.js';
    return (
      `module_second_copy: ${shown(parent)} resolves '${specifier}' to ${resolved}, but the CLI runs ` +
      `cetp-sim from ${join(ROOT, entry)} — two copies of cetp-sim in one run (their classes differ, so ` +
      '`instanceof` between them fails and behaviour changes silently). Run the cetp-sim your module ' +
      'imports (npx cetp-sim from its project), or make the module import the one you run'
    );
  }
  if (!isOwn(resolved) || PUBLIC_ENTRIES.has(resolved)) return null;
  return (
    `module_imports_internals: ${shown(parent)} imports '${specifier}' (${shown(resolved)}), a file of ` +
    "cetp-sim's own code; a module may import only 'cetp-sim', 'cetp-sim/vitest' and " +
    "'cetp-sim/package.json' (the rest is the test bed that judges the module)"
  );
}

/** The prefix of an error a refused import throws, before its code and message. */
export const REFUSED = 'cetp-sim refused an import: ';

/**
 * Where the worker's code was loaded from when it started from the split bundle of cetp-sim's
 * sources (bundler.mjs, boot.mjs): the bundle's real path, on globalThis under this key, or absent.
 */
export const SPLIT_BUNDLE = Symbol.for('cetp-sim.split-bundle');

/** A source file of cetp-sim's (a path) as its entry in the split bundle `split`, or null if none. */
export function splitEntry(file, split) {
  if (ROOT === null || typeof split !== 'string') return null;
  const sources = join(ROOT, 'src') + sep;
  if (!file.startsWith(sources) || !file.endsWith('.ts')) return null;
  const entry = join(split, 'src', `${file.slice(sources.length, -3)}.mjs`);
  return existsSync(entry) ? entry : null;
}
