/**
 * Faults as data. A run's fault list — `{ at, fault }` with `at` a scheduler step — is part of its
 * input, like the seed and the schedule: applied deterministically before that step, recorded in the
 * trace, and shrunk by property tests together with everything else.
 *
 * The fault model (what can go wrong on a device, and what each verb does here):
 * - kill             the process is SIGKILLed (lmkd, a crash elsewhere, the user swiping it away);
 * - loseReply        the next reply from `callee` to `caller` fails after the callee has finished
 *                    (its effects happened; the caller sees FAILED_TRANSACTION);
 * - failTransaction  the next transaction from `caller` to `callee` fails before it is delivered;
 * - clockJump        the wall clock moves by `ms` (either way); monotonic time does not;
 * - deepSleep        the device sleeps `ms` (screen off, Doze): elapsedRealtime and the wall clock
 *                    move on by `ms`, uptime does not, so every pending timer fires `ms` later (clock.ts);
 * - userAway         the user presses Home and comes back after `ms`: every Activity is stopped
 *                    meanwhile, answers wait, a killed stopped Activity is recreated on return
 *                    (activity-saved.ts);
 * - corruptFd / truncateFd  the next file read in `process` returns flipped / truncated bytes;
 * - resign           the package is re-signed: `rotate` keeps its UID through an APK v3 rotation
 *                    (old cert in the lineage); otherwise it is reinstalled with an unrelated key
 *                    (new UID, data wiped);
 * - reinstall        uninstall + install of the same package (new UID within this boot, data wiped);
 * - uninstall        the package is removed;
 * - slowStart        the next start of `process` takes `ms` longer before its providers are
 *                    published (a main thread busy in bindApplication); past 10 s AMS gives up
 *                    (CONTENT_PROVIDER_PUBLISH_TIMEOUT) and kills it;
 * - reboot           the device restarts: every app process dies, PendingIntents and activity
 *                    tasks are gone, unflushed storage is lost per its class (storage.ts), and UID
 *                    allocation restarts so freed UIDs can be reused (package-manager.ts);
 * - powerLoss        a reboot without a clean shutdown: file writes never fsynced are torn;
 * - freezeCached     the freezer's debounce expires: every cached process is frozen (importance.ts);
 * - memoryPressure   lmkd kills `kills` (default 1) processes, least important first;
 * - custom           a fault of an upper layer (e.g. CETP's "expire every session"), by name.
 * Options default to injecting nothing: a world without a fault list has no faults.
 */

import type { JsonObject } from '../../base/json.ts';
import { SimUsageError } from './errors.ts';

export type Fault =
  | { readonly kind: 'kill'; readonly process: string }
  | { readonly kind: 'loseReply'; readonly callee?: string; readonly caller?: string }
  | { readonly kind: 'failTransaction'; readonly caller?: string; readonly callee?: string }
  | { readonly kind: 'clockJump'; readonly ms: number }
  | { readonly kind: 'deepSleep'; readonly ms: number }
  | { readonly kind: 'userAway'; readonly ms: number }
  | { readonly kind: 'corruptFd'; readonly process?: string }
  | { readonly kind: 'truncateFd'; readonly process?: string; readonly keepBytes: number }
  | { readonly kind: 'resign'; readonly package: string; readonly cert: string; readonly rotate: boolean }
  | { readonly kind: 'reinstall'; readonly package: string }
  | { readonly kind: 'uninstall'; readonly package: string }
  | { readonly kind: 'slowStart'; readonly process: string; readonly ms: number }
  | { readonly kind: 'reboot'; readonly bootMs?: number }
  | { readonly kind: 'powerLoss' }
  | { readonly kind: 'freezeCached' }
  | { readonly kind: 'memoryPressure'; readonly kills?: number }
  | { readonly kind: 'custom'; readonly name: string; readonly args?: JsonObject };

export interface FaultAt {
  /** The scheduler step before which the fault is applied (0 = before the first step). */
  readonly at: number;
  readonly fault: Fault;
}

export type FaultKind = Fault['kind'];

export interface FaultTarget {
  /** Applies a fault now; throws SimUsageError for a fault it cannot apply. */
  applyFault(fault: Fault): void;
}

interface Armed {
  readonly from: string | undefined;
  readonly to: string | undefined;
}

export class FaultInjector {
  private readonly pending: FaultAt[];
  private readonly applied: FaultAt[] = [];
  private readonly lostReplies: Armed[] = [];
  private readonly failedTransactions: Armed[] = [];
  private readonly slowStarts = new Map<string, number>();
  private readonly customHandlers = new Map<string, (args: JsonObject) => void>();

  constructor(faults: readonly FaultAt[]) {
    for (const f of faults) {
      if (!Number.isInteger(f.at) || f.at < 0)
        throw new SimUsageError(`fault step must be an integer ≥ 0, got ${f.at}`);
    }
    // Stable sort: faults at the same step apply in list order.
    this.pending = faults
      .map((f, i) => ({ f, i }))
      .sort((a, b) => a.f.at - b.f.at || a.i - b.i)
      .map((x) => x.f);
  }

  /** Registers the handler of a `custom` fault (an upper layer's fault verb). */
  onCustom(name: string, handler: (args: JsonObject) => void): void {
    this.customHandlers.set(name, handler);
  }

  /** Applies every fault due at or before `step`, in order. */
  applyDue(step: number, target: FaultTarget): void {
    while (this.pending.length > 0 && (this.pending[0] as FaultAt).at <= step) {
      const next = this.pending.shift() as FaultAt;
      this.applied.push(next);
      target.applyFault(next.fault);
    }
  }

  runCustom(name: string, args: JsonObject): void {
    const handler = this.customHandlers.get(name);
    if (!handler) throw new SimUsageError(`no handler registered for custom fault "${name}"`);
    handler(args);
  }

  armLostReply(callee: string | undefined, caller: string | undefined): void {
    this.lostReplies.push({ from: callee, to: caller });
  }

  armFailedTransaction(caller: string | undefined, callee: string | undefined): void {
    this.failedTransactions.push({ from: caller, to: callee });
  }

  armSlowStart(process: string, ms: number): void {
    this.slowStarts.set(process, (this.slowStarts.get(process) ?? 0) + ms);
  }

  /** Consumes the extra start time armed for `process` (0 if none). */
  takeSlowStart(process: string): number {
    const ms = this.slowStarts.get(process) ?? 0;
    this.slowStarts.delete(process);
    return ms;
  }

  /** Consumes an armed lost-reply fault matching this reply, if any. */
  takeLostReply(callee: string, caller: string): boolean {
    return take(this.lostReplies, callee, caller);
  }

  /** Consumes an armed failed-transaction fault matching this transaction, if any. */
  takeTransactionFailure(caller: string, callee: string): boolean {
    return take(this.failedTransactions, caller, callee);
  }

  /** Faults whose step the run never reached. */
  get unapplied(): readonly FaultAt[] {
    return this.pending;
  }

  get appliedFaults(): readonly FaultAt[] {
    return this.applied;
  }
}

function take(list: Armed[], from: string, to: string): boolean {
  const i = list.findIndex(
    (a) => (a.from === undefined || a.from === from) && (a.to === undefined || a.to === to),
  );
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

/**
 * The device faults of issue 35 a campaign adds to a property's fault list when asked
 * (`fuzz --device-faults`, Variant.deviceFaults): off by default, so the default campaigns and the
 * trace corpus generate the scenarios they always did. A short deep sleep (Doze's first idle period)
 * and a night's; the user leaving for five minutes.
 */
export const DEVICE_FAULTS: readonly Fault[] = Object.freeze([
  { kind: 'deepSleep', ms: 20 * 60_000 },
  { kind: 'deepSleep', ms: 8 * 3_600_000 },
  { kind: 'userAway', ms: 5 * 60_000 },
  { kind: 'reboot', bootMs: 40_000 },
]);
