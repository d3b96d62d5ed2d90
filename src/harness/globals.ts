/**
 * Globals a user's module must not replace. The simulation is deterministic because it owns every
 * clock and every source of randomness (AppContext.currentTimeMillis(), seededUuid(), the world's
 * seeded scheduler), and because the JavaScript it runs on behaves the same every time. A module
 * that replaces the random source, Date, JSON.stringify, timers or Promise — at import, in install() or
 * in a tool handler — changes what cetp-sim and its own code do in ways a seed does not capture:
 * runs stop reproducing, or verdicts are computed with someone else's JSON. So are a module that
 * pollutes a built-in prototype (`Object.prototype.retryable = false` answers every missing field of
 * every object cetp-sim reads, verdicts included) or replaces any built-in method (`Array.prototype.
 * includes`, `String.prototype.normalize`, `Reflect.ownKeys` …). So these are watched:
 * - named globals on `globalThis` and the host objects (timers, the performance clock, `crypto`), and
 * - every own property — added, removed or replaced, symbols included — of the built-in prototypes
 *   and namespaces (INTRINSICS below), Node's Buffer and its prototype, TextEncoder's and
 *   TextDecoder's prototypes, and `process.nextTick`;
 * - the exports of Node's built-in modules cetp-sim computes with (`node:util`, `node:crypto` and a
 *   Hash's prototype, `node:path`, `node:worker_threads` and its port …: builtin-modules.ts).
 * A module that changes one while it loads is refused (module-loader.ts), and a run that changed one
 * fails with the `module-globals` verdict (below) — in both cases the originals are put back at
 * once, so nothing after it runs on the replacements.
 */
import type { Checker, Violation } from '../check/checker.ts';
import { builtinModuleObjects, builtinModuleValues, syncBuiltinExports } from './builtin-modules.ts';
import { endRun, escapesViolation } from './escapes.ts';
import { ownWatchedObjects } from './own-objects.ts';

type Holder = Record<PropertyKey, unknown>;

const G = (): Holder => globalThis as unknown as Holder;

/** Named globals, each: its name, the object holding it, and its key there. */
const WATCHED: readonly (readonly [string, () => Holder, string])[] = [
  ...[
    'Math',
    'JSON',
    'Date',
    'Promise',
    'Map',
    'Set',
    'WeakMap',
    'WeakSet',
    'Object',
    'Array',
    'Function',
    'String',
    'Number',
    'Boolean',
    'Symbol',
    'BigInt',
    'Reflect',
    'Proxy',
    'RegExp',
    'Error',
    'TypeError',
    'RangeError',
    'ArrayBuffer',
    'Uint8Array',
    'TextEncoder',
    'TextDecoder',
    'structuredClone',
    'Buffer',
    'URL',
    'setTimeout', // determinism-ok: names a global to watch, never calls it
    'setInterval', // determinism-ok: names a global to watch, never calls it
    'setImmediate', // determinism-ok: names a global to watch, never calls it
    'queueMicrotask',
  ].map((name) => [name, G, name] as const),
  ['performance.now', () => performance as unknown as Holder, 'now'], // determinism-ok: names a global to watch, never calls it
  ['crypto.getRandomValues', () => crypto as unknown as Holder, 'getRandomValues'], // determinism-ok: names a global to watch, never calls it
  ['crypto.randomUUID', () => crypto as unknown as Holder, 'randomUUID'], // determinism-ok: names a global to watch, never calls it
  // Node's own: the order of queued callbacks (a replaced nextTick reorders what streams and
  // promises hooks do), as a module could reach it without any import.
  ['process.nextTick', () => process as unknown as Holder, 'nextTick'],
];

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;

/**
 * Built-ins watched whole: every own property (string or symbol key) as its descriptor. `Error`
 * itself is left out (`Error.prepareStackTrace` and `stackTraceLimit` are set by source-map and test
 * tooling); its prototype is watched.
 */
const INTRINSICS: readonly (readonly [string, object])[] = [
  ['Math', Math],
  ['Date', Date],
  ['JSON', JSON],
  ['Reflect', Reflect],
  ['Object', Object],
  ['Array', Array],
  ['Promise', Promise],
  ['Number', Number],
  ['String', String],
  ['Symbol', Symbol],
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
  ['Symbol.prototype', Symbol.prototype],
  ['BigInt.prototype', BigInt.prototype],
  ['Promise.prototype', Promise.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
  ['WeakMap.prototype', WeakMap.prototype],
  ['RegExp.prototype', RegExp.prototype],
  ['Date.prototype', Date.prototype],
  ['Error.prototype', Error.prototype],
  ['ArrayBuffer.prototype', ArrayBuffer.prototype],
  ['TypedArray.prototype', TypedArrayPrototype],
  ['Uint8Array.prototype', Uint8Array.prototype],
  // Node's built-ins the simulation computes with: byte counts for the size limits
  // (Buffer.byteLength: the inline limit, CETP-4.5-01; max_request_bytes, 4.1-08), file bytes and
  // their text (Buffer.from, toString), UTF-8 encoding and decoding.
  ['Buffer', Buffer],
  ['Buffer.prototype', Buffer.prototype],
  ['TextEncoder.prototype', TextEncoder.prototype],
  ['TextDecoder.prototype', TextDecoder.prototype],
];

/** How a change to one of cetp-sim's own objects (own-objects.ts) is named. */
const OWN_PREFIX = "cetp-sim's ";

/** The watched globals as they are now. */
export interface GlobalsSnapshot {
  /** The named globals (WATCHED, then builtin-modules.ts's) and their values. */
  readonly named: readonly (readonly [string, () => Holder, PropertyKey])[];
  readonly values: ReadonlyMap<string, unknown>;
  /**
   * The objects watched whole, each by the name a verdict calls it: the intrinsics, Node's built-in
   * modules (builtin-modules.ts), then cetp-sim's own (own-objects.ts, prefixed OWN_PREFIX).
   */
  readonly objects: readonly (readonly [string, object])[];
  /** Per object (`objects` order): its own properties' descriptors, by key. */
  readonly intrinsics: readonly ReadonlyMap<PropertyKey, PropertyDescriptor>[];
}

export function snapshotGlobals(): GlobalsSnapshot {
  const objects = [
    ...INTRINSICS,
    ...builtinModuleObjects(),
    ...ownWatchedObjects().map(([name, on]) => [`${OWN_PREFIX}${name}`, on] as const),
  ];
  const named = [...WATCHED, ...builtinModuleValues()];
  return {
    named,
    values: new Map(named.map(([name, holder, key]) => [name, holder()[key]])),
    objects,
    intrinsics: objects.map(
      ([, on]) =>
        new Map(
          Reflect.ownKeys(on).map((key) => [
            key,
            Reflect.getOwnPropertyDescriptor(on, key) as PropertyDescriptor,
          ]),
        ),
    ),
  };
}

function sameDescriptor(a: PropertyDescriptor | undefined, b: PropertyDescriptor | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    Object.is(a.value, b.value) &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

const keyName = (holder: string, key: PropertyKey): string =>
  typeof key === 'symbol' ? `${holder}[${key.description ?? 'symbol'}]` : `${holder}.${key}`;

interface IntrinsicChange {
  readonly on: object;
  readonly key: PropertyKey;
  /** The descriptor before, or undefined for a property that was added. */
  readonly before: PropertyDescriptor | undefined;
  readonly name: string;
}

/** Whether `on`'s own properties are still those of `was` (one pass: this runs after every run). */
function unchanged(on: object, was: ReadonlyMap<PropertyKey, PropertyDescriptor>): boolean {
  const keys = Reflect.ownKeys(on);
  if (keys.length !== was.size) return false;
  for (const key of keys) {
    const before = was.get(key);
    if (before === undefined || !sameDescriptor(before, Reflect.getOwnPropertyDescriptor(on, key)))
      return false;
  }
  return true;
}

function intrinsicChanges(before: GlobalsSnapshot): IntrinsicChange[] {
  const changes: IntrinsicChange[] = [];
  before.objects.forEach(([name, on], i) => {
    const was = before.intrinsics[i];
    if (was === undefined || unchanged(on, was)) return;
    const holder = name;
    for (const [key, descriptor] of was) {
      const now = Reflect.getOwnPropertyDescriptor(on, key);
      if (sameDescriptor(descriptor, now)) continue;
      const name = keyName(holder, key);
      changes.push({ on, key, before: descriptor, name: now === undefined ? `${name} (deleted)` : name });
    }
    for (const key of Reflect.ownKeys(on)) {
      if (!was.has(key))
        changes.push({ on, key, before: undefined, name: `${keyName(holder, key)} (added)` });
    }
  });
  return changes;
}

/** The watched globals that are not what `before` saw, in watch order. */
export function changedGlobals(before: GlobalsSnapshot): string[] {
  return [
    ...before.named
      .filter(([name, holder, key]) => holder()[key] !== before.values.get(name))
      .map(([name]) => name),
    ...intrinsicChanges(before).map((c) => c.name),
  ];
}

/** Puts every watched global back as `before` saw it (named globals first, then the intrinsics). */
export function restoreGlobals(before: GlobalsSnapshot): void {
  for (const [name, holder, key] of before.named) {
    const original = before.values.get(name);
    const on = holder();
    if (on[key] === original) continue;
    try {
      Object.defineProperty(on, key, {
        value: original,
        writable: true,
        configurable: true,
        enumerable: false,
      });
    } catch {
      on[key] = original;
    }
  }
  for (const change of intrinsicChanges(before)) {
    // A property the user made non-configurable cannot be put back; the verdict has already said so.
    if (change.before === undefined) Reflect.deleteProperty(change.on, change.key);
    else Reflect.defineProperty(change.on, change.key, change.before);
  }
  // A named import of a built-in module (`import { isDeepStrictEqual } from 'node:util'`) follows
  // its exports object only when told: put back what a module synced.
  syncBuiltinExports();
}

/** What to tell the user: the names, why it matters, what to do instead. */
export function globalsAdvice(changed: readonly string[]): string {
  const verb = changed.some((c) => c.endsWith('(added)') || c.endsWith('(deleted)')) ? 'changed' : 'replaced';
  if (changed.every((c) => c.startsWith(OWN_PREFIX)))
    return (
      `${verb} ${changed.join(', ')} — cetp-sim's own code, the test bed that judges the module (restored). ` +
      "A module may call cetp-sim's API, never patch it: change your own classes instead"
    );
  if (changed.every((c) => c.startsWith('node:')))
    return (
      `${verb} ${changed.join(', ')} — ${changed.length === 1 ? "a Node built-in module's export" : "Node built-in modules' exports"} ` +
      "cetp-sim's own code computes with in the module's thread (restored). A module may call Node's " +
      'modules, never patch them: wrap what you need in your own function instead'
    );
  return (
    `${verb} ${changed.join(', ')} — ${changed.length === 1 ? 'a global' : 'globals'} the simulation's determinism rests on ` +
    '(restored). Take time and randomness from the simulation (AppContext.currentTimeMillis(), ' +
    'elapsedRealtime(), seededUuid()) and leave the globals alone'
  );
}

export const MODULE_GLOBALS_CHECKER = 'module-globals';

/**
 * A checker run after every run of user code: fails the run if a watched global is no longer what
 * it was when the campaign began (`before`), and restores it; and (`module-escapes-simulation`) if
 * user code called out of the simulation in it (escapes.ts). No CETP rule: it guards the test bed.
 */
export function globalsChecker(before: GlobalsSnapshot): Checker {
  const checker: Checker = {
    id: MODULE_GLOBALS_CHECKER,
    ruleIds: [],
    description:
      'user code must not replace the globals the simulation relies on (Math.random, Date, JSON, …)', // determinism-ok: a message naming globals
    check(): Violation[] {
      // What user code did outside the simulation in this run (escapes.ts), as its own verdict.
      const escaped = escapesViolation();
      endRun();
      const changed = changedGlobals(before);
      if (changed.length === 0) return escaped ? [escaped] : [];
      restoreGlobals(before);
      return [
        ...(escaped ? [escaped] : []),
        {
          checker: MODULE_GLOBALS_CHECKER,
          ruleIds: [],
          class: 'correctness',
          message: `user code in this run ${globalsAdvice(changed)}`,
          events: [],
          calls: [],
        },
      ];
    },
  };
  return checker;
}
