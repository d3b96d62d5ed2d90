/**
 * What code a replay file was recorded with, as content hashes: cetp-sim's own sources, and each user
 * module with the files it imports by relative path (read as text, never loaded). `cetp-sim replay`
 * compares them with the code it runs now: a different trace from the same code is a determinism
 * break (exit 3); a different trace after the code changed is what a fix does, and the verdict alone
 * decides (exit 0 now passes, 1 still fails).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { resolveModule } from './module-path.ts';
import { CODE_ROOT } from './root.ts';
import { type Stamps, stamp, stampedDigest } from './stamped-digest.ts';

/** The user modules a campaign ran with, as given on its command line (paths relative to its cwd). */
export interface ReplayModules {
  readonly provider?: string;
  readonly consumer?: string;
}

export interface CodeIdentity {
  readonly cetpSim: string;
  readonly provider?: string;
  readonly consumer?: string;
}

/** Relative import specifiers of a JS/TS source (static imports and exports, dynamic imports). */
const RELATIVE_IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.\.?\/[^'"]+)['"]/g;
const EXTENSIONS = ['', '.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '/index.ts', '/index.js'];
/** Files hashed per module at most (a module importing a whole tree is hashed in part). */
const MAX_FILES = 2_000;

/** Where a relative import leads; every directory it looks into is stamped (a file added there may change it). */
function resolveImport(from: string, specifier: string, stamps: Stamps): string | null {
  const base = resolve(dirname(from), specifier);
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    stamp(stamps, dirname(candidate));
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  // TypeScript sources import './x.js' meaning './x.ts'.
  const ts = base.replace(/\.(m|c)?js$/, '.$1ts');
  return ts !== base && existsSync(ts) ? ts : null;
}

/**
 * SHA-256 over a module file and every file it reaches by relative imports, in a stable order
 * (remembered while none of those files and directories changes: stamped-digest.ts).
 */
export function moduleHash(specifier: string, cwd: string): string {
  const entry = resolveModule('module', specifier, cwd);
  return stampedDigest(`module\0${entry}`, (stamps) => hashModule(entry, stamps));
}

function hashModule(entry: string, stamps: Stamps): string {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift() as string;
    let text: string;
    stamp(stamps, file);
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = resolveImport(file, match[1] as string, stamps);
      if (target && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  const root = dirname(entry);
  const hash = createHash('sha256');
  for (const file of [...seen].sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function sourcesUnder(dir: string, out: string[], stamps: Stamps): void {
  let names: string[];
  stamp(stamps, dir);
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const path = join(dir, name);
    const s = statSync(path);
    if (s.isDirectory()) {
      if (name !== 'node_modules' && name !== 'testdata') sourcesUnder(path, out, stamps);
    } else if (/\.(ts|mjs|js)$/.test(name) && !/\.(test|d)\.ts$/.test(name)) {
      stamps.set(path, `${s.size}:${s.mtimeMs}`);
      out.push(path);
    }
  }
}

/**
 * SHA-256 over cetp-sim's own code as it runs (src/, tests left out): the sources in
 * a checkout, the compiled JavaScript of dist/ in an installed package (remembered while none of
 * those files and directories changes: stamped-digest.ts).
 */
export function cetpSimHash(): string {
  return stampedDigest(`cetp-sim\0${CODE_ROOT}`, hashCetpSim);
}

function hashCetpSim(stamps: Stamps): string {
  const files: string[] = [];
  sourcesUnder(join(CODE_ROOT, 'src'), files, stamps);
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${relative(CODE_ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The identity of the code a campaign (or a replay) runs with. */
export function codeIdentity(modules: ReplayModules, cwd: string): CodeIdentity {
  return {
    cetpSim: cetpSimHash(),
    ...(modules.provider !== undefined ? { provider: moduleHash(modules.provider, cwd) } : {}),
    ...(modules.consumer !== undefined ? { consumer: moduleHash(modules.consumer, cwd) } : {}),
  };
}

/** What differs between two identities, in words ([] when the code is the same). */
export function codeChanges(recorded: CodeIdentity, now: CodeIdentity): string[] {
  const changes: string[] = [];
  if (recorded.cetpSim !== now.cetpSim) changes.push('cetp-sim itself');
  if (recorded.provider !== now.provider) changes.push('the --provider module');
  if (recorded.consumer !== now.consumer) changes.push('the --consumer module');
  return changes;
}
