/**
 * Process importance, the cached-app freezer and the low-memory killer's order.
 *
 * - Importance (OomAdjuster.computeOomAdjLSP; oom_adj levels in ProcessList.java), highest first:
 *   FOREGROUND_APP_ADJ 0 — the process hosting the top Activity ("top-activity"), or an app the user
 *   launched (a harness `spawnIn` / launchApp) while no Activity covers it;
 *   VISIBLE_APP_ADJ 100 — an Activity still visible because everything above it is translucent
 *   (`<activity android:theme="…Translucent/Dialog">`: ActivityRecord.occludesParent() is false, so
 *   the one below stays visible — "vis-activity"); a launched app below translucent activities too;
 *   PERCEPTIBLE_APP_ADJ 200 — a process running a foreground service ("fg-service");
 *   SERVICE_ADJ 500 — a started background service ("started-services",
 *   OomAdjuster.computeServiceHostOomAdjLSP); PREVIOUS_APP_ADJ 700 — a launched app covered by an
 *   opaque Activity; else CACHED_APP_MIN_ADJ 900. An Activity covered by an opaque one is stopped
 *   and lends nothing. A provider is raised to the importance of its clients
 *   (ContentProviderConnection: a live stable or unstable reference), never by a cached client.
 *   Not modelled: the LRU spread of cached adjs (900–999); a started service idle for 30 min
 *   (MAX_SERVICE_INACTIVITY) or in a process that has shown UI ("cch-started-ui-services") no longer
 *   raising it; bound services.
 * - Freezer (CachedAppOptimizer, on by default since Android 14): a cached process is frozen after
 *   a debounce (freezer_debounce_timeout, 10 s); a frozen process runs nothing — its background
 *   workers stop where they are — until AMS thaws it: a new provider connection or call raises its
 *   adj, an Activity starts in it, or it dies. The `freezeCached` fault is the debounce expiring
 *   for every process cached at that moment (a process with a service is not cached).
 * - Low-memory killer (lmkd; system/memory/lmkd README): under pressure it kills the process with the
 *   highest oom_score_adj first; foreground processes only in extremes (never here). Ties go to the
 *   oldest process (lmkd prefers the largest RSS, which the simulation does not track). The
 *   `memoryPressure` fault kills `kills` processes in that order, with no callbacks.
 */
import type { ProcessRecord } from './process.ts';

export const FOREGROUND_APP_ADJ = 0;
export const VISIBLE_APP_ADJ = 100;
export const PERCEPTIBLE_APP_ADJ = 200;
export const SERVICE_ADJ = 500;
export const PREVIOUS_APP_ADJ = 700;
export const CACHED_APP_MIN_ADJ = 900;

/** What the activity stack shows (ActivityManager.screen): who is on top, who still visible. */
export interface ScreenState {
  /** Processes hosting the top Activity (resumed). */
  readonly top: ReadonlySet<ProcessRecord>;
  /** Processes hosting an Activity visible below translucent ones (paused, not stopped). */
  readonly visible: ReadonlySet<ProcessRecord>;
  /** Whether there is no Activity at all, or only translucent ones (the launched app shows through). */
  readonly launcherShows: 'front' | 'behind-translucent' | 'covered';
}

export interface ImportanceInputs {
  readonly screen: ScreenState;
  /** Processes the user launched (their main activity). */
  readonly userLaunched: ReadonlySet<ProcessRecord>;
  /** The kind of service a process runs: 'foreground' beats 'started'; null for none. */
  readonly serviceOf: (proc: ProcessRecord) => 'foreground' | 'started' | null;
  /** Provider process → its client processes (live connections). */
  readonly clientsOf: (provider: ProcessRecord) => Iterable<ProcessRecord>;
}

/** The adj a process's own window gives it (0 top, 100 visible), or null if it shows none. */
function windowAdj(
  proc: ProcessRecord,
  inputs: Pick<ImportanceInputs, 'screen' | 'userLaunched'>,
): number | null {
  const { screen } = inputs;
  if (screen.top.has(proc)) return FOREGROUND_APP_ADJ;
  if (inputs.userLaunched.has(proc) && screen.launcherShows === 'front') return FOREGROUND_APP_ADJ;
  if (screen.visible.has(proc)) return VISIBLE_APP_ADJ;
  if (inputs.userLaunched.has(proc) && screen.launcherShows === 'behind-translucent') return VISIBLE_APP_ADJ;
  return null;
}

/**
 * Whether `proc` has a visible window: the top Activity, one visible below translucent ones, or a
 * launched app not covered by an opaque Activity. What background-activity-start checks ask
 * (BackgroundActivityStartController: callingUidHasAnyVisibleWindow =
 * ActivityTaskManagerService.hasActiveVisibleWindow → VisibleActivityProcessTracker, which counts
 * every visible Activity, paused ones below a translucent top included). Not the oom_adj a provider
 * connection or a service lends: that raises importance, never a window.
 */
export function hasVisibleWindow(
  proc: ProcessRecord,
  inputs: Pick<ImportanceInputs, 'screen' | 'userLaunched'>,
): boolean {
  return windowAdj(proc, inputs) !== null;
}

/** oom_adj of every live process in `processes`. */
export function computeAdjs(
  processes: readonly ProcessRecord[],
  inputs: ImportanceInputs,
): Map<ProcessRecord, number> {
  const adj = new Map<ProcessRecord, number>();
  for (const proc of processes) {
    if (!proc.isAlive) continue;
    const service = inputs.serviceOf(proc);
    const own = windowAdj(proc, inputs);
    if (own !== null) adj.set(proc, own);
    else if (service === 'foreground') adj.set(proc, PERCEPTIBLE_APP_ADJ);
    else if (service === 'started') adj.set(proc, SERVICE_ADJ);
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
