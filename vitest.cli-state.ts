/**
 * What a test file could leave behind in its worker process, and the difference between two such
 * snapshots: vitest.cli-guard.ts (the `cli-shared` project's setup file) fails a file that left
 * anything, and test/vitest-projects.test.ts shows each kind of leftover named. Nothing here imports
 * cetp-sim: the user modules a thread imported are passed in.
 */
import Module from 'node:module';

type Holder = Record<PropertyKey, unknown>;

/** The built-ins whose own members a module (or cetp-sim's guards) could replace. */
const WATCHED: readonly [string, Holder][] = [
  ['globalThis', globalThis as unknown as Holder],
  ['Math', Math as unknown as Holder],
  ['JSON', JSON as unknown as Holder],
  ['Date', Date as unknown as Holder],
  ['Date.prototype', Date.prototype as unknown as Holder],
  ['Object', Object as unknown as Holder],
  ['Object.prototype', Object.prototype as unknown as Holder],
  ['Array.prototype', Array.prototype as unknown as Holder],
  ['Function.prototype', Function.prototype as unknown as Holder],
  ['Promise', Promise as unknown as Holder],
  ['Promise.prototype', Promise.prototype as unknown as Holder],
  ['String.prototype', String.prototype as unknown as Holder],
  ['Buffer', Buffer as unknown as Holder],
  ['process', process as unknown as Holder],
  ['performance', performance as unknown as Holder],
  ['crypto', globalThis.crypto as unknown as Holder],
];

/** globalThis members vitest itself sets per file (not the file's doing). */
const VITEST_OWN = /^(?:__vitest|__VITEST|__vite|vi$|expect$|__cetp_never)/;
const SIGNALS = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'exit',
  'beforeExit',
  'uncaughtException',
  'unhandledRejection',
];

/** What a file could leave behind in its process. */
export interface ProcessState {
  readonly members: ReadonlyMap<string, unknown>;
  readonly listeners: ReadonlyMap<string, number>;
  readonly resources: ReadonlyMap<string, number>;
  readonly imported: readonly string[];
  readonly loader: ReadonlyMap<string, unknown>;
  readonly env: string;
  readonly cwd: string;
  readonly exitCode: unknown;
}

function members(): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const [name, holder] of WATCHED) {
    for (const key of Reflect.ownKeys(holder)) {
      const label = `${name}.${String(key)}`;
      if (name === 'globalThis' && VITEST_OWN.test(String(key))) continue;
      const d = Object.getOwnPropertyDescriptor(holder, key);
      // Accessors by their getter and setter; data members by value (process.env and other objects
      // that change by use are not members a file replaces: compared apart, or not at all).
      if (d === undefined) continue;
      if (d.get || d.set) {
        found.set(`${label} (getter)`, d.get);
        found.set(`${label} (setter)`, d.set);
      } else if (typeof d.value === 'function') found.set(label, d.value);
      else if (name !== 'process' && name !== 'globalThis') found.set(label, d.value);
    }
  }
  return found;
}

function counts(items: readonly string[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const item of items) n.set(item, (n.get(item) ?? 0) + 1);
  return n;
}

/** The process's state now. */
export function processState(imported: readonly string[] = []): ProcessState {
  const loader = Module as unknown as { _extensions: Holder; _resolveFilename: unknown; _load: unknown };
  return {
    members: members(),
    listeners: new Map(SIGNALS.map((s) => [s, process.listenerCount(s)])),
    resources: counts(process.getActiveResourcesInfo()),
    imported,
    loader: new Map<string, unknown>([
      ...Object.entries(loader._extensions).map(([ext, fn]) => [`_extensions${ext}`, fn] as const),
      ['_resolveFilename', loader._resolveFilename],
      ['_load', loader._load],
    ]),
    env: JSON.stringify(Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : 1))),
    cwd: process.cwd(),
    exitCode: process.exitCode,
  };
}

/** What changed between `before` and `after`, one line each (empty: nothing left behind). */
export function leftBehind(before: ProcessState, after: ProcessState): string[] {
  const left: string[] = [];
  const changed = (what: string, a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>) => {
    for (const key of new Set([...a.keys(), ...b.keys()]))
      if (a.get(key) !== b.get(key))
        left.push(`${what} ${key} ${a.has(key) ? (b.has(key) ? 'replaced' : 'removed') : 'added'}`);
  };
  changed('global', before.members, after.members);
  changed('node:module', before.loader, after.loader);
  for (const [signal, n] of after.listeners)
    if (n !== before.listeners.get(signal))
      left.push(`process listeners of '${signal}': ${before.listeners.get(signal)} → ${n}`);
  for (const [kind, n] of after.resources)
    if (n > (before.resources.get(kind) ?? 0))
      left.push(`${n - (before.resources.get(kind) ?? 0)} more active ${kind}`);
  for (const file of after.imported)
    if (!before.imported.includes(file)) left.push(`a user module imported in this thread: ${file}`);
  if (after.env !== before.env) left.push('process.env changed');
  if (after.cwd !== before.cwd) left.push(`the working directory changed to ${after.cwd}`);
  if (after.exitCode !== before.exitCode) left.push(`process.exitCode set to ${String(after.exitCode)}`);
  return left;
}
