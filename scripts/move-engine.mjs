#!/usr/bin/env node
// The fuzz engine's move out of properties/ into src/fuzz/ (issue 33), as a re-runnable script:
// `node scripts/move-engine.mjs` moves (git mv) any engine module still under properties/ and
// rewrites every relative import, `new URL(…, import.meta.url)` and prose mention of a moved file,
// anywhere in the repository. Idempotent: run it again after merging a branch that still names
// `properties/…` paths (or that added a new non-test module there) and it fixes what is left; a tree
// that is already right is left byte for byte as it is. `--check` reports what it would change and
// exits 1 when anything is left to do.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
const CHECK = process.argv.includes('--check');

/** Moves made once and for all (old path → new path, from the repository root). */
const FIXED = [
  ...[
    'crashpoint-oracles.ts',
    'crashpoints.ts',
    'depth.ts',
    'fuzz.ts',
    'hunt.ts',
    'matrix-situations.ts',
    'matrix.ts',
    'mutants.ts',
    'race-demo.ts',
    'suites.ts',
    'scenario/arbitraries.ts',
    'scenario/consumer.ts',
    'scenario/driver.ts',
    'scenario/fixtures.ts',
    'scenario/malformed-arb.ts',
    'scenario/malformed.ts',
    'scenario/model.ts',
    'scenario/placeholders.ts',
    'scenario/runner.ts',
  ].map((f) => [`properties/${f}`, `src/fuzz/${f}`]),
  // The vocabulary of what is under test (types only): below the providers, which name it.
  ['src/check/subjects.ts', 'src/subjects/subjects.ts'],
  ['src/check/user-oracle-types.ts', 'src/subjects/user-oracle-types.ts'],
];

/** Engine modules still in properties/ (a merged branch may have added one): non-test .ts files. */
function strayEngineModules() {
  const out = [];
  for (const dir of ['properties', 'properties/scenario']) {
    const abs = join(ROOT, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs)) {
      if (name.endsWith('.ts') && !name.endsWith('.test.ts') && statSync(join(abs, name)).isFile()) {
        const from = `${dir}/${name}`;
        out.push([from, `src/fuzz/${from.slice('properties/'.length)}`]);
      }
    }
  }
  return out;
}

const moves = new Map(FIXED);
for (const [from, to] of strayEngineModules()) if (!moves.has(from)) moves.set(from, to);
const back = new Map([...moves].map(([from, to]) => [to, from]));
const changes = [];

for (const [from, to] of moves) {
  const a = join(ROOT, from);
  const b = join(ROOT, to);
  if (!existsSync(a)) continue;
  if (existsSync(b)) {
    console.error(`move-engine: both ${from} and ${to} exist: merge them by hand`);
    process.exitCode = 1;
    continue;
  }
  changes.push(`git mv ${from} ${to}`);
  if (!CHECK) {
    mkdirSync(dirname(b), { recursive: true });
    execFileSync('git', ['mv', from, to], { cwd: ROOT });
  }
}

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'results',
  'coverage',
  'reports',
  'build',
  '.cetp-sim',
]);
const CODE = /\.(ts|mts|mjs|js)$/;
const TEXT = /\.(ts|mts|mjs|js|md|json|yml|yaml|sh)$/;

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name), out);
    } else if (TEXT.test(entry.name)) out.push(relative(ROOT, join(dir, entry.name)).split(sep).join('/'));
  }
  return out;
}

const there = (path) => existsSync(join(ROOT, path)) || existsSync(join(ROOT, path.replace(/\.js$/, '.ts')));
const rel = (fromFile, target) => {
  const r = relative(dirname(join(ROOT, fromFile)), join(ROOT, target))
    .split(sep)
    .join('/');
  return r.startsWith('.') ? r : `./${r}`;
};

/** The specifier `spec` of `file` made right, or undefined when it already is (or cannot be). */
function fixSpec(file, spec) {
  const slash = spec.endsWith('/') ? '/' : '';
  const here = relative(ROOT, resolve(dirname(join(ROOT, file)), spec))
    .split(sep)
    .join('/');
  if (there(here)) return undefined;
  const moved = moves.get(here);
  if (moved !== undefined && there(moved)) return rel(file, moved) + slash;
  const old = back.get(file);
  if (old === undefined) return undefined;
  const before = relative(ROOT, resolve(dirname(join(ROOT, old)), spec))
    .split(sep)
    .join('/');
  const target = moves.get(before) ?? before;
  return there(target) ? rel(file, target) + slash : undefined;
}

const SPEC =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.(?:do)?[mM]ock\s*\(\s*|\bnew URL\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;
const PROSE = new Map(
  [...moves].map(([from, to]) => [
    new RegExp(`(?<![\\w.-])${from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w-])`, 'g'),
    to,
  ]),
);

for (const file of walk(ROOT, [])) {
  if (file === SELF) continue;
  const text = readFileSync(join(ROOT, file), 'utf8');
  let next = text;
  if (CODE.test(file)) {
    next = next.replace(SPEC, (all, head, quote, spec) => {
      const fixed = fixSpec(file, spec);
      return fixed === undefined ? all : `${head}${quote}${fixed}${quote}`;
    });
  }
  // Prose: a path from the repository root (comments, docs), and `../` links from a folder one down.
  for (const [pattern, to] of PROSE) next = next.replace(pattern, to);
  if (next !== text) {
    changes.push(`rewrite ${file}`);
    if (!CHECK) writeFileSync(join(ROOT, file), next);
  }
}

for (const change of changes) console.log(change);
console.log(
  `move-engine: ${changes.length} change${changes.length === 1 ? '' : 's'}${CHECK ? ' to make' : ''}`,
);
if (CHECK && changes.length > 0) process.exitCode = 1;
