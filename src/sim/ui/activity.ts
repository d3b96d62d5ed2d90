/**
 * Activities launched for a result, and the ActivityManager that launches them.
 *
 * - A PendingIntent launch runs as the token's creator: the target Activity runs in its own
 *   package's process, started if it is dead (providers' onCreate first, as for any start).
 * - The launcher waits for the result; it arrives when the Activity finishes (setResult + finish), as
 *   RESULT_CANCELED on Back or if its process dies while shown (stopped, it is kept: activity-saved.ts).
 * - If the launcher's process died meanwhile, the result is not lost: the launching activity's
 *   record stays in its task (ActivityRecord.addResultLocked keeps it in `results`), and when the
 *   result Activity finishes the launcher comes back to the front — its process is started again and
 *   the recreated activity gets onActivityResult(requestCode, …) before it resumes
 *   (ActivityThread.handleSendResult / performResumeActivity deliverResults). Here: the launcher's
 *   package is started again and its App's onActivityResult runs in the new process. Liveness is
 *   the launching process *instance* (pid): a restarted launcher never gets the old await woken.
 *   Only uninstall or a reboot (tasks are gone) drops a result.
 * - An Activity shows a Screen; the simulated user (user.ts) sees exactly what it displays and
 *   answers approve, deny or back — or never answers.
 * - FLAG_ACTIVITY_NEW_TASK "can not be used when the caller is requesting a result" (d.a.c Intent):
 *   ActivityStarter starts the Activity in a new task and at once sends RESULT_CANCELED to the
 *   launcher ("Activity is launching as a new task, so cancelling activity result"); the Activity's
 *   own result later goes nowhere.
 * - Result Intents may not carry file descriptors (ActivityStarter: "File descriptors passed in
 *   Intent"); their extras are copied into the launcher like any Parcel.
 * - Background activity launch restrictions (Android 10+; BackgroundActivityStartController,
 *   developer.android.com/guide/components/activities/background-starts): a start is allowed when
 *   the app starting it has a visible window (importance.ts hasVisibleWindow: the top Activity, one
 *   visible below translucent ones, a launched app nothing opaque covers — a provider raised by a
 *   foreground client's connection has none). For a PendingIntent,
 *   the sender's foreground lends the right only if it targets < 34 or opted in with
 *   ActivityOptions#setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED);
 *   the creator's foreground lends it only if it targets < 35 or opted in at creation
 *   (setPendingIntentCreatorBackgroundActivityStartMode). A blocked start is aborted silently and
 *   the launcher gets RESULT_CANCELED ("we pretend to the caller that it was really started",
 *   ActivityStarter.handleBackgroundActivityAbort). Not modelled: the 10 s grace period after an app
 *   left the foreground, other exemptions (services, notifications, SAW).
 * - Implicit Intents resolve among the exported activities visible to the sender, highest
 *   priority first; a tie is a chooser the user picks from. That is how an implicit or mutable
 *   PendingIntent gets hijacked by another installed app.
 */

import { type AppContext, appOf } from '../app/app.ts';
import { RuntimeException, SecurityException } from '../core/errors.ts';
import { userIdOf } from '../pm/user-handle.ts';
import { AppThreads, launchBytes } from '../process/app-thread.ts';
import type { ScreenState } from '../process/importance.ts';
import type { ProcessRecord } from '../process/process.ts';
import type { ActivityRecord } from './activity-component.ts';
import { cancelledLaunch, launchTarget, resolveActivities } from './activity-resolve.ts';
import { SavedActivities } from './activity-saved.ts';
import {
  type ActivityHost,
  type ActivityOptions,
  type ActivityResult,
  RESULT_CANCELED,
  type Screen,
  SendIntentException,
  type UserAnswer,
} from './activity-types.ts';
import { type ComponentName, FLAG_ACTIVITY_NEW_TASK, Intent } from './intent.ts';
import { type PendingIntent, type PendingIntentFlags, PendingIntentRegistry } from './pending-intent.ts';

export { Activity } from './activity-component.ts';
export {
  type ActivityHost,
  ActivityNotFoundException,
  type ActivityOptions,
  type ActivityResult,
  RESULT_CANCELED,
  RESULT_OK,
  type Screen,
  SendIntentException,
  type ShownScreen,
  type UserAnswer,
} from './activity-types.ts';

export class ActivityManager {
  readonly pendingIntents = new PendingIntentRegistry();
  private readonly live = new Map<number, ActivityRecord>();
  private nextId = 1;
  private readonly appThreads: AppThreads;
  private readonly saved: SavedActivities;

  constructor(private readonly world: ActivityHost) {
    this.appThreads = new AppThreads(world);
    this.saved = new SavedActivities(world.trace);
    const pendingIntents = this.pendingIntents;
    world.pm.addListener({
      onPackageRemoved(name) {
        pendingIntents.removePackage(name);
      },
      onPackageRemovedForUser(name, uid) {
        pendingIntents.removePackage(name, uid);
      },
    });
  }

  // ---- PendingIntents ----

  getActivityPendingIntent(
    creator: AppContext,
    requestCode: number,
    intent: Intent,
    flags: PendingIntentFlags,
    creatorAllowsBackgroundStart = false,
  ): PendingIntent | null {
    const record = this.pendingIntents.getActivity({
      creatorUid: creator.uid,
      creatorPackage: creator.packageName,
      targetSdk: this.targetSdk(creator.packageName),
      requestCode,
      intent,
      flags,
      creatorAllowsBackgroundStart,
    });
    if (!record) return null;
    this.world.trace.record('pi.create', {
      actor: creator.packageName,
      token: record.id,
      requestCode,
      intent: intent.toString(),
      immutable: (record.flags & (1 << 26)) !== 0,
    });
    return this.pendingIntents.token(record, (intent, uid) => this.resolve(intent, uid));
  }

  /** Activity.startIntentSenderForResult: launch as the token's creator and wait for the result. */
  async startIntentSenderForResult(
    launcher: AppContext,
    pendingIntent: PendingIntent,
    fillIn: Intent | null,
    requestCode = 0,
    options: ActivityOptions = {},
  ): Promise<ActivityResult> {
    const record = this.pendingIntents.recordOf(pendingIntent);
    if (record.canceled) throw new SendIntentException(`${pendingIntent} was canceled`);
    const intent = record.intent.clone();
    if (!pendingIntent.isImmutable() && fillIn) intent.fillIn(fillIn, record.flags);
    if ((record.flags & (1 << 30)) !== 0) this.pendingIntents.cancel(record, record.creatorUid);
    this.world.trace.record('pi.send', {
      from: launcher.packageName,
      to: 'system',
      token: record.id,
      creator: record.creatorPackage,
      intent: intent.toString(),
    });
    const blocked = this.backgroundStartBlocked(launcher, record, options);
    if (blocked) return this.abortBackgroundStart(launcher, intent, blocked);
    return this.launch(launcher, intent, record.creatorUid, 'pendingIntent', requestCode);
  }

  /** Activity.startActivityForResult with the launcher's own identity. */
  async startActivityForResult(
    launcher: AppContext,
    intent: Intent,
    requestCode = 0,
  ): Promise<ActivityResult> {
    if (!this.isForeground(launcher.process)) {
      return this.abortBackgroundStart(launcher, intent, 'the app is not in the foreground');
    }
    return this.launch(launcher, intent.clone(), launcher.uid, 'intent', requestCode);
  }

  private targetSdk(packageName: string): number {
    return this.world.pm.getPackageInfo(packageName)?.manifest.targetSdk ?? 34;
  }

  private isForeground(proc: ProcessRecord): boolean {
    return this.world.hasVisibleWindow(proc);
  }

  /** Why a PendingIntent launch is a blocked background start, or null if it may start. */
  private backgroundStartBlocked(
    launcher: AppContext,
    record: PendingIntent['record'],
    options: ActivityOptions,
  ): string | null {
    // Sent for a result (always, here): auto-opted in from Android 15 unless the sender denies.
    const { balAutoOptInForResult, balCreatorOptIn } = this.world.release;
    const mode = options.pendingIntentBackgroundActivityStartAllowed;
    const senderLends =
      this.targetSdk(launcher.packageName) < 34 || mode === true || (balAutoOptInForResult && mode !== false);
    if (senderLends && this.isForeground(launcher.process)) return null;
    const creatorLends =
      !balCreatorOptIn || record.creatorTargetSdk < 35 || record.creatorAllowsBackgroundStart;
    const creator = this.world.allProcesses().find((p) => p.uid === record.creatorUid && p.isAlive);
    if (creatorLends && creator && this.isForeground(creator)) return null;
    return senderLends
      ? 'neither the sender nor the creator is in the foreground'
      : 'the sender targets 34+ and did not opt in (setPendingIntentBackgroundActivityStartMode)';
  }

  private abortBackgroundStart(launcher: AppContext, intent: Intent, reason: string): ActivityResult {
    this.world.log(
      launcher.process,
      'W',
      'ActivityTaskManager',
      `Background activity launch blocked: ${reason}`,
    );
    this.world.trace.record('activity.start.blocked', {
      actor: launcher.packageName,
      intent: intent.toString(),
      reason,
    });
    return { resultCode: RESULT_CANCELED, data: null };
  }

  /** Components an Intent resolves to (activity-resolve.ts). */
  resolve(intent: Intent, _senderUid: number): ComponentName[] {
    return resolveActivities(this.world.pm, intent);
  }

  private async launch(
    launcher: AppContext,
    intent: Intent,
    senderUid: number,
    via: 'pendingIntent' | 'intent',
    requestCode: number,
  ): Promise<ActivityResult> {
    // In the sender's user: a PendingIntent fires as its creator's (activity-resolve.ts launchTarget).
    const { component, info, targetUid } = launchTarget(this.world, intent, senderUid);
    if (info?.exported === false && targetUid !== senderUid) {
      throw new SecurityException(
        `Permission Denial: starting ${intent.toString()} from uid ${senderUid} not exported from uid ${targetUid}`,
      );
    }
    const where = info?.processName ?? component.packageName; // its android:process, else the package's
    if (!(await this.world.startProcess(component.packageName, where, targetUid)))
      return cancelledLaunch(this.world, launcher, component, 'its process failed to start');
    const proc = this.world.process(component.packageName, where, targetUid);
    this.world.thaw(proc, 'activity start');
    // IApplicationThread.scheduleTransaction: a binder thread of the app, an Intent that fits (app-thread.ts).
    if (!(await this.appThreads.scheduleLaunch(proc, intent, component.className)))
      return cancelledLaunch(this.world, launcher, component, 'the launch did not reach its process');
    const context = proc.context as AppContext;
    const waiter = this.world.scheduler.waiter<ActivityResult>(
      `result of ${component.packageName}/${component.className}`,
    );
    const record: ActivityRecord = {
      id: this.nextId++,
      component,
      process: proc,
      launcher: launcher.process,
      launcherPid: launcher.pid,
      launcherUid: launcher.uid,
      requestCode,
      resultWanted: (intent.flags & FLAG_ACTIVITY_NEW_TASK) === 0,
      translucent: info?.translucent ?? false,
      waiter,
      instance: null,
      finished: false,
    };
    this.live.set(record.id, record);
    this.world.trace.record('activity.start', {
      from: launcher.packageName,
      to: component.packageName,
      activity: component.className,
      via,
    });
    this.instantiate(record, context, intent);
    if (!record.resultWanted) {
      this.world.trace.record('activity.result', {
        from: 'system',
        to: launcher.packageName,
        activity: component.className,
        resultCode: RESULT_CANCELED,
        reason: 'Activity is launching as a new task, so cancelling activity result',
      });
      return { resultCode: RESULT_CANCELED, data: null };
    }
    return waiter.wait();
  }

  /** Creates the Activity of `record` in its (running) process with a copy of `intent`. */
  private instantiate(record: ActivityRecord, context: AppContext, intent: Intent): void {
    const { component, process: proc } = record;
    const factory = appOf(proc)?.activities?.[component.className];
    if (!factory) {
      this.finish(record, { resultCode: RESULT_CANCELED, data: null });
      return;
    }
    const copy = new Intent(intent);
    copy.extras = this.world.unparcelInto(proc, intent.extras) ?? copy.extras;
    const activity = factory();
    record.instance = activity;
    activity.bind(this, record, context, copy);
    context.spawn(`activity:${component.className}#${record.id}`, async () => activity.onCreate(), {
      daemon: true,
    });
  }

  /** The user comes back to a kept Activity of a dead process: started again, recreated. */
  private relaunch(record: ActivityRecord): void {
    const intent = this.saved.wake(record);
    if (!intent) return;
    this.world.spawn(`system:relaunch:${record.component.className}#${record.id}`, async () => {
      const [pkg, { processName, uid }] = [record.component.packageName, record.process];
      this.world.trace.record('activity.relaunch', { actor: pkg, activity: record.component.className });
      if (record.finished) return;
      if ((await this.world.startProcess(pkg, processName, uid)) && this.live.has(record.id))
        this.instantiate(record, record.process.context as AppContext, intent);
      else this.finish(record, { resultCode: RESULT_CANCELED, data: null });
    });
  }

  /** The userAway fault: Home pressed for `ms`, then back (activity-saved.ts). */
  userLeaves(ms: number): void {
    this.saved.away = true;
    this.world.trace.record('user.away', { actor: 'user', ms });
    this.world.spawn('user:away', async () => {
      await this.world.scheduler.sleep(ms);
      this.world.trace.record('user.back', { actor: 'user' });
      this.saved.returned();
      this.uncover();
    });
  }

  /** @internal — the Activity shows a screen; resolves with the user's answer. */
  show(record: ActivityRecord, screen: Screen): Promise<UserAnswer> {
    const shown = this.world.trace.record('ui.show', {
      actor: record.component.packageName,
      activity: record.component.className,
      title: screen.title,
      lines: [...screen.lines],
    });
    const truth = this.world.truth.screenShown(shown.seq, record.process, record.component.className, screen);
    const waiter = this.world.scheduler.waiter<UserAnswer>(`user answer on "${screen.title}"`);
    const instance = record.instance;
    this.world.user.present({ screen, activity: record.component, activityId: record.id }, (answer) => {
      // To this very instance (a recreated one shows its screen anew); held while the user is away.
      const answerNow = () => {
        const delivered = !record.finished && record.process.isAlive && record.instance === instance;
        this.world.truth.screenAnswered(truth, answer, delivered);
        if (delivered) waiter.wake(answer);
      };
      if (!this.saved.hold(answerNow)) answerNow();
    });
    return waiter.wait();
  }

  /** @internal */
  finish(record: ActivityRecord, result: ActivityResult): void {
    if (record.finished) return;
    // ActivityClient.finishActivity carries the result to system_server: too big for its buffer, the
    // RemoteException is rethrown (rethrowFromSystemServer) in the Activity, which crashes its app.
    const bytes = result.data ? launchBytes(result.data) : 0;
    if (bytes > this.world.release.binderBufferBytes)
      throw new RuntimeException(
        `Failure from system: TransactionTooLargeException: data parcel size ${bytes} bytes`,
      );
    record.finished = true;
    this.live.delete(record.id);
    this.uncover();
    this.deliver(record, result, 'finished');
  }

  /** An Activity left the stack: those it covered come back (resumed or visible), thawed by AMS. */
  private uncover(): void {
    const { top, visible } = this.screen();
    for (const proc of [...top, ...visible]) this.world.thaw(proc, 'activity resumed');
    const newest = [...this.live.values()].reduce<ActivityRecord | null>(
      (a, r) => (a && a.id > r.id ? a : r),
      null,
    );
    if (newest && !this.saved.away && this.saved.isDormant(newest)) this.relaunch(newest);
  }

  private deliver(record: ActivityRecord, result: ActivityResult, reason: string): void {
    if (!record.resultWanted) {
      this.world.trace.record('activity.result.dropped', {
        actor: record.component.packageName,
        activity: record.component.className,
        reason: 'launched as a new task',
      });
      return;
    }
    const launcher = record.launcher;
    if (!launcher.isAlive || launcher.pid !== record.launcherPid) {
      this.redeliver(record, result, reason);
      return;
    }
    this.world.trace.record('activity.result', {
      from: record.component.packageName,
      to: launcher.name,
      activity: record.component.className,
      resultCode: result.resultCode,
      reason,
    });
    record.waiter.wake({ resultCode: result.resultCode, data: this.copyData(result, launcher) });
  }

  /**
   * The launcher's process died while the result Activity ran: its record is still in the task, so
   * the system starts the package again and delivers onActivityResult to the new instance — unless
   * the package is gone (uninstalled, or reinstalled under another UID).
   */
  private redeliver(record: ActivityRecord, result: ActivityResult, reason: string): void {
    const { name, packageName: pkg } = record.launcher;
    const uid = record.launcherUid; // the launcher's package in the launcher's user
    const base = { actor: record.component.packageName, activity: record.component.className };
    if (this.world.pm.getPackageUidAsUser(pkg, userIdOf(uid)) !== uid) {
      this.world.trace.record('activity.result.dropped', { ...base, reason: 'launcher package is gone' });
      return;
    }
    this.world.trace.record('activity.result.pending', { ...base, launcher: name, reason });
    this.world.spawn(
      `system:result#${record.id}`,
      async () => {
        // The finishing Activity uncovers the launching one: it comes back to the front.
        if (!(await this.world.launchApp(pkg, uid))) {
          this.world.trace.record('activity.result.dropped', { ...base, reason: 'launcher failed to start' });
          return;
        }
        const proc = this.world.process(pkg, pkg, uid);
        const app = appOf(proc);
        const delivered = { resultCode: result.resultCode, data: this.copyData(result, proc) };
        this.world.trace.record('activity.result', {
          from: record.component.packageName,
          to: name,
          activity: record.component.className,
          resultCode: result.resultCode,
          reason,
          redelivered: true,
          handled: typeof app?.onActivityResult === 'function',
        });
        const onResult = app?.onActivityResult?.bind(app);
        if (!onResult) return;
        (proc.context as AppContext).spawn(`onActivityResult#${record.requestCode}`, async () => {
          await onResult(record.requestCode, delivered);
        });
      },
      { daemon: true },
    );
  }

  /** The result Intent as the launcher reads it: its extras copied into the launcher's process. */
  private copyData(result: ActivityResult, launcher: ProcessRecord): Intent | null {
    if (!result.data) return null;
    const data = new Intent(result.data);
    data.extras = this.world.unparcelInto(launcher, result.data.extras) ?? data.extras;
    return data;
  }

  /**
   * A reboot: tasks, their activity records and pending results are gone, and so is every
   * PendingIntent. Nothing is delivered (every launcher dies with the device).
   */
  onReboot(): void {
    for (const record of this.live.values()) record.finished = true;
    this.live.clear();
    this.saved.clear();
    this.pendingIntents.clear();
  }

  /** Activities of a dying process finish with RESULT_CANCELED; its own pending launches are dropped. */
  onProcessDied(proc: ProcessRecord): void {
    this.appThreads.onProcessDied(proc);
    const { top, visible } = this.screen();
    const stopped = this.saved.away || !(top.has(proc) || visible.has(proc));
    for (const record of [...this.live.values()]) {
      if (record.process !== proc || this.saved.isDormant(record)) continue;
      if (stopped && record.resultWanted && record.instance) {
        this.saved.keep(record, record.instance.intent);
        continue;
      }
      record.finished = true;
      this.live.delete(record.id);
      this.deliver(record, { resultCode: RESULT_CANCELED, data: null }, 'activity process died');
    }
    this.uncover();
  }

  /**
   * What the screen shows (importance.ts ScreenState). Live activities stack in launch order; the
   * newest is on top. An Activity below a translucent one stays visible; an opaque one hides all
   * below it (ActivityRecord.occludesParent; Task visibility), the launched app included.
   */
  screen(): ScreenState {
    const top = new Set<ProcessRecord>();
    const visible = new Set<ProcessRecord>();
    if (this.saved.away) return { top: new Set(), visible: new Set(), launcherShows: 'covered' };
    const stack = [...this.live.values()]
      .filter((r) => r.process.isAlive && !this.saved.isDormant(r))
      .sort((a, b) => b.id - a.id);
    let covered = false;
    for (const r of stack) {
      if (covered) break;
      if (top.size === 0) top.add(r.process);
      else if (!top.has(r.process)) visible.add(r.process);
      covered = !r.translucent;
    }
    const launcherShows = stack.length === 0 ? 'front' : covered ? 'covered' : 'behind-translucent';
    return { top, visible, launcherShows };
  }

  /** Activities currently started and not finished (what is "on screen"). */
  liveActivities(): { id: number; component: ComponentName }[] {
    return [...this.live.values()].map((r) => ({ id: r.id, component: r.component }));
  }
}
