/**
 * cetp-sim's own worker code as one JavaScript file, so that a worker thread starts without tsx.
 *
 * A worker booted through tsx (boot.mjs) compiles every TypeScript module of cetp-sim it imports,
 * in that thread, again for each worker: 6–9 s per worker on a loaded 2-core VM, which made two
 * workers slower than one (bench/results/scaling.json before this file). Instead the CLI bundles
 * worker.ts and everything of cetp-sim it imports with esbuild (already a dependency) once per
 * process, and writes the result, named by the SHA-256 of its content, under
 * `node_modules/.cache/cetp-sim/` of the package (and, beside it, `sources-<key>.txt` naming it by a
 * key of its sources' sizes and mtimes, so the next CLI finds it without building) — inside node_modules so that the bundle's imports
 * of cetp-sim's dependencies (left external: ajv, fast-check, esbuild, …) resolve as they do from
 * the sources. A bundle of the same content is reused, never rewritten; a changed source makes a
 * new name. Writes are atomic (a temporary file renamed), so concurrent CLIs cannot see half a file.
 *
 * Only jobs of cetp-sim's own code use it. A worker that loads a user's module (--provider,
 * --consumer) keeps booting through tsx: the user's module imports cetp-sim's sources (`cetp-sim`
 * is `src/index.ts`), and those must be the very modules the worker's simulation uses (one Bundle
 * class, one World), not a second copy next to a bundled one.
 *
 * `import.meta.url` is replaced, per source file, by that file's own URL, so code that finds files
 * next to itself (root.ts PACKAGE_ROOT, the vector sources) finds the same files from the bundle.
 * If bundling or writing fails (a read-only install, say) the workers boot through tsx as before:
 * slower, same results.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { caches } from '../../base/caches.ts';
import type { ReplayModules } from '../../harness/code-identity.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import { BUNDLE_DIR, ownImportMetaUrl, splitBundle, writeContentAddressed } from './bundler.mjs';

export { BUNDLE_DIR };

/** esbuild, required when a bundle is built or keyed, not at every CLI's start. */
const esbuild = () => createRequire(import.meta.url)('esbuild') as typeof Esbuild;

const ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** The bundle's text: deterministic for the same sources and esbuild version. */
export async function bundleWorkerSource(): Promise<string> {
  const result = await esbuild().build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [ownImportMetaUrl],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output for the worker bundle');
  return file.text;
}

/** Writes `text` as `worker-<sha256>.mjs` in `dir` unless that file exists; its path. */
export function writeBundle(dir: string, text: string, nowMs: number = Date.now()): string {
  return writeContentAddressed(dir, 'worker', text, nowMs);
}

/** The folders whose TypeScript files the bundle is built from. */
const SOURCE_ROOTS = [join(PACKAGE_ROOT, 'src'), join(PACKAGE_ROOT, 'properties')];

/** The compiled worker of an installed package (dist/): plain JavaScript, nothing to bundle. */
const COMPILED_WORKER = new URL('./worker.js', import.meta.url);

/**
 * A key of the sources a bundle would be built from — each TypeScript file's path, size and mtime
 * under `roots`, and esbuild's version — by `stat` alone (a few ms, against 0.15 – 0.5 s for esbuild
 * to build the bundle and hash it, which a CLI on more than one thread otherwise waits for first).
 */
export function sourcesKey(roots: readonly string[] = SOURCE_ROOTS): string {
  const hash = createHash('sha256').update(`esbuild ${esbuild().version}\n`);
  for (const root of roots) {
    const names = (readdirSync(root, { recursive: true }) as string[])
      .filter((name) => /\.[cm]?ts$/.test(name))
      .sort();
    for (const name of names) {
      const stat = statSync(join(root, name));
      hash.update(`${root}\0${name}\0${stat.size}\0${stat.mtimeMs}\n`);
    }
  }
  return hash.digest('hex').slice(0, 24);
}

/** The bundle a pointer file names, if both are there. */
function pointedBundle(pointer: string): string | null {
  try {
    const name = readFileSync(pointer, 'utf8').trim();
    const path = join(BUNDLE_DIR, name);
    return /^worker-[0-9a-f]+\.mjs$/.test(name) && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/** Writes `sources-<key>.txt` naming the bundle built from those sources (atomically). */
function writePointer(pointer: string, bundle: string): void {
  const temporary = `${pointer}.${process.pid}.tmp`;
  writeFileSync(temporary, `${bundle.slice(BUNDLE_DIR.length + 1)}\n`);
  renameSync(temporary, pointer);
}

const bundled = caches.lazy('cli.worker-bundle', async (): Promise<URL | null> => {
  let pointer: string | null = null;
  try {
    pointer = join(BUNDLE_DIR, `sources-${sourcesKey()}.txt`);
    const cached = pointedBundle(pointer);
    if (cached) return pathToFileURL(cached);
  } catch {
    pointer = null; // no key: build, as before
  }
  try {
    const path = writeBundle(BUNDLE_DIR, await bundleWorkerSource());
    if (pointer) writePointer(pointer, path);
    return pathToFileURL(path);
  } catch {
    return null;
  }
});

/**
 * The bundled worker's URL — the one cached for these very sources (sourcesKey), or built on first
 * use in this process —, or null if it cannot be built or written: then the caller boots workers
 * through tsx. Compiled (dist/), the worker's own module.
 */
export function ownCodeWorker(): Promise<URL | null> {
  if (import.meta.url.endsWith('.js')) return Promise.resolve(COMPILED_WORKER);
  return bundled.get();
}

const split = caches.lazy('cli.split-bundle', () => splitBundle().catch(() => null));

/**
 * Before worker threads that load a user's module start: the split bundle of cetp-sim's sources
 * (bundler.mjs), built now unless it is fresh, which those workers then load instead of compiling
 * the sources through tsx (boot.mjs); its directory, or null (compiled, or it cannot be built:
 * the workers boot through tsx as before).
 */
export function userCodeBundle(modules?: ReplayModules): Promise<string | null> {
  // A `.cts` module is compiled by module-loader.ts's CommonJS handler, and its `require` of an ES
  // module is Node's require(esm), which the module hooks do not see: an ES module it requires that
  // imports cetp-sim's sources by path finds them only where the worker loaded them from the sources
  // (src/cli/module-formats.test.ts, the `.cts` case, failed from the bundle with "Unknown file
  // extension .ts"). Such a CLI's workers boot through tsx, as before the bundle (boot.mjs reads it).
  if ([modules?.provider, modules?.consumer].some((m) => m?.endsWith('.cts')))
    process.env.CETP_SIM_FROM = 'tsx';
  if (import.meta.url.endsWith('.js') || process.env.CETP_SIM_FROM === 'tsx') return Promise.resolve(null);
  return split.get();
}
