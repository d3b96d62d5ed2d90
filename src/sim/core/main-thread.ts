/**
 * An app's main thread and the input ANR (issue 35, item 5a; FIDELITY.md row 35.5a).
 *
 * App code that blocks its main thread (a ContentResolver.call made from a click handler) leaves
 * the input events the user sends undispatched. InputDispatcher waits DEFAULT_INPUT_DISPATCHING_TIMEOUT
 * (5 s, frameworks/native/services/inputflinger/dispatcher/InputDispatcher.cpp
 * `onAnrLocked` / `processConnectionUnresponsiveLocked`, the timeout from
 * core/java/android/os/InputConstants.aidl `UNMULTIPLIED_DEFAULT_DISPATCHING_TIMEOUT_MILLIS`), then
 * reports "Input dispatching timed out" to ActivityManager (services/core/java/com/android/server/
 * am/ProcessErrorStateRecord.java `appNotResponding`), which shows the "isn't responding" dialog;
 * the user closing it kills the app (AppErrors `killAppAtUserRequestLocked`).
 *
 * Modelled: work run with `AppContext.onMainThread` occupies the process's main thread; the user
 * touches the screen as it starts (the usual case: the tap that started the call), so if the work
 * has not returned 5 s of uptime later (the dispatcher's timeout runs on uptime), an `anr` trace
 * event is recorded and the process is killed (`{ kind: 'killed', reason: 'anr' }`). Not modelled:
 * the user pressing "Wait" instead, an ANR without a pending input event, and the other ANR kinds
 * (broadcast, service; the provider publish timeout is world.ts's).
 */
import type { JsonObject } from '../../base/json.ts';

/** InputConstants UNMULTIPLIED_DEFAULT_DISPATCHING_TIMEOUT_MILLIS (5 s). */
export const INPUT_DISPATCHING_TIMEOUT_MS = 5_000;

/**
 * What the main-thread watch needs of the world (the World is one) and of the process (a
 * ProcessRecord), written out so this module stays outside src/sim's import knot.
 */
export interface MainThreadHost {
  readonly trace: { record(kind: string, data: JsonObject): unknown };
  readonly scheduler: {
    spawn(name: string, body: () => Promise<void>): unknown;
    waiter<T>(reason: string): { waitFor(timeoutMs: number): Promise<T | symbol>; wake(value: T): boolean };
  };
  killProcess(packageName: string, cause: { readonly kind: 'killed'; readonly reason: string }): void;
}
export interface MainThreadProcess {
  readonly name: string;
  readonly pid: number | null;
  readonly isAlive: boolean;
}

/**
 * Runs `body` on `proc`'s main thread: while it has not returned, input is not dispatched; past
 * INPUT_DISPATCHING_TIMEOUT_MS the app is not responding and is killed (see the header).
 */
export async function runOnMainThread<T>(
  host: MainThreadHost,
  proc: MainThreadProcess,
  body: () => Promise<T>,
): Promise<T> {
  const pid = proc.pid;
  const returned = host.scheduler.waiter<true>(`${proc.name} main thread returns`);
  host.scheduler.spawn(`system:input-dispatcher ${proc.name}`, async () => {
    const answer = await returned.waitFor(INPUT_DISPATCHING_TIMEOUT_MS);
    if (answer === true || !proc.isAlive || proc.pid !== pid) return;
    host.trace.record('anr', {
      actor: 'system',
      process: proc.name,
      pid: pid ?? -1,
      reason: 'Input dispatching timed out',
      timeoutMs: INPUT_DISPATCHING_TIMEOUT_MS,
    });
    host.killProcess(proc.name, { kind: 'killed', reason: 'anr' });
  });
  try {
    return await body();
  } finally {
    returned.wake(true);
  }
}
