/**
 * A stopped Activity outlives its process, and the user leaves and comes back (activity.ts).
 *
 * When an app's process dies, services/core/java/com/android/server/wm/ActivityRecord.java
 * `handleAppDied` removes an Activity only if it has no saved state (`!mHaveState`: it was resumed
 * or visible — state is saved once it stops) or is finishing; a *stopped* Activity keeps its record,
 * its Intent and its place in the task. When the user comes back to it, the system starts the
 * process again and recreates the Activity (with its saved state); its eventual result goes to the
 * launcher as any result would. Here a kept record is *dormant*: off the screen, no instance, until
 * it is the top of the stack again and the user is there — then it is relaunched.
 *
 * Stopped means covered by an opaque Activity, or the user is away: the `userAway` fault presses
 * Home for `ms` — every Activity and the launched apps are stopped (nothing of theirs is on
 * screen, so they lose their importance and may be cached, frozen or killed), the user's answers
 * wait until they return, and on return the top Activity resumes (relaunched if dormant).
 */

import type { Trace } from '../core/trace.ts';
import type { ActivityRecord } from './activity-component.ts';
import type { Intent } from './intent.ts';

export class SavedActivities {
  /** The user pressed Home and has not come back. */
  away = false;
  private readonly held: (() => void)[] = [];
  /** Kept records of dead processes, with the Intent to recreate them with. */
  private readonly dormant = new Map<ActivityRecord, Intent>();

  constructor(private readonly trace: Trace) {}

  isDormant(record: ActivityRecord): boolean {
    return this.dormant.has(record);
  }

  /** handleAppDied keeps a stopped Activity: its record waits to be recreated. */
  keep(record: ActivityRecord, intent: Intent): void {
    record.instance = null;
    this.dormant.set(record, intent);
    this.trace.record('activity.saved', {
      actor: record.component.packageName,
      activity: record.component.className,
      reason:
        'process died; the Activity was stopped and keeps its saved state (ActivityRecord.handleAppDied)',
    });
  }

  /** The record leaves the dormant set to be recreated; its Intent. */
  wake(record: ActivityRecord): Intent | undefined {
    const intent = this.dormant.get(record);
    this.dormant.delete(record);
    return intent;
  }

  forget(record: ActivityRecord): void {
    this.dormant.delete(record);
  }

  clear(): void {
    this.dormant.clear();
    this.held.length = 0;
  }

  /** While the user is away an answer waits for their return; true if held. */
  hold(deliver: () => void): boolean {
    if (!this.away) return false;
    this.held.push(deliver);
    return true;
  }

  /** The user is back: the answers they gave meanwhile are delivered (to live screens only). */
  returned(): void {
    this.away = false;
    for (const deliver of this.held.splice(0)) deliver();
  }
}
