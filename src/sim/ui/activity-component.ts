/**
 * android.app.Activity for simulated app code, and the system's record of each started one. The
 * ActivityManager (activity.ts) starts them, shows their screens and delivers their results.
 */

import type { AppContext } from '../app/context.ts';
import { IllegalArgumentException } from '../core/errors.ts';
import type { Waiter } from '../core/scheduler.ts';
import type { ProcessRecord } from '../process/process.ts';
import { type ActivityResult, RESULT_CANCELED, type Screen, type UserAnswer } from './activity-types.ts';
import type { ComponentName, Intent } from './intent.ts';

/** What an Activity asks of the system that started it (the ActivityManager). */
export interface ActivityRecordOwner {
  show(record: ActivityRecord, screen: Screen): Promise<UserAnswer>;
  finish(record: ActivityRecord, result: ActivityResult): void;
}

/** The system's record of one started Activity (ActivityRecord). */
export interface ActivityRecord {
  readonly id: number;
  readonly component: ComponentName;
  readonly process: ProcessRecord;
  readonly launcher: ProcessRecord;
  /** The launching process instance and UID: a result never wakes another instance's await. */
  readonly launcherPid: number;
  readonly launcherUid: number;
  readonly requestCode: number;
  /** False when launched as a new task: the launcher already got RESULT_CANCELED. */
  readonly resultWanted: boolean;
  /** Declared translucent (a dialog-themed Activity): what is below it stays visible. */
  readonly translucent: boolean;
  readonly waiter: Waiter<ActivityResult>;
  instance: Activity | null;
  finished: boolean;
}

export abstract class Activity {
  private bound: {
    manager: ActivityRecordOwner;
    record: ActivityRecord;
    context: AppContext;
    intent: Intent;
  } | null = null;
  private result: ActivityResult = { resultCode: RESULT_CANCELED, data: null };

  /** @internal */
  bind(manager: ActivityRecordOwner, record: ActivityRecord, context: AppContext, intent: Intent): void {
    this.bound = { manager, record, context, intent };
  }

  get context(): AppContext {
    return this.requireBound().context;
  }

  /** The Intent this Activity was started with (a copy in this process). */
  get intent(): Intent {
    return this.requireBound().intent;
  }

  get componentName(): ComponentName {
    return this.requireBound().record.component;
  }

  /** The package that launched this Activity for a result (Activity.getCallingPackage). */
  get callingPackage(): string | null {
    return this.requireBound().record.launcher.name;
  }

  get isFinishing(): boolean {
    return this.requireBound().record.finished;
  }

  abstract onCreate(): void | Promise<void>;

  /** Back pressed: by default the Activity finishes with whatever result was set (RESULT_CANCELED). */
  onBackPressed(): void {
    this.finish();
  }

  setResult(resultCode: number, data: Intent | null = null): void {
    if (data?.hasFileDescriptors()) throw new IllegalArgumentException('File descriptors passed in Intent');
    this.result = { resultCode, data };
  }

  finish(): void {
    const b = this.requireBound();
    b.manager.finish(b.record, this.result);
  }

  /** Displays `screen` and waits for the user's answer. 'back' has already run onBackPressed(). */
  async show(screen: Screen): Promise<UserAnswer> {
    const b = this.requireBound();
    const answer = await b.manager.show(b.record, screen);
    if (answer === 'back') this.onBackPressed();
    return answer;
  }

  private requireBound(): NonNullable<Activity['bound']> {
    if (!this.bound) throw new IllegalArgumentException('Activity used before it was started');
    return this.bound;
  }
}
