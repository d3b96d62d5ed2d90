/**
 * The vocabulary of activities (activity.ts): results, screens and the user's answers, the sender's
 * options, the exceptions a launch can end in, and what the ActivityManager needs of the world.
 */
import type { BinderDriver } from '../binder/binder.ts';
import type { Bundle } from '../binder/bundle.ts';
import { AndroidException } from '../core/errors.ts';
import type { ReleaseProfile } from '../core/release.ts';
import type { Scheduler, Task } from '../core/scheduler.ts';
import type { LogLevel, Trace } from '../core/trace.ts';
import type { GroundTruth } from '../ground-truth.ts';
import type { PackageManager } from '../pm/package-manager.ts';
import type { DeathCause, ProcessRecord } from '../process/process.ts';
import type { ComponentName, Intent } from './intent.ts';
import type { Screen, UserAnswer } from './screen.ts';

export type { Screen, UserAnswer } from './screen.ts';

/** A screen an Activity shows the user (see ActivityHost.user). */
export interface ShownScreen {
  readonly screen: Screen;
  readonly activity: ComponentName;
  readonly activityId: number;
}

/**
 * What the ActivityManager needs of the world, passed in (the World implements it): the package
 * manager, the trace and the scheduler; processes (find, start, thaw, list, the user launching an
 * app, whether one has a visible window); harness tasks; logging; delivering extras; and the user.
 */
export interface ActivityHost {
  readonly truth: Pick<GroundTruth, 'screenShown' | 'screenAnswered'>;
  readonly pm: PackageManager;
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'waiter' | 'sleep'>;
  readonly user: {
    present(shown: ShownScreen, answer: (a: UserAnswer) => void): void;
    chooseActivity(candidates: readonly ComponentName[]): ComponentName;
  };
  /** `uid`: the package's UID in another user (its process there: `<package>@u10`). */
  process(packageName: string, processName?: string, uid?: number): ProcessRecord;
  allProcesses(): ProcessRecord[];
  startProcess(packageName: string, processName?: string, uid?: number): Promise<boolean>;
  launchApp(packageName: string, uid?: number): Promise<boolean>;
  thaw(proc: ProcessRecord, reason: string): void;
  /** The release's background-activity-start switches and buffer sizes (release.ts). */
  readonly release: Pick<
    ReleaseProfile,
    'balAutoOptInForResult' | 'balCreatorOptIn' | 'asyncBufferBytes' | 'binderBufferBytes'
  >;
  readonly binder: Pick<BinderDriver, 'sendOneway'>;
  killProcess(packageName: string, cause: DeathCause): void;
  hasVisibleWindow(proc: ProcessRecord): boolean;
  spawn(name: string, body: () => Promise<void>, options?: { daemon?: boolean }): Task;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
  unparcelInto(proc: ProcessRecord, bundle: Bundle | null): Bundle | null;
}

export const RESULT_OK = -1;
export const RESULT_CANCELED = 0;

export interface ActivityResult {
  readonly resultCode: number;
  readonly data: Intent | null;
}

/** The sender's ActivityOptions for a PendingIntent launch. */
export interface ActivityOptions {
  /** setPendingIntentBackgroundActivityStartMode: true ALLOWED (lend the sender's BAL rights, needed from
   *  target 34 on Android 14), false DENIED (refuse even the Android 15+ auto opt-in), absent SYSTEM_DEFINED. */
  readonly pendingIntentBackgroundActivityStartAllowed?: boolean;
}

export class ActivityNotFoundException extends AndroidException {
  override readonly javaClass: string = 'android.content.ActivityNotFoundException';
}
export class SendIntentException extends AndroidException {
  override readonly javaClass: string = 'android.content.IntentSender$SendIntentException';
}
