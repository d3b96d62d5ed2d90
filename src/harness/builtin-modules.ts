/**
 * Node's built-in modules whose exports cetp-sim's own code computes with, watched like the built-in
 * globals (globals.ts): a module that replaces node:util's `isDeepStrictEqual` (the vector matchers
 * compare literals with it), node:crypto's `createHash` or a Hash's `digest` (trace hashes, code
 * identities, signing digests), node:path's `join`, node:worker_threads' `parentPort.postMessage`
 * … changes what cetp-sim does in the module's thread. Watched: every own property of each module's
 * exports object (what `import x from 'node:…'` and, after `syncBuiltinESMExports()`, a named import
 * see), and the prototypes of the classes whose instances cetp-sim uses (a Hash from createHash, the
 * worker's MessagePort). The worker's guards (src/cli/worker/ambient.ts: timers, fs, child_process,
 * network, crypto randomness) are installed before the first snapshot, so they are the baseline:
 * they are not reported, a patch on top of them is.
 */
import { createHash } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort } from 'node:worker_threads';

/** The built-in modules imported by cetp-sim's code under src/ (not its tests). */
const MODULES = [
  'util',
  'crypto',
  'buffer',
  'path',
  'url',
  'fs',
  'fs/promises',
  'module',
  'vm',
  'worker_threads',
  'os',
  'v8',
  'timers',
  'timers/promises',
  'child_process',
  'net',
  'http',
  'https',
  'dgram',
  'dns',
  'readline',
] as const;

/** An object's prototypes up to (not including) Object.prototype, at most `depth` of them. */
function prototypes(of: object, depth: number): object[] {
  const found: object[] = [];
  for (
    let p = Object.getPrototypeOf(of);
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    if (found.length === depth) break;
    found.push(p as object);
  }
  return found;
}

const className = (proto: object): string => {
  const ctor = Reflect.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  return typeof ctor === 'function' && ctor.name ? ctor.name : 'anonymous';
};

/**
 * Node defines some exports lazily: a getter that, read once, replaces itself with a data property
 * (node:util's `parseArgs`, node:fs's `opendir` …). Read them all before the snapshot, so that a
 * first read during a run is not a change.
 */
function settle(exports: object): void {
  for (const key of Reflect.ownKeys(exports)) {
    if (Reflect.getOwnPropertyDescriptor(exports, key)?.get === undefined) continue;
    try {
      Reflect.get(exports, key);
    } catch {
      // A getter that throws (an experimental API not enabled) stays a getter: still watched.
    }
  }
}

/** Each watched object with the name a verdict calls it by (`node:util`, `node:crypto Hash.prototype`). */
export function builtinModuleObjects(): (readonly [string, object])[] {
  const found: (readonly [string, object])[] = [];
  for (const id of MODULES) {
    const exports = process.getBuiltinModule(`node:${id}`) as object | undefined;
    if (exports === undefined) continue;
    settle(exports);
    found.push([`node:${id}`, exports]);
  }
  // Classes whose instances cetp-sim uses: a Hash (createHash: trace hashes, code identity …), the
  // worker's port to the CLI's thread (every record is posted through it).
  for (const proto of prototypes(createHash('sha256'), 2))
    found.push([`node:crypto ${className(proto)}.prototype`, proto]);
  if (parentPort !== null)
    for (const proto of prototypes(parentPort, 1))
      found.push([`node:worker_threads ${className(proto)}.prototype`, proto]);
  return found;
}

/** Named values watched besides the objects: the worker's own port's `postMessage`. */
export function builtinModuleValues(): (readonly [string, () => Record<PropertyKey, unknown>, string])[] {
  if (parentPort === null) return [];
  const port = parentPort as unknown as Record<PropertyKey, unknown>;
  return [['node:worker_threads.parentPort.postMessage', () => port, 'postMessage']];
}

/** After restoring a module's exports: the ESM named imports (`import { x } from 'node:…'`) follow. */
export function syncBuiltinExports(): void {
  syncBuiltinESMExports();
}
