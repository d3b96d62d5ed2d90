/**
 * Globals a user's module must not replace. The simulation is deterministic because it owns every
 * clock and every source of randomness (AppContext.currentTimeMillis(), seededUuid(), the world's
 * seeded scheduler), and because the JavaScript it runs on behaves the same every time. A module
 * that replaces the random source, Date, JSON.stringify, timers or Promise — at import, in install() or
 * in a tool handler — changes what cetp-sim and its own code do in ways a seed does not capture:
 * runs stop reproducing, or verdicts are computed with someone else's JSON. So these are watched:
 * a module that replaces one while it loads is refused (module-loader.ts), and a run that replaced
 * one fails with the `module-globals` verdict (below) — in both cases the originals are put back at
 * once, so nothing after it runs on the replacements.
 */
import type { Checker, Violation } from '../check/checker.ts';

type Holder = Record<string, unknown>;

/** Each watched global: its name, the object holding it, and its key there (holders before members). */
const WATCHED: readonly (readonly [string, () => Holder, string])[] = [
  ['Math', () => globalThis as unknown as Holder, 'Math'],
  ['JSON', () => globalThis as unknown as Holder, 'JSON'],
  ['Date', () => globalThis as unknown as Holder, 'Date'],
  ['Promise', () => globalThis as unknown as Holder, 'Promise'],
  ['Map', () => globalThis as unknown as Holder, 'Map'],
  ['Set', () => globalThis as unknown as Holder, 'Set'],
  ['setTimeout', () => globalThis as unknown as Holder, 'setTimeout'], // determinism-ok: names a global to watch, never calls it
  ['setInterval', () => globalThis as unknown as Holder, 'setInterval'], // determinism-ok: names a global to watch, never calls it
  ['setImmediate', () => globalThis as unknown as Holder, 'setImmediate'], // determinism-ok: names a global to watch, never calls it
  ['queueMicrotask', () => globalThis as unknown as Holder, 'queueMicrotask'],
  ['Math.random', () => Math as unknown as Holder, 'random'], // determinism-ok: names a global to watch, never calls it
  ['Date.now', () => Date as unknown as Holder, 'now'], // determinism-ok: names a global to watch, never calls it
  ['JSON.parse', () => JSON as unknown as Holder, 'parse'],
  ['JSON.stringify', () => JSON as unknown as Holder, 'stringify'],
  ['performance.now', () => performance as unknown as Holder, 'now'], // determinism-ok: names a global to watch, never calls it
  ['crypto.getRandomValues', () => crypto as unknown as Holder, 'getRandomValues'], // determinism-ok: names a global to watch, never calls it
  ['crypto.randomUUID', () => crypto as unknown as Holder, 'randomUUID'], // determinism-ok: names a global to watch, never calls it
  ['Object.keys', () => Object as unknown as Holder, 'keys'],
  ['Object.entries', () => Object as unknown as Holder, 'entries'],
  ['Array.prototype.sort', () => Array.prototype as unknown as Holder, 'sort'],
  ['Promise.prototype.then', () => Promise.prototype as unknown as Holder, 'then'],
];

/** The watched globals as they are now. */
export interface GlobalsSnapshot {
  readonly values: ReadonlyMap<string, unknown>;
}

export function snapshotGlobals(): GlobalsSnapshot {
  return { values: new Map(WATCHED.map(([name, holder, key]) => [name, holder()[key]])) };
}

/** The watched globals that are not what `before` saw, in watch order. */
export function changedGlobals(before: GlobalsSnapshot): string[] {
  return WATCHED.filter(([name, holder, key]) => holder()[key] !== before.values.get(name)).map(
    ([name]) => name,
  );
}

/** Puts every watched global back as `before` saw it (holders first, then their members). */
export function restoreGlobals(before: GlobalsSnapshot): void {
  for (const [name, holder, key] of WATCHED) {
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
}

/** What to tell the user: the names, why it matters, what to do instead. */
export function globalsAdvice(changed: readonly string[]): string {
  return (
    `replaced ${changed.join(', ')} — ${changed.length === 1 ? 'a global' : 'globals'} the simulation's determinism rests on ` +
    '(restored). Take time and randomness from the simulation (AppContext.currentTimeMillis(), ' +
    'elapsedRealtime(), seededUuid()) and leave the globals alone'
  );
}

export const MODULE_GLOBALS_CHECKER = 'module-globals';

/**
 * A checker run after every run of user code: fails the run if a watched global is no longer what
 * it was when the campaign began (`before`), and restores it. No CETP rule: it guards the test bed.
 */
export function globalsChecker(before: GlobalsSnapshot): Checker {
  const checker: Checker = {
    id: MODULE_GLOBALS_CHECKER,
    ruleIds: [],
    description:
      'user code must not replace the globals the simulation relies on (Math.random, Date, JSON, …)', // determinism-ok: a message naming globals
    check(): Violation[] {
      const changed = changedGlobals(before);
      if (changed.length === 0) return [];
      restoreGlobals(before);
      return [
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
