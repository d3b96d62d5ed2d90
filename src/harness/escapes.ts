/**
 * What a user's module did outside the simulation: ambient time, randomness, timers, processes,
 * files, network. A run is a function of its seed only because everything it does goes through the
 * simulated world (its clock, its seeded PRNG, its scheduler, each app's own storage); a module that
 * reads the wall clock, draws from Math.random, arms a real timer, starts a process, writes a file // determinism-ok: names the calls it detects
 * or opens a socket makes runs that no seed reproduces — and a verdict on them is noise. The CLI's
 * worker threads record such calls made from user code (src/cli/worker/ambient.ts, which tells the
 * module's frames from cetp-sim's own); here is the log they go to and the verdict it becomes:
 * `module-escapes-simulation`, naming each call and the module's frame, and what to use instead.
 *
 * What a module may do, and when: while it loads (its top level), read files (its own data, a
 * config); nothing else of the above — a load that does is refused. During the runs (install(),
 * handlers, an agent): none of it. Time, randomness and timers are let through (recorded; the timers
 * a run armed are cleared when it is judged); processes, file writes and network are refused (the
 * call throws, recorded), so no process a module starts outlives the CLI and no run touches the
 * user's disk or network.
 */
import { caches } from '../base/caches.ts';
import type { Violation } from '../check/checker.ts';

export const MODULE_ESCAPES_CHECKER = 'module-escapes-simulation';

export type EscapeKind = 'time' | 'randomness' | 'timer' | 'process' | 'file' | 'network';

export interface Escape {
  /** The call, as the module wrote it: `Math.random`, `setInterval`, `child_process.spawn` … */ // determinism-ok: a name, not a call
  readonly call: string;
  readonly kind: EscapeKind;
  /** The module's frame that made it (`path:line:column`, relative to the working directory). */
  readonly frame: string;
}

/** What to use instead, by kind. */
const INSTEAD: Readonly<Record<EscapeKind, string>> = {
  time: "the simulation's clock (AppContext.currentTimeMillis(), elapsedRealtime())",
  randomness: "the simulation's seeded PRNG (AppContext.seededUuid(), ids from the app's storage)",
  timer: "the simulation's scheduler (its sleep and timeouts; the SDK's async operations)",
  process: 'nothing outside the simulated world: model the other process as an app in it',
  file: "the app's own storage (AppContext storage, StoreTransaction); read your data at load",
  network: 'an app in the simulated world instead of a socket',
};

/** An error user code raised in a run (made in the module's code: thrown, as a rule), and where. */
export interface Thrown {
  /** `name: message`, e.g. `Error: storage offline`. */
  readonly error: string;
  readonly frame: string;
}

interface EscapeLog {
  /** Calls recorded since the log was last drained. */
  entries: Escape[];
  /** Errors raised in user code in the run going on, and in the run judged last. */
  raised: Thrown[];
  lastRun: readonly Thrown[];
  /** Timers user code armed since then: cleared when the log is drained. */
  readonly timers: Set<() => void>;
}

const LOG = caches.lazy(
  'harness/escapes: calls user code made outside the simulation, until judged',
  (): EscapeLog => ({ entries: [], raised: [], lastRun: [], timers: new Set() }),
);

/** Records a call (src/cli/worker/ambient.ts). `clear` cancels what it armed (a timer). */
export function recordEscape(call: Escape, clear?: () => void): void {
  const log = LOG.get();
  if (log.entries.length < 1_000) log.entries.push(call);
  if (clear) log.timers.add(clear);
}

/** Records an error raised in user code (src/cli/worker/ambient.ts); the first few distinct ones. */
export function recordThrown(thrown: Thrown): void {
  const log = LOG.get();
  if (log.raised.length >= 10) return;
  if (log.raised.some((t) => t.error === thrown.error && t.frame === thrown.frame)) return;
  log.raised.push(thrown);
}

/** A run was judged: the errors raised in it become the last run's. */
export function endRun(): void {
  if (!LOG.made) return;
  const log = LOG.get();
  log.lastRun = log.raised;
  log.raised = [];
}

/** The errors user code raised in the run judged last (a campaign's failing run is re-run last). */
export function thrownInLastRun(): readonly Thrown[] {
  return LOG.made ? LOG.get().lastRun : [];
}

/** The calls recorded since the last drain (and clears the timers they armed). */
export function drainEscapes(): readonly Escape[] {
  if (!LOG.made) return [];
  const log = LOG.get();
  const entries = log.entries;
  log.entries = [];
  for (const clear of log.timers) clear();
  log.timers.clear();
  return entries;
}

/** The calls in words: distinct calls with their first frame, then what to use instead. */
export function escapesAdvice(escapes: readonly Escape[]): string {
  const first = new Map<string, Escape>();
  for (const e of escapes) if (!first.has(`${e.call}@${e.frame}`)) first.set(`${e.call}@${e.frame}`, e);
  const calls = [...first.values()];
  const shown = calls.slice(0, 5).map((e) => `${e.call} at ${e.frame}`);
  if (calls.length > 5) shown.push(`${calls.length - 5} more`);
  const kinds = [...new Set(calls.map((e) => e.kind))];
  return (
    `your module called ${shown.join(', ')} — outside the simulation, so no seed reproduces what it ` +
    `did; use ${kinds.map((k) => INSTEAD[k]).join('; ')}`
  );
}

/** The verdict on a run whose user code escaped the simulation, or null. */
export function escapesViolation(): Violation | null {
  const escapes = drainEscapes();
  if (escapes.length === 0) return null;
  return {
    checker: MODULE_ESCAPES_CHECKER,
    ruleIds: [],
    class: 'correctness',
    message: escapesAdvice(escapes),
    events: [],
    calls: [],
  };
}
