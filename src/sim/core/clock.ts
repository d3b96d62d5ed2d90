/**
 * The world's virtual clocks, advanced only by the scheduler (when every task is waiting on time).
 *
 * Android has two clocks that matter here: `SystemClock.elapsedRealtime()` — monotonic, what timers
 * and Handler delays run on — and `System.currentTimeMillis()` — wall time in Unix epoch ms, which
 * CETP deadlines and token expiries use and which can jump (NTP, the user changing the time). A
 * clock-jump fault moves only the wall clock, as on a device; sleeping tasks still wake on time.
 *
 * Deep sleep (the deepSleep fault; Doze's deep idle between maintenance windows is such a sleep):
 * the CPU is suspended. `elapsedRealtime` and the wall clock go on ("including deep sleep"), while
 * `SystemClock.uptimeMillis()` stops ("not counting time spent in deep sleep"), and Handler delays,
 * `SystemClock.sleep`, `Object.wait`/`Thread.sleep` timeouts run on it (d.a.c SystemClock;
 * core/java/android/os/MessageQueue.java `next` compares against uptimeMillis): every pending timer
 * of the device fires that much later in elapsed time. The scheduler's timers are that uptime
 * timeline (Scheduler.deepSleep shifts them); AlarmManager's wakeup alarms are not modelled.
 */

import { caches } from '../../base/caches.ts';

/** 2026-01-01T00:00:00Z — the default wall time at the start of every simulated run. */
export const DEFAULT_START_MS = Date.UTC(2026, 0, 1);

export class VirtualClock {
  private elapsed = 0;
  private asleep = 0;
  /** Scheduler time and sleep total at the last boot: what apps read restarts from there. */
  private bootAt = 0;
  private asleepAtBoot = 0;
  private wallOffset: number;

  constructor(startMs: number = DEFAULT_START_MS) {
    if (!Number.isSafeInteger(startMs))
      throw new RangeError(`clock start must be an integer ms, got ${startMs}`);
    this.wallOffset = startMs;
  }

  /** System.currentTimeMillis(): Unix epoch ms; may jump. */
  nowMs(): number {
    return this.wallOffset + this.elapsed;
  }

  /** The scheduler's monotonic timeline: ms since the run began, across reboots (apps: sinceBoot). */
  elapsedRealtime(): number {
    return this.elapsed;
  }

  /** SystemClock.uptimeMillis(): ms since boot, not counting deep sleep. */
  uptimeMillis(): number {
    return this.sinceBoot() - (this.asleep - this.asleepAtBoot);
  }

  /** SystemClock.elapsedRealtime() as apps read it: ms since the last boot, deep sleep included. */
  sinceBoot(): number {
    return this.elapsed - this.bootAt;
  }

  /** The device booted again: elapsedRealtime and uptimeMillis restart from 0 (world-faults.ts reboot). */
  boot(): void {
    this.bootAt = this.elapsed;
    this.asleepAtBoot = this.asleep;
  }

  /** The device sleeps `ms`: elapsed and wall time move on, uptime does not (Scheduler.deepSleep). */
  suspend(ms: number): void {
    this.elapsed += ms;
    this.asleep += ms;
  }

  /** Advances monotonic time to `elapsedMs` (the scheduler does this when all tasks wait on time). */
  advanceTo(elapsedMs: number): void {
    if (elapsedMs > this.elapsed) this.elapsed = elapsedMs;
  }

  /** A wall-clock jump by `deltaMs` (either direction); monotonic time is unaffected. */
  jump(deltaMs: number): void {
    this.wallOffset += deltaMs;
  }
}

const isoTexts = caches.memo<number, string>('sim/clock: ISO texts of instants', 1_024);
const instants = caches.memo<string, number>('sim/clock: instants of ISO texts', 1_024);

/**
 * `new Date(ms).toISOString()`, remembered: Date formatting costs about a microsecond, and virtual
 * time makes every run stamp the same instants.
 */
export function isoInstant(ms: number): string {
  return isoTexts.get(ms, formatInstant);
}

/** `Date.parse(text)` (NaN when unparseable), remembered like isoInstant. */
export function parseInstant(text: string): number {
  return instants.get(text, Date.parse);
}

function formatInstant(ms: number): string {
  return new Date(ms).toISOString();
}
