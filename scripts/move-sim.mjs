#!/usr/bin/env node
// src/sim in rooms (issue 33), as a re-runnable script: `node scripts/move-sim.mjs` moves (git mv)
// every src/sim file of the table below that is still at its old place, and rewrites every relative
// import, `new URL(…, import.meta.url)`, vi.mock path and prose mention (comments, docs, JSON lists
// such as src/tidy-long-functions.json) of a moved file, anywhere in the repository — in files it did
// not move too. Idempotent: run it again after merging a branch that still names the old paths (or
// that edited a file at its old place) and it fixes what is left; a tree that is already right is
// left byte for byte as it is. `--check` reports what it would change and exits 1 when anything is
// left to do. A new file at the src/sim root stays there (add a row to ROOMS to move it).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
const CHECK = process.argv.includes('--check');

/** Room → the src/sim files it holds (file names at the src/sim root today; `old:new` renames). */
const ROOMS = {
  // Determinism and time: the seeded PRNG, virtual clock, cooperative scheduler and its strategies,
  // the trace, Android's exception classes, release profiles, fault schedules.
  core: [
    'alea.ts',
    'alea.test.ts',
    'clock.ts',
    'clock.test.ts',
    'deep-sleep.test.ts',
    'errors.ts',
    'faults.ts',
    'faults.test.ts',
    'main-thread.ts',
    'main-thread.test.ts',
    'release.ts',
    'release.test.ts',
    'rng.ts',
    'rng.test.ts',
    'scheduler.ts',
    'scheduler.test.ts',
    'strategy.ts',
    'strategy.test.ts',
    'task.ts',
    'trace.ts',
    'trace-render.ts',
    'trace-render.test.ts',
    'trace-surrogates.test.ts',
    'uuid.ts',
  ],
  // Binder transactions, Parcel sizes, Bundles.
  binder: [
    'attribution.test.ts',
    'binder.ts',
    'binder.test.ts',
    'binder-types.ts',
    'bundle.ts',
    'bundle.test.ts',
    'parcel.ts',
  ],
  // The PackageManager (its parts were already in pm/), manifests, APK signing.
  pm: [
    'manifest.ts',
    'package-manager.ts',
    'package-manager.test.ts',
    'package-manager-view.ts',
    'signing.ts',
    'signing.test.ts',
    'user-handle.ts',
    'user-handle.test.ts',
  ],
  // Processes: lifecycle, threads, importance and the low-memory killer, started services.
  process: [
    'app-thread.ts',
    'app-thread.test.ts',
    'importance.ts',
    'importance.test.ts',
    'importance-levels.test.ts',
    'process.ts',
    'services.ts',
    'world-importance.ts:standing.ts',
  ],
  // What an app package is and the Context its code gets.
  app: ['app.ts', 'context.ts'],
  // Durable storage and SharedPreferences.
  storage: ['shared-preferences.ts', 'storage.ts', 'storage.test.ts', 'storage-wal.test.ts'],
  // Activities, Intents, PendingIntents and the simulated user.
  ui: [
    'activity.ts',
    'activity.test.ts',
    'activity-component.ts',
    'activity-resolve.ts',
    'activity-saved.ts',
    'activity-saved.test.ts',
    'activity-types.ts',
    'intent.ts',
    'pending-intent.ts',
    'pending-intent.test.ts',
    'user.ts',
  ],
  // Files, pipes and file descriptors.
  fd: ['fd.ts', 'fd.test.ts', 'fd-kernel.ts'],
  // ContentResolver, ContentProvider, ContentObserver.
  content: [
    'content.ts',
    'content-observer.ts',
    'content-observer.test.ts',
    'content-provider.ts',
    'uri-grants.ts',
    'uri-grants.test.ts',
  ],
};

/** Moves (old path → new path, from the repository root). */
const FIXED = Object.entries(ROOMS).flatMap(([room, names]) =>
  names.map((name) => {
    const [from, to = from] = name.split(':');
    return [`src/sim/${from}`, `src/sim/${room}/${to}`];
  }),
);

const moves = new Map(FIXED);
const back = new Map([...moves].map(([from, to]) => [to, from]));
const changes = [];
const rewritten = [];

for (const [from, to] of moves) {
  const a = join(ROOT, from);
  const b = join(ROOT, to);
  if (!existsSync(a)) continue;
  if (existsSync(b)) {
    console.error(`move-sim: both ${from} and ${to} exist: merge them by hand`);
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

// The same path without its `src/` in prose (`sim/scheduler.ts` in a comment).
for (const [from, to] of moves) {
  const [a, b] = [from.slice('src/'.length), to.slice('src/'.length)];
  PROSE.set(new RegExp(`(?<![\\w./-])${a.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w-])`, 'g'), b);
}

// A renamed file's bare name in prose (`world-importance.ts` in FIDELITY.md's tables, comments).
for (const [from, to] of moves) {
  const [a, b] = [from.split('/').pop(), to.split('/').pop()];
  if (a !== b) PROSE.set(new RegExp(`(?<![\\w./-])${a.replace(/[.-]/g, '\\$&')}(?![\\w-])`, 'g'), b);
}

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
    rewritten.push(file);
    if (!CHECK) writeFileSync(join(ROOT, file), next);
  }
}

// New paths change the order of imports and the length of lines: let biome sort and format what was
// rewritten (its safe fixes only), so that the tree stays `biome check` clean.
const LINTED = /\.(ts|mts|mjs|js|json)$/;
const toLint = rewritten.filter((f) => LINTED.test(f));
if (!CHECK && toLint.length > 0) {
  try {
    execFileSync('npx', ['biome', 'check', '--write', '--no-errors-on-unmatched', ...toLint], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  } catch {
    // The paths are rewritten; what biome could not fix (a merge conflict left in a file, a lint
    // error of the merged code) is for the reader of its report above.
    console.error('move-sim: paths rewritten, but biome left errors in the files above (fix, then re-run)');
    process.exitCode = 1;
  }
}

for (const change of changes) console.log(change);
console.log(`move-sim: ${changes.length} change${changes.length === 1 ? '' : 's'}${CHECK ? ' to make' : ''}`);
if (CHECK && changes.length > 0) process.exitCode = 1;
