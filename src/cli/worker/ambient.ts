/**
 * Guards on what a user's module could reach outside the simulation (src/harness/escapes.ts says
 * why and what is allowed when), installed in a worker thread before it loads a user's module:
 * ambient time (Date.now, new Date(), performance.now, process.hrtime), randomness (Math.random,
 * crypto), timers (setTimeout, setInterval, setImmediate, node:timers/promises), processes
 * (child_process), files (node:fs) and network (net, http, https, dgram, dns, fetch).
 *
 * Each guard looks at the stack of the call: the nearest frame that is neither Node's own nor a
 * package's decides — cetp-sim's own code (worker/boundary.mjs) may (the CLI times its jobs; fast-check
 * reads the clock for --time), a user's file may not; a package (node_modules) called from a user's
 * file is the user's call. Module loading (Node's loader reading a file for a `require`) is not a call.
 * The guards are installed once per worker, before the globals watcher's baseline is taken, so they
 * are the globals a run must leave as they are.
 */
import childProcess from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { relative } from 'node:path';
import timers from 'node:timers';
import timersPromises from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { caches } from '../../base/caches.ts';
import { type EscapeKind, recordEscape, recordThrown } from '../../harness/escapes.ts';
import { isOwn } from './boundary.mjs';

/** While a module's top level runs (reading files is allowed then), or after (nothing is). */
export type Phase = 'load' | 'run';

const STATE = caches.lazy('cli/worker/ambient: the guards of this worker thread', () => ({
  installed: false,
  phase: 'run' as Phase,
}));

/** Sets the phase the next escapes are judged in. */
export function setPhase(phase: Phase): void {
  STATE.get().phase = phase;
}

type Fn = (...args: never[]) => unknown;
type Holder = Record<string, unknown>;

const FRAME = /\(?((?:file:\/\/|\/|node:)[^()]*?):(\d+):(\d+)\)?$/;

/** Where each frame of a stack is (file, or `node:…`), without formatting it (no source maps: cheap). */
function stackFiles(skip: Fn): string[] {
  const holder: { stack?: unknown } = {};
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_error, sites) => sites;
  Error.stackTraceLimit = 64;
  try {
    Error.captureStackTrace(holder, skip);
    const sites = (holder.stack ?? []) as NodeJS.CallSite[];
    return sites.map((site) => site.getFileName() ?? '');
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

/**
 * Whose call this is, from where its frames are: 'user' when the nearest frame that is neither
 * Node's nor a package's is a user's file, null when cetp-sim's own code (or Node itself, or its
 * module loader reading a file for a `require`) made it.
 */
function caller(files: readonly string[]): 'user' | null {
  for (const [i, location] of files.entries()) {
    if (location === '') continue;
    if (location.startsWith('node:')) {
      // Node's own use (a stream arming a timer, the loader reading a file for a require).
      if (i === 0 || location.startsWith('node:internal/modules/')) return null;
      continue;
    }
    const path = location.startsWith('file://') ? fileURLToPath(location) : location;
    if (isOwn(path)) return null;
    if (path.includes('/node_modules/')) continue;
    return 'user';
  }
  return null;
}

/**
 * The user's frame that made the call whose stack this is (`path:line:column`, relative to the
 * working directory, source-mapped), or null when cetp-sim's own code made it. `skip`: the guard
 * itself, left out of the stack. Only a user's call has its stack formatted (the costly part).
 */
export function userFrame(skip: Fn): string | null {
  if (caller(stackFiles(skip)) === null) return null;
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 64;
  Error.captureStackTrace(holder, skip);
  Error.stackTraceLimit = limit;
  for (const line of (holder.stack ?? '').split('\n').slice(1)) {
    const m = FRAME.exec(line.trim());
    const [, location = '', row, column] = m ?? [];
    if (!m || location.startsWith('node:')) continue;
    const path = location.startsWith('file://') ? fileURLToPath(location) : location;
    if (isOwn(path) || path.includes('/node_modules/')) continue;
    const shown = relative(process.cwd(), path);
    return `${shown.startsWith('..') ? path : shown}:${row}:${column}`;
  }
  return null;
}

class EscapeRefused extends Error {
  override readonly name = 'EscapeRefused';
}

/**
 * Replaces `holder[key]` with a guard: a call from user code is recorded (and, when `refuse`, throws
 * instead of running); `track` tells how to cancel what the call armed (a timer).
 */
function guard(
  holder: Holder,
  key: string,
  call: string,
  kind: EscapeKind,
  options: { refuse?: boolean; allowedAtLoad?: boolean; track?: (result: unknown) => () => void } = {},
): void {
  const original = holder[key];
  if (typeof original !== 'function') return;
  const fn = original as Fn;
  const guarded = function (this: unknown, ...args: never[]): unknown {
    const frame = userFrame(guarded);
    if (frame === null || (options.allowedAtLoad && STATE.get().phase === 'load'))
      return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
    if (options.refuse) {
      recordEscape({ call, kind, frame });
      throw new EscapeRefused(
        `cetp-sim: ${call} is outside the simulation; a module may not call it (module-escapes-simulation)`,
      );
    }
    const result = new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
    recordEscape({ call, kind, frame }, options.track?.(result));
    return result;
  };
  Object.defineProperties(guarded, {
    name: { value: fn.name },
    length: { value: fn.length },
  });
  // Keep what hangs off the original (util.promisify.custom, timers' __promisify__ …).
  for (const k of Reflect.ownKeys(fn)) {
    if (k === 'name' || k === 'length' || k === 'prototype') continue;
    const d = Reflect.getOwnPropertyDescriptor(fn, k);
    if (d) Reflect.defineProperty(guarded, k, d);
  }
  if ('prototype' in fn) (guarded as unknown as Holder).prototype = (fn as unknown as Holder).prototype;
  const descriptor = Reflect.getOwnPropertyDescriptor(holder, key);
  Reflect.defineProperty(holder, key, {
    value: guarded,
    writable: descriptor?.writable ?? true,
    enumerable: descriptor?.enumerable ?? true,
    configurable: true,
  });
}

/** `new Date()` and `Date()` read the clock; `new Date(value)` does not. */
function guardDateConstructor(): void {
  const RealDate = Date;
  const handler: ProxyHandler<DateConstructor> = {
    construct(target, args, newTarget) {
      const frame = args.length === 0 ? userFrame(handler.construct as Fn) : null;
      if (frame !== null) recordEscape({ call: 'new Date()', kind: 'time', frame });
      return Reflect.construct(target, args, newTarget === GuardedDate ? target : newTarget);
    },
    apply(target, self, args) {
      const frame = userFrame(handler.apply as Fn);
      if (frame !== null) recordEscape({ call: 'Date()', kind: 'time', frame });
      return Reflect.apply(target, self, args);
    },
  };
  const GuardedDate = new Proxy(RealDate, handler);
  (globalThis as unknown as Holder).Date = GuardedDate;
}

/**
 * `new Error(…)`, `new TypeError(…)`, `new RangeError(…)` made in user code (a subclass's `super()`
 * included) are recorded with the module's frame, so that a failure can name what the module threw
 * (escapes.ts `Thrown`). Errors made before the guards (cetp-sim's own classes, ToolFailure) are not.
 */
function guardErrorConstructors(): void {
  const G = globalThis as unknown as Holder;
  for (const name of ['Error', 'TypeError', 'RangeError']) {
    const Real = G[name] as ErrorConstructor;
    const handler: ProxyHandler<ErrorConstructor> = {
      construct(target, args, newTarget) {
        const error = Reflect.construct(target, args, newTarget === Guarded ? target : newTarget) as Error;
        // Its stack as if made by the caller, not by this trap.
        Error.captureStackTrace(error, handler.construct as Fn);
        const frame = userFrame(handler.construct as Fn);
        if (frame !== null) recordThrown({ error: `${error.name}: ${error.message}`, frame });
        return error;
      },
      apply(target, _self, args) {
        const error = Reflect.construct(target, args) as Error;
        Error.captureStackTrace(error, handler.apply as Fn);
        const frame = userFrame(handler.apply as Fn);
        if (frame !== null) recordThrown({ error: `${error.name}: ${error.message}`, frame });
        return error;
      },
    };
    const Guarded = new Proxy(Real, handler);
    G[name] = Guarded;
  }
}

const timerTrack =
  (clear: (handle: never) => void) =>
  (handle: unknown): (() => void) =>
  () =>
    clear(handle as never);

/** Installs the guards in this thread (once). */
export function guardAmbient(): void {
  const state = STATE.get();
  if (state.installed) return;
  state.installed = true;
  const G = globalThis as unknown as Holder;
  guard(Math as unknown as Holder, 'random', 'Math.random', 'randomness');
  guard(Date as unknown as Holder, 'now', 'Date.now', 'time');
  guardDateConstructor();
  guardErrorConstructors();
  guard(performance as unknown as Holder, 'now', 'performance.now', 'time');
  guard(process as unknown as Holder, 'hrtime', 'process.hrtime', 'time');
  guard(process.hrtime as unknown as Holder, 'bigint', 'process.hrtime.bigint', 'time');
  guard(globalThis.crypto as unknown as Holder, 'getRandomValues', 'crypto.getRandomValues', 'randomness');
  guard(globalThis.crypto as unknown as Holder, 'randomUUID', 'crypto.randomUUID', 'randomness');
  const nodeCrypto = crypto as unknown as Holder;
  for (const key of [
    'randomBytes',
    'randomUUID',
    'randomInt',
    'randomFill',
    'randomFillSync',
    'getRandomValues',
  ])
    guard(nodeCrypto, key, `crypto.${key}`, 'randomness');
  const clears = {
    setTimeout: timerTrack(clearTimeout),
    setInterval: timerTrack(clearInterval),
    setImmediate: timerTrack(clearImmediate),
  };
  for (const [key, track] of Object.entries(clears)) {
    guard(G, key, key, 'timer', { track });
    (timers as unknown as Holder)[key] = G[key];
  }
  for (const key of ['setTimeout', 'setInterval', 'setImmediate'])
    guard(timersPromises as unknown as Holder, key, `timers/promises.${key}`, 'timer');
  const cp = childProcess as unknown as Holder;
  for (const key of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
    guard(cp, key, `child_process.${key}`, 'process', { refuse: true });
  guard(process as unknown as Holder, 'kill', 'process.kill', 'process', { refuse: true });
  const files = fs as unknown as Holder;
  const promises = fs.promises as unknown as Holder;
  for (const key of [
    'readFile',
    'readFileSync',
    'createReadStream',
    'readdir',
    'readdirSync',
    'openSync',
    'open',
  ])
    guard(files, key, `fs.${key}`, 'file', { allowedAtLoad: true });
  for (const key of ['readFile', 'readdir', 'open'])
    guard(promises, key, `fs.promises.${key}`, 'file', { allowedAtLoad: true });
  const writes = ['writeFile', 'appendFile', 'mkdir', 'rm', 'rmdir', 'unlink', 'rename', 'copyFile', 'cp'];
  for (const key of writes) {
    guard(files, key, `fs.${key}`, 'file', { refuse: true });
    guard(files, `${key}Sync`, `fs.${key}Sync`, 'file', { refuse: true });
    guard(promises, key, `fs.promises.${key}`, 'file', { refuse: true });
  }
  guard(files, 'createWriteStream', 'fs.createWriteStream', 'file', { refuse: true });
  for (const [name, mod, keys] of [
    ['net', net, ['connect', 'createConnection', 'createServer']],
    ['http', http, ['request', 'get', 'createServer']],
    ['https', https, ['request', 'get', 'createServer']],
    ['dgram', dgram, ['createSocket']],
    ['dns', dns, ['lookup', 'resolve']],
  ] as const)
    for (const key of keys)
      guard(mod as unknown as Holder, key, `${name}.${key}`, 'network', { refuse: true });
  guard(G, 'fetch', 'fetch', 'network', { refuse: true });
  // `import { spawn } from 'node:child_process'` sees the guards too.
  syncBuiltinESMExports();
}
