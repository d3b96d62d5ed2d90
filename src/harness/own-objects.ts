/**
 * cetp-sim's own objects that a user's module could reach and patch, watched like the built-ins
 * (src/harness/globals.ts): a module that replaces `World.prototype.run`, a static of an exported
 * class, a method of an exported object (`ALERTS_PROVIDER.install`), pushes onto an exported list or
 * replaces a checker's `check` changes how its runs are judged — for every run after it in the
 * thread, not only its own. So every such change is refused at load or fails the run
 * (`module-globals`), naming what changed, and is undone.
 *
 * Watched (each object's own properties, as descriptors):
 * - everything the public API exports (src/index.ts, registered by the CLI: `watchExports`), walked:
 *   classes (statics), their prototypes
 *   and superclasses, exported objects and lists, the objects and classes they hold;
 * - every checker (src/check/checkers/index.ts) and the list itself;
 * - the prototypes of the objects a World is made of (its trace, scheduler, binder, package manager
 *   …), which a module reaches through the world its install() is given.
 * Not watched: instances (a world's, an app's own state is the run's, and breaking it breaks only
 * that run), nor what Maps and Sets hold; frozen objects cannot change.
 *
 * Snapshot and compare rather than freezing: a frozen prototype turns a module's patch into a
 * TypeError thrown inside the module — swallowed by its own try/catch, or silently ignored in
 * sloppy-mode CommonJS — so the run could still pass; a compare names the change in the verdict,
 * and restores it. (Freezing would also break the project's own tests that spy on its classes.)
 */
import { caches } from '../base/caches.ts';
import { ALL_CHECKERS } from '../check/checkers/index.ts';
import { REGISTRY } from '../fuzz/registry.ts';
import { World } from '../sim/world.ts';

/** How deep the walk goes from an export (a class's prototype's method's statics … is deep enough). */
const MAX_DEPTH = 6;
/** Lists longer than this are watched as lists (length, entries), their entries not walked. */
const MAX_WALKED_ENTRIES = 400;

const fnToString = Function.prototype.toString;

function isNative(fn: (...args: never[]) => unknown): boolean {
  try {
    return fnToString.call(fn).endsWith('{ [native code] }');
  } catch {
    return true; // a Proxy of a function, or something that refuses toString: not ours to watch
  }
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype || proto === Array.prototype;
}

/** A built-in's prototype (Object.prototype, Map.prototype …): watched by globals.ts, not here. */
function isBuiltinPrototype(value: object): boolean {
  const ctor = Reflect.getOwnPropertyDescriptor(value, 'constructor')?.value;
  return typeof ctor === 'function' && ctor.prototype === value && isNative(ctor);
}

/**
 * A function, or an object holding one (a method, a class): what a patch changes the behaviour of.
 * Plain data below the exports (schemas, descriptors) is walked for the classes it holds, not
 * watched: a compare after every run must stay cheap.
 */
function hasBehaviour(value: object): boolean {
  if (typeof value === 'function') return true;
  for (const key of Reflect.ownKeys(value)) {
    const d = Reflect.getOwnPropertyDescriptor(value, key);
    if (d && (d.get !== undefined || d.set !== undefined || typeof d.value === 'function')) return true;
  }
  return false;
}

class Walk {
  readonly found: [string, object][] = [];
  private readonly seen = new Set<unknown>();

  /** An exported value: watched itself when it can change, then what it holds. */
  value(value: unknown, path: string, depth: number): void {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return;
    if (this.seen.has(value) || depth > MAX_DEPTH) return;
    if (typeof value === 'function' && isNative(value as () => unknown)) return;
    if (typeof value === 'object' && !isPlain(value)) {
      // An instance (a constant made of a class): its state is not watched, its class is.
      this.seen.add(value);
      this.prototypeOf(value, depth);
      return;
    }
    if (isBuiltinPrototype(value)) return;
    this.seen.add(value);
    if (!Object.isFrozen(value) && (depth === 0 || hasBehaviour(value))) this.found.push([path, value]);
    if (Array.isArray(value) && value.length > MAX_WALKED_ENTRIES) return;
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'symbol') continue;
      const d = Reflect.getOwnPropertyDescriptor(value, key);
      if (d && 'value' in d) this.value(d.value, `${path}.${key}`, depth + 1);
    }
    if (typeof value === 'function') {
      const parent = Object.getPrototypeOf(value);
      if (typeof parent === 'function') this.value(parent, parent.name || `${path}.[[Prototype]]`, depth + 1);
    } else {
      this.prototypeOf(value, depth);
    }
  }

  /** The non-built-in prototypes of an object (its class's, its superclasses'). */
  prototypeOf(value: object, depth: number): void {
    for (let proto = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
      if (isBuiltinPrototype(proto) || this.seen.has(proto)) return;
      const ctor = Reflect.getOwnPropertyDescriptor(proto, 'constructor')?.value;
      const name = typeof ctor === 'function' && ctor.name ? ctor.name : 'anonymous class';
      if (typeof ctor === 'function') this.value(ctor, name, depth + 1);
      if (this.seen.has(proto)) continue;
      this.value(proto, `${name}.prototype`, depth + 1);
    }
  }

  /** An instance's members, recursively: their classes are watched, never their state. */
  instance(value: unknown, depth: number): void {
    if (typeof value !== 'object' || value === null || this.seen.has(value) || depth > 3) return;
    this.seen.add(value);
    this.prototypeOf(value, depth);
    for (const key of Reflect.ownKeys(value)) {
      const d = Reflect.getOwnPropertyDescriptor(value, key);
      if (d && 'value' in d) this.instance(d.value, depth + 1);
    }
  }
}

/** The public API's namespaces, by entry (the CLI registers src/index.ts: the harness sits under it). */
const EXPORTS = caches.lazy(
  'harness/own-objects: the public API namespaces the walk starts from',
  () => new Map<string, object>(),
);

function ownObjects(): readonly (readonly [string, object])[] {
  const walk = new Walk();
  for (const namespace of EXPORTS.get().values())
    for (const [name, value] of Object.entries(namespace)) walk.value(value, name, 0);
  for (const checker of ALL_CHECKERS) walk.value(checker, `checker ${checker.id}`, 0);
  walk.value(ALL_CHECKERS, 'the checker list', 0);
  // Every property's own checker list and its checkers (the crash points' `crash-*` among them).
  for (const { def } of REGISTRY) {
    walk.value(def.checkers, `the checkers of property ${def.id}`, 0);
    for (const checker of def.checkers) walk.value(checker, `checker ${checker.id}`, 0);
  }
  walk.instance(new World({ seed: 0 }), 0);
  return walk.found;
}

const OWN = caches.lazy('harness/own-objects: cetp-sim objects watched like built-ins', ownObjects);

/**
 * Watches what a public entry exports (`import * as api from 'cetp-sim'`), from the next snapshot
 * on. The CLI registers src/index.ts before it loads a user's module; without it, the checkers and
 * the world's parts are watched.
 */
export function watchExports(entry: string, namespace: object): void {
  const exports = EXPORTS.get();
  if (exports.get(entry) === namespace) return;
  exports.set(entry, namespace);
  OWN.clear();
}

/** cetp-sim's own objects a module could patch, each with the name a verdict calls it by. */
export function ownWatchedObjects(): readonly (readonly [string, object])[] {
  return OWN.get();
}
