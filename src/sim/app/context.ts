/**
 * android.content.Context for simulated app code: everything an app can reach, bound to its own
 * process. App code (providers, consumers, activities) gets only this — never the World — so it
 * talks to other apps exclusively through the simulated system: Binder, PendingIntents and fds.
 */

import type { JsonObject } from '../../base/json.ts';
import type { BinderDriver, CallingIdentity } from '../binder/binder.ts';
import { type ContentHost, ContentResolver } from '../content/content.ts';
import { authorityOf } from '../content/uri-grants.ts';
import type { VirtualClock } from '../core/clock.ts';
import { runOnMainThread } from '../core/main-thread.ts';
import type { Rng } from '../core/rng.ts';
import type { Scheduler, Task, TimedOut, Waiter } from '../core/scheduler.ts';
import type { LogLevel } from '../core/trace.ts';
import { uuidFromRng } from '../core/uuid.ts';
import type { FdSystem, FileMode, ParcelFileDescriptor } from '../fd/fd.ts';
import type { BusinessEffect, GroundTruth } from '../ground-truth.ts';
import type { PackageManagerView } from '../pm/package-manager-view.ts';
import { authorityWithoutUserId, userIdFromAuthority, userIdOf } from '../pm/user-handle.ts';
import type { DeathCause, ProcessRecord } from '../process/process.ts';
import type { ServiceManager } from '../process/services.ts';
import { type PreferencesDisk, SharedPreferences } from '../storage/shared-preferences.ts';
import type { DurableStore, StoreTransaction } from '../storage/storage.ts';
import type { ActivityOptions, ActivityResult } from '../ui/activity-types.ts';
import type { Intent } from '../ui/intent.ts';
import type { PendingIntent, PendingIntentFlags } from '../ui/pending-intent.ts';

/**
 * What an app's Context needs of the world, passed in (the World implements it): what its
 * ContentResolver needs, and the PRNG, scheduler, logging, durable storage, SharedPreferences'
 * disk, files and fds, the ActivityManager and started services.
 */
export interface ContextHost extends ContentHost {
  readonly truth: Pick<GroundTruth, 'declareEffect'>;
  readonly rng: Pick<Rng, 'fork'>;
  /** Uninstalls per package so far (a reinstalled package's processes draw a stream of their own). */
  readonly removals?: ReadonlyMap<string, number>;
  readonly binder: BinderDriver;
  readonly clock: Pick<VirtualClock, 'nowMs' | 'sinceBoot' | 'uptimeMillis'>;
  readonly scheduler: Pick<Scheduler, 'step' | 'spawn' | 'sleep' | 'yield' | 'waiter' | 'currentTask'>;
  readonly fds: Pick<
    FdSystem,
    'writeFile' | 'readFileBytes' | 'deleteFile' | 'open' | 'createPipe' | 'createReliablePipe'
  >;
  readonly activities: ActivityStarter;
  readonly services: Pick<ServiceManager, 'start' | 'stop'>;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
  storage(packageName: string): DurableStore;
  preferencesDisk(packageName: string): PreferencesDisk;
  killProcess(packageName: string, cause: DeathCause): void;
}

/** What a Context asks of the ActivityManager (ui/activity.ts implements it). */
export interface ActivityStarter {
  getActivityPendingIntent(
    creator: AppContext,
    requestCode: number,
    intent: Intent,
    flags: PendingIntentFlags,
    creatorAllowsBackgroundStart?: boolean,
  ): PendingIntent | null;
  startIntentSenderForResult(
    launcher: AppContext,
    pendingIntent: PendingIntent,
    fillIn: Intent | null,
    requestCode?: number,
    options?: ActivityOptions,
  ): Promise<ActivityResult>;
  startActivityForResult(launcher: AppContext, intent: Intent, requestCode?: number): Promise<ActivityResult>;
}

/** The static `Binder` API as seen from app code. */
export interface BinderApi {
  getCallingUid(): number;
  getCallingPid(): number;
  getCallingIdentity(): CallingIdentity | null;
  clearCallingIdentity(): CallingIdentity | null;
  restoreCallingIdentity(token: CallingIdentity | null): void;
  /** Runs `run` once a reply carrying `pfd` has been sent (or dropped): when to close one's own copy. */
  afterReply(pfd: ParcelFileDescriptor, run: () => void): void;
}

export type { LogLevel };

export class AppContext {
  readonly rng: Rng;
  readonly contentResolver: ContentResolver;
  readonly packageManager: PackageManagerView;
  private readonly preferences = new Map<string, SharedPreferences>();

  constructor(
    private readonly world: ContextHost,
    readonly process: ProcessRecord,
    packageManager: PackageManagerView,
  ) {
    // One stream per process incarnation: a restarted process does not replay its predecessor's draws,
    // nor does a reinstalled package's (tokens and ids of before must not come back).
    const installs = world.removals?.get(process.packageName) ?? 0;
    const install = installs === 0 ? '' : `/install-${installs}`;
    this.rng = world.rng.fork(`app/${process.name}/${process.incarnation}${install}`);
    this.contentResolver = new ContentResolver(world, this);
    this.packageManager = packageManager;
  }

  get packageName(): string {
    return this.process.packageName;
  }

  get uid(): number {
    return this.process.uid;
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  get binder(): BinderApi {
    return this.world.binder;
  }

  // ---- time ----
  currentTimeMillis(): number {
    return this.world.clock.nowMs();
  }
  /** SystemClock.elapsedRealtime(): since the last boot (0 again after a reboot). */
  elapsedRealtime(): number {
    return this.world.clock.sinceBoot();
  }
  /** SystemClock.uptimeMillis(): stops in deep sleep; what sleep() and Handler delays run on. */
  uptimeMillis(): number {
    return this.world.clock.uptimeMillis();
  }

  // ---- randomness ----
  /** A v4 UUID drawn from this process's fork of the world's seeded PRNG: same seed, same UUIDs. */
  seededUuid(): string {
    return uuidFromRng(this.rng);
  }

  // ---- threads ----
  /** Starts a thread (a task) in this process; it dies with the process. */
  spawn(name: string, body: () => Promise<void>, options: { daemon?: boolean } = {}): Task {
    return this.world.scheduler.spawn(`${this.process.name}:${name}`, body, {
      owner: this.process.name,
      daemon: options.daemon ?? false,
    });
  }
  sleep(ms: number): Promise<void> {
    return this.world.scheduler.sleep(ms);
  }
  yield(): Promise<void> {
    return this.world.scheduler.yield();
  }
  /** Runs `body` on this process's main thread: blocked past 5 s, input ANR and kill (main-thread.ts). */
  onMainThread<T>(body: () => Promise<T>): Promise<T> {
    return runOnMainThread(this.world, this.process, body);
  }
  waiter<T>(reason: string): Waiter<T> {
    return this.world.scheduler.waiter<T>(reason);
  }
  /** Waits for `waiter` up to `timeoutMs` of monotonic time. */
  waitFor<T>(waiter: Waiter<T>, timeoutMs: number): Promise<T | TimedOut> {
    return waiter.waitFor(timeoutMs);
  }

  // ---- logging ----
  log(level: LogLevel, tag: string, message: string): void {
    this.world.log(this.process, level, tag, message);
  }

  /** Records a structured audit event of this app in the trace (the simulation's audit sink). */
  audit(event: JsonObject): void {
    this.world.trace.record('app.audit', Object.assign({ actor: this.process.name }, event));
  }

  // ---- business effects (the public effect API, docs/oracles.md) ----
  /**
   * Declares a business effect this app just made for a CETP request: which tool and request, the
   * UID it was made for, whose data it touched, which object, the args it acted on. Declared inside
   * a store transaction (`tx`), it counts only if that transaction commits; without one, at once.
   * The oracles judge effects from these declarations together with what the world saw.
   */
  declareEffect(effect: BusinessEffect, tx?: StoreTransaction): void {
    // A wrapper standing for a transaction declares it where it commits.
    if (tx?.takeEffect) {
      tx.takeEffect(effect);
      return;
    }
    this.world.truth.declareEffect(this.process, effect, tx ?? null);
  }

  /**
   * Context.grantUriPermission: `toPackage` may then acquire the provider of `uri` (uri-grants.ts).
   * As in UriGrantsManagerService, an unknown provider or package grants nothing (a log line);
   * a provider of another UID, or without grantUriPermissions, throws SecurityException. The
   * provider is the URI's user's (`content://10@authority/…`, else ours); the grantee is `toPackage`
   * in our own user (ActivityManagerService `grantUriPermission` → `grantUriPermissionLocked(…,
   * UserHandle.getUserId(callingUid))`: `getPackageUid(targetPkg, …, targetUserId)`).
   */
  grantUriPermission(toPackage: string, uri: string, modeFlags: number): void {
    const named = authorityOf(uri);
    const user = userIdOf(this.uid);
    const authority = named === null ? null : authorityWithoutUserId(named);
    const provider =
      authority === null || named === null
        ? null
        : this.world.pm.resolveContentProvider(this.uid, authority, userIdFromAuthority(named, user));
    const toUid = this.world.pm.getPackageUidAsUser(toPackage, user);
    if (provider === null || toUid === null || toUid < 0) {
      this.log('W', 'UriGrantsManagerService', `No permission grant for ${uri} to ${toPackage}`);
      return;
    }
    this.world.uriGrants.grant(provider, this.uid, { packageName: toPackage, uid: toUid }, uri, modeFlags);
  }

  // ---- storage and files ----
  get storage(): DurableStore {
    return this.world.storage(this.process.dataDir);
  }
  /** Context.getSharedPreferences(name): one instance per process, loaded from disk on first use. */
  getSharedPreferences(name: string): SharedPreferences {
    let prefs = this.preferences.get(name);
    if (!prefs) {
      prefs = new SharedPreferences(this, this.world.preferencesDisk(this.process.dataDir), name);
      this.preferences.set(name, prefs);
    }
    return prefs;
  }
  /**
   * Writes a file (open, write, close). The bytes survive a process kill (the kernel has them) but
   * not a power loss unless `sync` (fsync, as AtomicFile.finishWrite does) made them durable.
   */
  writeFile(path: string, bytes: Uint8Array, options: { sync?: boolean } = {}): void {
    this.world.fds.writeFile(this.process.dataDir, path, bytes, options.sync ?? false);
  }
  readFile(path: string): Uint8Array | null {
    return this.world.fds.readFileBytes(this.process.dataDir, path);
  }
  deleteFile(path: string): boolean {
    return this.world.fds.deleteFile(this.process.dataDir, path);
  }
  /** ParcelFileDescriptor.open(getFileStreamPath(path), mode). */
  openFile(path: string, mode: FileMode): ParcelFileDescriptor {
    return this.world.fds.open(this.process, path, mode);
  }
  createPipe(): [read: ParcelFileDescriptor, write: ParcelFileDescriptor] {
    return this.world.fds.createPipe(this.process);
  }
  createReliablePipe(): [read: ParcelFileDescriptor, write: ParcelFileDescriptor] {
    return this.world.fds.createReliablePipe(this.process);
  }

  // ---- PendingIntents and activities ----
  /** PendingIntent.getActivity(this, requestCode, intent, flags). */
  getActivityPendingIntent(
    requestCode: number,
    intent: Intent,
    flags: PendingIntentFlags,
    options: { creatorAllowsBackgroundStart?: boolean } = {},
  ): PendingIntent | null {
    return this.world.activities.getActivityPendingIntent(
      this,
      requestCode,
      intent,
      flags,
      options.creatorAllowsBackgroundStart ?? false,
    );
  }

  /** Activity.startIntentSenderForResult: launches `pendingIntent` and waits for its result. */
  startIntentSenderForResult(
    pendingIntent: PendingIntent,
    fillIn: Intent | null = null,
    requestCode = 0,
    options: ActivityOptions = {},
  ): Promise<ActivityResult> {
    return this.world.activities.startIntentSenderForResult(
      this,
      pendingIntent,
      fillIn,
      requestCode,
      options,
    );
  }

  /** Activity.startActivityForResult with an Intent of our own. */
  startActivityForResult(intent: Intent, requestCode = 0): Promise<ActivityResult> {
    return this.world.activities.startActivityForResult(this, intent, requestCode);
  }

  // ---- services (services.ts) ----
  /**
   * Context.startService for this app's own declared service `name`: keeps the process at
   * SERVICE_ADJ until stopped. Throws IllegalStateException from the background (target 26+).
   * False if no such service is declared.
   */
  startService(name: string): boolean {
    return this.world.services.start(this.process, name, false);
  }
  /** Context.startForegroundService (+ Service.startForeground at once): PERCEPTIBLE_APP_ADJ. */
  startForegroundService(name: string): boolean {
    return this.world.services.start(this.process, name, true);
  }
  /** Context.stopService; false if the service was not running. */
  stopService(name: string): boolean {
    return this.world.services.stop(this.process, name);
  }
}
