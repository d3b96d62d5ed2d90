// cetp-sim's own code bundled with esbuild and cached under node_modules/.cache/cetp-sim/. Plain
// JavaScript: the launcher (bin/cetp-sim.js) uses it before any TypeScript support, to start the CLI
// of a checkout from one JavaScript file instead of compiling ~400 TypeScript modules through tsx
// (each a round trip to tsx's loader thread: ~1 s of CPU for every CLI process). bundle.ts uses it
// for the worker bundle.
//
// The CLI's bundle is found again through a pointer file per entry, which lists every input esbuild
// read (TypeScript, .mjs, JSON) with its size and mtime, and esbuild's version: a CLI checks those by
// `stat` alone (a few ms) and rebuilds (~0.3 – 0.5 s of CPU) only when one of them changed, so what
// runs is always the code as it is now. Bundles are named by the SHA-256 of their content and
// written atomically (a temporary file renamed): concurrent CLIs never see half a file.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package root (as src/harness/root.ts finds it: the code's root, or the parent of dist/). */
const CODE = new URL('../../../', import.meta.url);
const ROOT = fileURLToPath(existsSync(new URL('package.json', CODE)) ? CODE : new URL('../', CODE));

/** Where bundles are cached (the find-cache-dir convention). */
export const BUNDLE_DIR = join(ROOT, 'node_modules', '.cache', 'cetp-sim');

/** The files a bundle directory holds: bundles, pointers, and their temporary files. */
const CACHED =
  /^((worker|cli)-[0-9a-f]+\.mjs|sources-[0-9a-f]+\.txt|identity-[0-9a-f]+\.json|(cli|split)-[0-9a-f]+(\.json)?)(\..*\.tmp)?$/;

/** Bundles of other sources older than this are deleted when a new one is written. */
const STALE_MS = 24 * 3_600_000;

/** Each source file's `import.meta.url` is its own URL, not the bundle's (an esbuild plugin). */
export const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.(?:[cm]?ts|mjs)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      const loader = args.path.endsWith('.mjs') ? 'js' : 'ts';
      return { contents: text.replaceAll('import.meta.url', url), loader };
    });
  },
};

/** Writes `text` as `<prefix>-<sha256>.mjs` in `dir` unless that file exists; its path. */
export function writeContentAddressed(dir, prefix, text, nowMs = Date.now()) {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 24);
  const path = join(dir, `${prefix}-${hash}.mjs`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const temporary = `${path}.${process.pid}.${hash.slice(0, 6)}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
  // Bundles of earlier sources pile up while cetp-sim is developed: a day-old one is no CLI's now.
  for (const name of readdirSync(dir)) {
    const other = join(dir, name);
    if (other === path || !CACHED.test(name)) continue;
    try {
      if (nowMs - statSync(other).mtimeMs > STALE_MS) rmSync(other, { recursive: true, force: true });
    } catch {
      // another CLI removed it first
    }
  }
  return path;
}

/** esbuild's version, without loading esbuild (a key of every cached bundle). */
export function esbuildVersion() {
  return createRequire(import.meta.url)('esbuild/package.json').version;
}

/** Size and mtime of a file, or null if it is gone. */
function stamp(path) {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/** A pointer file: which bundle was built of `what`, and from which inputs. */
const pointerOf = (kind, what) =>
  join(BUNDLE_DIR, `${kind}-${createHash('sha256').update(what).digest('hex').slice(0, 24)}.json`);

/** The bundle (a file or a directory in BUNDLE_DIR) a pointer names, if every input it was built from is unchanged. */
function freshBundle(pointer, name) {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(pointer, 'utf8'));
  } catch {
    return null;
  }
  if (recorded?.esbuild !== esbuildVersion() || !name.test(recorded.bundle)) return null;
  for (const [path, was] of Object.entries(recorded.inputs ?? {})) if (stamp(path) !== was) return null;
  const bundle = join(BUNDLE_DIR, recorded.bundle);
  return existsSync(bundle) ? bundle : null;
}

/** Records (atomically) that `bundle` was built from `inputs`; none if those were not stable. */
function writePointer(pointer, bundle, inputs) {
  if (inputs === null) return;
  const record = { esbuild: esbuildVersion(), bundle: bundle.slice(BUNDLE_DIR.length + 1), inputs };
  const temporary = `${pointer}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record)}\n`);
  renameSync(temporary, pointer);
}

/** esbuild's options for cetp-sim's code: dependencies stay imports, names are kept (as tsx keeps them). */
const OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  keepNames: true,
  write: false,
  metafile: true,
  legalComments: 'none',
  logLevel: 'silent',
  plugins: [ownImportMetaUrl],
};

/**
 * The inputs esbuild read, each with its stamp — or null if one of them changed in the last seconds
 * (it may have changed during the build: then nothing is recorded, and the next CLI builds again).
 */
function inputsOf(metafile, startMs) {
  const inputs = {};
  for (const input of Object.keys(metafile.inputs).sort()) {
    const path = join(ROOT, input);
    const mtimeMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined || mtimeMs > startMs - 2_000) return null;
    inputs[path] = stamp(path);
  }
  return inputs;
}

/** Bundles `entry` (a path) and what it imports of cetp-sim: the text, and inputsOf the build. */
export async function bundleEntry(entry) {
  const { build } = await import('esbuild');
  const startMs = Date.now();
  const result = await build({ ...OPTIONS, entryPoints: [entry] });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced no output for ${entry}`);
  return { text: file.text, inputs: inputsOf(result.metafile, startMs) };
}

/**
 * The URL of a bundle of `entry` built from its sources as they are now: the cached one, or one
 * built and cached now. Throws if it cannot be built or written (the caller then uses tsx).
 */
export async function cachedBundle(entry) {
  const pointer = pointerOf('cli', entry);
  const fresh = freshBundle(pointer, /^cli-[0-9a-f]+\.mjs$/);
  if (fresh) return pathToFileURL(fresh);
  const { text, inputs } = await bundleEntry(entry);
  const path = writeContentAddressed(BUNDLE_DIR, 'cli', text);
  writePointer(pointer, path, inputs);
  return pathToFileURL(path);
}

/*
 * The split bundle: every source file of cetp-sim (src/, tests and test modules left out) as an
 * entry of its own, at its own path (`<dir>/src/sim/world.mjs` for src/sim/world.ts), the code they
 * share in chunks. A worker thread that loads a user's module starts from its worker.mjs with Node's
 * own loader, before tsx's hooks are registered (boot.mjs): ~0.45 s of CPU where tsx took ~1.3 s,
 * since every module tsx loads is a round trip to its loader thread. Then the user's module, through
 * tsx, imports cetp-sim's sources — 'cetp-sim' is src/index.ts, a test module may import any source
 * file — and the hooks (esm-hooks.mjs) resolve each to its entry here: the very modules the worker
 * runs, one copy of each class.
 */
const SPLIT = /^split-[0-9a-f]+$/;
const SRC = join(ROOT, 'src');

/** The source files that are entries of the split bundle. */
function splitEntries() {
  return readdirSync(SRC, { recursive: true })
    .filter((name) => /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) && !/(^|\/)testdata\//.test(name))
    .sort()
    .map((name) => join(SRC, name));
}

/** Writes the split bundle's files into `split-<sha256 of them>/` unless it is there; its path. */
function writeSplit(files, outdir) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.path.slice(outdir.length)}\0${file.text}\0`);
  const digest = hash.digest('hex').slice(0, 24);
  const dir = join(BUNDLE_DIR, `split-${digest}`);
  if (existsSync(dir)) return dir;
  const temporary = `${dir}.${process.pid}.tmp`;
  for (const file of files) {
    const path = join(temporary, file.path.slice(outdir.length));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
  }
  try {
    renameSync(temporary, dir);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    if (!existsSync(dir)) throw error; // else another CLI wrote the same bundle first
  }
  return dir;
}

/** The split bundle's pointer (keyed by its layout too: a split bundle of the older layout is not this one). */
const splitPointer = () => pointerOf('split', `${ROOT}\0core`);

/** The split bundle's directory for the sources as they are now, if one was built of them (stat only). */
export function freshSplit() {
  return freshBundle(splitPointer(), SPLIT);
}

/** The worker's entry, and the public entry a user's module imports: what every user-module worker loads. */
const CORE_ROOTS = ['src/cli/worker/worker.ts', 'src/index.ts'];

/**
 * The core of the split bundle: the source files (paths relative to ROOT) every user-module worker
 * loads — what worker.ts and src/index.ts import statically, transitively, but worker.ts itself
 * (its top-level code starts the worker) — with the names each exports, from a split build's metafile.
 */
function coreOf(metafile) {
  const exported = new Map();
  for (const output of Object.values(metafile.outputs))
    if (output.entryPoint !== undefined) exported.set(output.entryPoint, output.exports);
  const core = new Map();
  const visit = (path) => {
    if (core.has(path) || metafile.inputs[path] === undefined) return;
    core.set(path, exported.get(path) ?? null);
    for (const i of metafile.inputs[path].imports)
      if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  for (const i of metafile.inputs[CORE_ROOTS[0]]?.imports ?? [])
    if (i.kind === 'import-statement' && !i.external) visit(i.path);
  visit(CORE_ROOTS[1]);
  // Only entries (TypeScript sources) get a facade; JSON and .mjs files are bundled where imported.
  for (const [path, names] of core) if (names === null) core.delete(path);
  return core;
}

/**
 * Entries whose output re-exports a whole package (`export * from 'x'`), whose names a metafile does
 * not list: a facade of one would miss them, so no core is built with one (the workers then boot
 * through tsx, as without a split bundle).
 */
function refuseUnlistedExports(result, core) {
  const texts = new Map(result.outputFiles.map((file) => [file.path, file.text]));
  for (const [out, output] of Object.entries(result.metafile.outputs)) {
    const entry = output.entryPoint;
    if (entry !== undefined && core.has(entry) && /^export \* from "/m.test(texts.get(join(ROOT, out)) ?? ''))
      throw new Error(`${entry} re-exports a package's names, which a facade of it cannot list`);
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const nameIn = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/**
 * The core's single module: each core source file's exports re-exported under a name of its own
 * (`m<i>$<name>`), in the order worker.ts imports them (then src/index.ts), so that the files
 * evaluate in the order they do from the sources. Its text, and each file's facade text by path.
 */
async function buildCore(build, core, outdir) {
  const lines = [];
  const facades = new Map();
  [...core].forEach(([path, names], i) => {
    const from = JSON.stringify(join(ROOT, path));
    const pairs = names.map((name, j) => [name, `m${i}$${j}`]);
    lines.push(
      pairs.length === 0
        ? `import ${from};`
        : `export { ${pairs.map(([n, alias]) => `${nameIn(n)} as ${alias}`).join(', ')} } from ${from};`,
    );
    const facade = join(outdir, `${path.slice(0, -3)}.mjs`);
    const target = relativeImport(facade, join(outdir, 'core.mjs'));
    facades.set(
      facade,
      pairs.length === 0
        ? `import ${target};\n`
        : `export { ${pairs.map(([n, alias]) => `${alias} as ${nameIn(n)}`).join(', ')} } from ${target};\n`,
    );
  });
  const result = await build({
    ...OPTIONS,
    stdin: { contents: lines.join('\n'), resolveDir: ROOT, sourcefile: 'cetp-sim-core.mjs', loader: 'js' },
    outfile: join(outdir, 'core.mjs'),
    plugins: [
      ...OPTIONS.plugins,
      keptAsEntries((path, kind) => kind === 'dynamic-import' && !core.has(path)),
    ],
  });
  const files = [...facades].map(([path, text]) => ({ path, text }));
  return [...files, ...result.outputFiles.map((file) => withFacadeImports(file, outdir))];
}

/** A quoted relative import specifier from the file `from` to the file `to`. */
function relativeImport(from, to) {
  const path = relative(dirname(from), to);
  return JSON.stringify(path.startsWith('.') ? path : `./${path}`);
}

const CORE_REF = '@cetp-sim-core/';

/**
 * Imports of source files that stay imports of their entry (or facade) in the split bundle, for
 * `kept(path, kind)`: a core file imported by another entry; an entry core.mjs imports dynamically.
 */
function keptAsEntries(kept) {
  return {
    name: 'kept-as-entries',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) => {
        const path = relative(ROOT, join(args.resolveDir, args.path));
        if (!path.startsWith('src/') || args.kind === 'require-call' || !kept(path, args.kind))
          return undefined;
        return { path: `${CORE_REF}${path.slice(0, -3)}.mjs`, external: true };
      });
    },
  };
}

/** An output file of the other entries' build, with its imports of facades made relative to it. */
function withFacadeImports(file, outdir) {
  const text = file.text.replaceAll(/"@cetp-sim-core\/([^"]+)"/g, (_, path) =>
    relativeImport(file.path, join(outdir, path)),
  );
  return { path: file.path, text };
}

/**
 * The split bundle's directory: the fresh one, or one built and cached now. Throws if it cannot be.
 *
 * Its layout: `core.mjs`, one module of every source file a user-module worker loads anyway (coreOf)
 * — one module to compile and link instead of ~300 entries and chunks (~0.2 s of CPU less per worker
 * boot, bench/README.md "boot") — beside each of those files' facade at its own path
 * (`src/sim/world.mjs`: its exports, re-exported from core.mjs), and every other source file as an
 * entry of its own, sharing chunks (`chunks/`) among them, its imports of core files kept as imports
 * of their facades: one copy of every module either way.
 */
export async function splitBundle() {
  const fresh = freshSplit();
  if (fresh) return fresh;
  const { build } = await import('esbuild');
  const startMs = Date.now();
  const outdir = join(BUNDLE_DIR, 'split');
  const split = {
    ...OPTIONS,
    splitting: true,
    outdir,
    outbase: ROOT,
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[hash]',
    outExtension: { '.js': '.mjs' },
  };
  const entries = splitEntries();
  const all = await build({ ...split, entryPoints: entries });
  const core = coreOf(all.metafile);
  refuseUnlistedExports(all, core);
  const coreFiles = await buildCore(build, core, outdir);
  const rest = await build({
    ...split,
    entryPoints: entries.filter((entry) => !core.has(relative(ROOT, entry))),
    plugins: [...OPTIONS.plugins, keptAsEntries((path) => core.has(path))],
  });
  const files = [...coreFiles, ...rest.outputFiles.map((file) => withFacadeImports(file, outdir))];
  const dir = writeSplit(files, outdir);
  writePointer(splitPointer(), dir, inputsOf(all.metafile, startMs));
  return dir;
}
