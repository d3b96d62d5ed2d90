#!/usr/bin/env node
// `npm run build` (and `prepare`): cetp-sim's sources compiled to JavaScript and `.d.ts` in dist/,
// with the files the compiled code reads or loads at run time beside it. The installed package runs
// dist/ (bin/cetp-sim.js picks it when src/ is absent); a checkout runs the sources, so a stale dist/
// is never what a test or a developer's CLI runs.
//
// The stamp: dist/ is served as it is only when it is the build of exactly the sources in the
// checkout now. A successful build writes dist/build-stamp.json last, with a digest of every input it
// read and of every file it wrote; the next build checks it first, and any difference (a source, a
// config, a test title, the compiler, this script, or a file of dist/ edited or lost since) means a
// full build. So `npm pack` right after `npm ci` (whose `prepare` built dist/) costs a digest, not a
// second tsc run. `--force` (or CETP_SIM_BUILD_FORCE=1) always builds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const STAMP = 'build-stamp.json';
const VERSION = 1;

/** What tsc compiles from src/ (its default extensions), the copied assets, and test files (titles). */
const SOURCE = /\.(?:[cm]?ts|tsx|mjs|json)$/;

/** Every file under `dir` (relative to `root`, `/`-separated, sorted) that `wanted` keeps; dot entries and node_modules skipped. */
export function walk(root, dir, wanted = () => true) {
  const out = [];
  const visit = (rel) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      // A symbolic link to a directory is walked as tsc would (it follows them).
      const directory = entry.isSymbolicLink()
        ? statSync(join(root, child), { throwIfNoEntry: false })?.isDirectory()
        : entry.isDirectory();
      if (directory) visit(child);
      else if (wanted(entry.name)) out.push(child);
    }
  };
  visit(dir);
  return out.sort();
}

/** A path as the stamp records it: relative to `root` (with `/`) inside it, absolute outside. */
export function recorded(root, path) {
  const rel = relative(root, path);
  if (!isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel)) return path;
  return rel.split(sep).join('/');
}

/** sha256 over each file's name and bytes, in the given order; a missing file counts as missing. */
export function digest(root, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const abs = isAbsolute(file) ? file : join(root, file);
    hash.update(`${file}\0`);
    if (existsSync(abs) && statSync(abs).isFile()) {
      const bytes = readFileSync(abs);
      hash.update(`${bytes.length}\0`);
      hash.update(bytes);
    } else hash.update('missing\0');
  }
  return hash.digest('hex');
}

/**
 * The build's inputs: the files tsc read in the last build (`listed`: its --listFiles, which names
 * every imported file outside src/ too, e.g. spec/rules.json, and the compiler's own lib and @types
 * declarations), every source under src/ (a new file is compiled, even if nothing imports it), the
 * test files whose titles are recorded (src/, properties/), the configs, the lock file, the
 * compiler's version and the build scripts. A new import of a new file changes an input first.
 */
export function inputFiles(root, listed) {
  const fixed = [
    'package.json',
    'package-lock.json',
    'node_modules/typescript/package.json',
    'scripts/build.mjs',
    ...readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name)),
  ];
  const sources = walk(root, 'src', (name) => SOURCE.test(name));
  const tests = walk(root, 'properties', (name) => name.endsWith('.test.ts'));
  return [...new Set([...fixed, ...sources, ...tests, ...listed])].sort();
}

/** Every file the build wrote, but the stamp. */
export function outputFiles(root) {
  return walk(root, 'dist').filter((file) => file !== `dist/${STAMP}`);
}

/** Written last, after a successful build; `listed` is what tsc --listFiles printed (absolute paths). */
export function writeStamp(root, listed) {
  const files = [...new Set(listed.map((path) => recorded(root, path)))].sort();
  const stamp = {
    version: VERSION,
    listed: files,
    inputs: digest(root, inputFiles(root, files)),
    outputs: digest(root, outputFiles(root)),
  };
  const path = join(root, 'dist', STAMP);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(stamp, null, 1)}\n`);
  renameSync(`${path}.tmp`, path);
  return stamp;
}

/** Whether dist/ is the build of exactly the inputs present now; `why` says what differs. */
export function checkStamp(root) {
  const path = join(root, 'dist', STAMP);
  if (!existsSync(path)) return { fresh: false, why: 'no stamp in dist/' };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return { fresh: false, why: 'the stamp is unreadable' };
  }
  if (stamp?.version !== VERSION || !Array.isArray(stamp.listed))
    return { fresh: false, why: 'the stamp is of another version' };
  if (digest(root, inputFiles(root, stamp.listed)) !== stamp.inputs)
    return { fresh: false, why: 'an input changed since the last build' };
  if (digest(root, outputFiles(root)) !== stamp.outputs)
    return { fresh: false, why: 'dist/ changed since the last build' };
  return { fresh: true, why: 'dist/ is the build of these sources' };
}

/** tsc over tsconfig.build.json; returns the files it read (its --listFiles), or exits on failure. */
function compile(root) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(
    process.execPath,
    [tsc, '-p', join(root, 'tsconfig.build.json'), '--listFiles'],
    { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = (compiled.stdout ?? '').split('\n').filter((line) => line.trim() !== '');
  const listed = lines.filter((line) => isAbsolute(line) && existsSync(line));
  // What tsc said besides the file list (its errors, on a failure).
  const said = lines.filter((line) => !listed.includes(line));
  if (said.length > 0) process.stdout.write(`${said.join('\n')}\n`);
  if (compiled.status !== 0) {
    console.error('build: tsc failed');
    process.exit(compiled.status ?? 1);
  }
  return listed;
}

export async function build(root) {
  const dist = join(root, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const listed = compile(root);

  // Run-time files that are not TypeScript: the worker threads' boot and module hooks, and the sources
  // of the shared test vectors (read by `cetp-sim vectors generate`/`verify`).
  const assets = [
    ['src/cli/worker', (name) => name.endsWith('.mjs')],
    ['src/vectors/sources', (name) => name.endsWith('.json')],
  ];
  for (const [dir, wanted] of assets) {
    mkdirSync(join(dist, dir), { recursive: true });
    for (const name of readdirSync(join(root, dir)).filter(wanted)) {
      cpSync(join(root, dir, name), join(dist, dir, name));
    }
  }

  // Which tests name which rules (`cetp-sim rules --coverage`): the tests are not in the package, so
  // their titles are read here, once, and recorded beside the compiled code.
  const titles = await import(pathToFileURL(join(dist, 'src/check/test-titles.js')).href);
  const coverage = await import(pathToFileURL(join(dist, 'src/cli/coverage.js')).href);
  const tests = titles.testCoverage(root, coverage.TEST_DIRS);
  const ruleTests = Object.fromEntries([...tests.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(join(dist, 'rule-tests.json'), `${JSON.stringify(ruleTests, null, 1)}\n`);

  if (!existsSync(join(dist, 'src/index.js')) || !existsSync(join(dist, 'src/index.d.ts'))) {
    console.error('build: dist/src/index.js or its .d.ts is missing');
    process.exit(1);
  }
  writeStamp(root, listed);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const force = process.argv.includes('--force') || process.env.CETP_SIM_BUILD_FORCE === '1';
  const check = force ? { fresh: false, why: 'forced' } : checkStamp(root);
  if (check.fresh) {
    console.log(`build: ${join(root, 'dist')} is up to date (${check.why}): no tsc run`);
  } else {
    await build(root);
    console.log(`build: ${join(root, 'dist')} ready (${check.why})`);
  }
}
