/**
 * Process importance, the cached-app freezer and the low-memory killer's order.
 *
 * - Importance (OomAdjuster.computeOomAdjLSP; oom_adj levels in ProcessList.java): a process hosting
 *   an Activity on screen is foreground (FOREGROUND_APP_ADJ 0); an app the user launched (a harness
 *   `spawnIn`) is foreground until another app's Activity covers it, then it is the previous app
 *   (PREVIOUS_APP_ADJ 700); anything else is cached (CACHED_APP_MIN_ADJ 900). A provider is raised to
 *   the importance of its clients (ContentProviderConnection: a live stable or unstable reference),
 *   never by a cached client. Not modelled: services, visible/perceptible levels, the LRU spread of
 *   cached adjs (900–999).
 * - Freezer (CachedAppOptimizer, on by default since Android 14): a cached process is frozen after
 *   a debounce (freezer_debounce_timeout, 10 s); a frozen process runs nothing — its background
 *   workers stop where they are — until AMS thaws it: a new provider connection or call raises its
 *   adj, an Activity starts in it, or it dies. The `freezeCached` fault is the debounce expiring
 *   for every process cached at that moment.
 * - Low-memory killer (lmkd; system/memory/lmkd README): under pressure it kills the process with the
 *   highest oom_score_adj first; foreground processes only in extremes (never here). Ties go to the
 *   oldest process (lmkd prefers the largest RSS, which the simulation does not track). The
 *   `memoryPressure` fault kills `kills` processes in that order, with no callbacks.
 */
import type { ProcessRecord } from './process.ts';

export const FOREGROUND_APP_ADJ = 0;
export const PREVIOUS_APP_ADJ = 700;
export const CACHED_APP_MIN_ADJ = 900;

export interface ImportanceInputs {
  /** Processes hosting an Activity that is on screen. */
  readonly onScreen: ReadonlySet<ProcessRecord>;
  /** Processes the user launched (their main activity). */
  readonly userLaunched: ReadonlySet<ProcessRecord>;
  /** Provider process → its client processes (live connections). */
  readonly clientsOf: (provider: ProcessRecord) => Iterable<ProcessRecord>;
}

/**
 * Whether `proc` has the screen: it hosts an Activity on screen, or the user launched it and no
 * other app's Activity covers it. What background-activity-start checks ask (not the oom_adj a
 * provider connection lends: that raises importance, never a window).
 */
export function hasVisibleWindow(
  proc: ProcessRecord,
  inputs: Pick<ImportanceInputs, 'onScreen' | 'userLaunched'>,
): boolean {
  return inputs.onScreen.has(proc) || (inputs.userLaunched.has(proc) && inputs.onScreen.size === 0);
}

/** oom_adj of every live process in `processes`. */
export function computeAdjs(
  processes: readonly ProcessRecord[],
  inputs: ImportanceInputs,
): Map<ProcessRecord, number> {
  const adj = new Map<ProcessRecord, number>();
  for (const proc of processes) {
    if (!proc.isAlive) continue;
    if (hasVisibleWindow(proc, inputs)) adj.set(proc, FOREGROUND_APP_ADJ);
    else if (inputs.userLaunched.has(proc)) adj.set(proc, PREVIOUS_APP_ADJ);
    else adj.set(proc, CACHED_APP_MIN_ADJ);
  }
  // Providers take their clients' importance; chains (a provider calling a provider) need passes.
  for (let pass = 0; pass < processes.length; pass++) {
    let changed = false;
    for (const [proc, own] of adj) {
      for (const client of inputs.clientsOf(proc)) {
        const c = adj.get(client);
        if (c === undefined || c >= CACHED_APP_MIN_ADJ || c >= own) continue;
        adj.set(proc, c);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return adj;
}

/** lmkd's victims, most expendable first: highest adj, then oldest; never a foreground process. */
export function lowMemoryKillOrder(adjs: ReadonlyMap<ProcessRecord, number>): ProcessRecord[] {
  return [...adjs]
    .filter(([, a]) => a > FOREGROUND_APP_ADJ)
    .sort(([p, a], [q, b]) => b - a || (p.pid ?? 0) - (q.pid ?? 0))
    .map(([p]) => p);
}
