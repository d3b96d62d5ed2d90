/**
 * Frequency labels of the device behaviours of issue 35 (src/sim/FIDELITY.md, "Issue 35"): how often
 * a campaign's runs met each — read from what the world recorded in its trace, never from what the
 * generator meant to do. Counted once per run, reported by `fuzz --json` with the other frequencies
 * (frequencies.ts), so a green verdict says whether its runs ever slept, met a frozen callee, saw a
 * stable caller killed after its null, and so on.
 *
 * - `device:deep-sleep` — the device slept (a deepSleep fault: uptime stopped, elapsed time went on);
 * - `device:frozen-reply` — a two-way call failed on a frozen callee (BR_FROZEN_REPLY; profiles 15+);
 * - `device:dependency-kill` — AMS killed a stable caller of a dead provider (after its null);
 * - `device:launch-queued` — an Activity launch waited for a binder thread of its app (16 busy);
 * - `device:launch-too-large` — an Activity's Intent did not fit its app's async buffer;
 * - `device:result-too-large` — an Activity's result did not fit system_server's buffer;
 * - `device:user-away` — the user left (Home) and came back (a userAway fault);
 * - `device:activity-restored` — a stopped Activity of a dead process was recreated on return;
 * - `device:slow-boot` — a reboot took time (`bootMs`), after which apps' elapsedRealtime restarted;
 * - `device:input-anr` — work on an app's main thread blocked past 5 s: input ANR, the app killed
 *   (src/sim/core/main-thread.ts; only a consumer that calls on its main thread meets it);
 * - `device:wal-lost` — a power loss took back SQLite commits of a store in WAL with
 *   synchronous=NORMAL (src/sim/storage/storage.ts; only an app that chooses NORMAL meets it).
 */
import type { TraceEvent } from '../sim/core/trace.ts';

export const DEVICE_LABELS = [
  'device:deep-sleep',
  'device:frozen-reply',
  'device:dependency-kill',
  'device:launch-queued',
  'device:launch-too-large',
  'device:result-too-large',
  'device:user-away',
  'device:activity-restored',
  'device:slow-boot',
  'device:input-anr',
  'device:wal-lost',
] as const;

/** The device labels a run's trace shows. */
export function deviceLabels(events: readonly TraceEvent[]): Set<string> {
  const labels = new Set<string>();
  for (const e of events) {
    const data = e.data as Record<string, unknown>;
    if (e.kind === 'fault' && (data.fault as { kind?: unknown } | undefined)?.kind === 'deepSleep')
      labels.add('device:deep-sleep');
    else if (e.kind === 'binder.failed' && String(data.reason).startsWith('callee frozen'))
      labels.add('device:frozen-reply');
    else if (e.kind === 'process.kill' && String(data.cause).startsWith('killed: depends on provider'))
      labels.add('device:dependency-kill');
    else if (e.kind === 'binder.oneway' && String(data.method).startsWith('scheduleTransaction('))
      labels.add('device:launch-queued');
    else if (e.kind === 'activity.launch.failed') labels.add('device:launch-too-large');
    else if (e.kind === 'user.away') labels.add('device:user-away');
    else if (e.kind === 'activity.relaunch') labels.add('device:activity-restored');
    else if (e.kind === 'device.reboot' && data.bootMs !== undefined) labels.add('device:slow-boot');
    else if (e.kind === 'anr') labels.add('device:input-anr');
    else if (e.kind === 'store.lost') labels.add('device:wal-lost');
    else if (e.kind === 'log' && String(data.message).includes('Failure from system: TransactionTooLarge'))
      labels.add('device:result-too-large');
  }
  return labels;
}
