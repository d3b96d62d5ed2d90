/**
 * IApplicationThread: system_server drives an app's Activities through a `oneway interface`
 * (core/java/android/app/IApplicationThread.aidl): services/core/java/com/android/server/wm/
 * ClientLifecycleManager.java `scheduleTransaction` sends a ClientTransaction — a LaunchActivityItem
 * carrying the Intent — as a oneway binder call that one of the app's binder threads serves
 * (core/java/android/app/ActivityThread.java `ApplicationThread.scheduleTransaction`). Two things
 * follow, modelled at each Activity launch into its process (activity.ts launch):
 *
 * - While all 16 of the app's binder threads serve other calls, the launch waits its turn (binder.c
 *   queues the transaction on the process's todo list): a provider busy with 16 CETP calls shows its
 *   confirmation only once one of them returns.
 * - The Intent must fit the app's free async space (binder_alloc.c free_async_space: half the
 *   buffer). A bigger one fails with FAILED_TRANSACTION, a TransactionTooLargeException in
 *   system_server; ActivityTaskSupervisor.java `realStartActivityLocked` catches it, retries once,
 *   then gives up ("Second failure launching …": `proc.appDied("2nd-crash")`, the activity finished):
 *   the app's process dies and the launcher gets RESULT_CANCELED.
 *
 * Only these slow paths go through the binder driver: a launch with a free thread and a small Intent
 * runs exactly as before profiles and this module existed.
 */
import type { BinderDriver } from '../binder/binder.ts';
import { bundleParcelSize } from '../binder/parcel.ts';
import type { ReleaseProfile } from '../core/release.ts';
import type { Scheduler, Waiter } from '../core/scheduler.ts';
import type { LogLevel, Trace } from '../core/trace.ts';
import type { Intent } from '../ui/intent.ts';
import { type DeathCause, MAX_BINDER_THREADS, type ProcessRecord } from './process.ts';

/** What a LaunchActivityItem's transaction carries besides the Intent's extras (an estimate). */
export const LAUNCH_ITEM_OVERHEAD_BYTES = 1_024;

export interface AppThreadHost {
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'waiter'>;
  readonly binder: Pick<BinderDriver, 'sendOneway'>;
  readonly release: Pick<ReleaseProfile, 'asyncBufferBytes'>;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
  killProcess(packageName: string, cause: DeathCause): void;
}

/** The bytes of the launch transaction for `intent`. */
export function launchBytes(intent: Intent): number {
  return bundleParcelSize(intent.extras) + LAUNCH_ITEM_OVERHEAD_BYTES;
}

export class AppThreads {
  /** Launches waiting for a binder thread, by process: woken with false if it dies first. */
  private readonly waiting = new Map<ProcessRecord, Set<Waiter<boolean>>>();

  constructor(private readonly host: AppThreadHost) {}

  /** Delivers the launch of `activity` with `intent` into `proc`; false if it failed (see header). */
  async scheduleLaunch(proc: ProcessRecord, intent: Intent, activity: string): Promise<boolean> {
    const host = this.host;
    const bytes = launchBytes(intent);
    if (bytes > host.release.asyncBufferBytes) {
      host.log(null, 'E', 'JavaBinder', `!!! FAILED BINDER TRANSACTION !!!  (parcel size = ${bytes})`);
      host.trace.record('activity.launch.failed', {
        actor: proc.name,
        activity,
        bytes,
        reason: `TransactionTooLargeException: the Intent does not fit the async buffer (${host.release.asyncBufferBytes})`,
      });
      host.killProcess(proc.name, { kind: 'killed', reason: `2nd-crash: launching ${activity} failed` });
      return false;
    }
    if (proc.busyBinderThreads < MAX_BINDER_THREADS) return true;
    const waiter = host.scheduler.waiter<boolean>(`a binder thread of ${proc.name} to launch ${activity}`);
    const set = this.waiting.get(proc) ?? new Set();
    set.add(waiter);
    this.waiting.set(proc, set);
    const identity = { uid: 1000, pid: 0, packageName: null, attributionTag: null };
    const sent = host.binder.sendOneway(
      'system',
      proc,
      proc.pid ?? -1,
      'ApplicationThread',
      `scheduleTransaction(LaunchActivityItem ${activity})`,
      bytes,
      identity,
      {
        invoke() {
          waiter.wake(true);
        },
      },
    );
    if (sent !== 'sent') waiter.wake(false);
    const ok = await waiter.wait();
    set.delete(waiter);
    return ok;
  }

  onProcessDied(proc: ProcessRecord): void {
    for (const waiter of this.waiting.get(proc) ?? []) waiter.wake(false);
    this.waiting.delete(proc);
  }
}
