/**
 * The simulated world: one device, one root seed, one scheduler, one trace. It wires the components
 * (PackageManager, processes, Binder, storage, fds, PendingIntents and Activities, the user, faults)
 * and owns the process lifecycle. Nothing here is CETP-specific. Every component gets a narrow host
 * interface of the World, explicitly: no module state, so two worlds can run in one test.
 *   const world = new World({ seed: 42 });
 *   world.install(spec, (ctx) => ({ providers: { EchoProvider: new EchoProvider() } }));
 *   world.spawnIn('com.example.client', 'main', async (ctx) => { await ctx.contentResolver.call(…) });
 *   const report = await world.run();
 */

import type { AppFactory } from './app/app.ts';
import { AppContext, type LogLevel } from './app/context.ts';
import { BinderDriver } from './binder/binder.ts';
import type { Bundle } from './binder/bundle.ts';
import type { ContentCallRecord } from './content/content.ts';
import { ObserverRegistry } from './content/content-observer.ts';
import type { ContentProvider } from './content/content-provider.ts';
import { UriGrants } from './content/uri-grants.ts';
import { DEFAULT_START_MS, VirtualClock } from './core/clock.ts';
import { describeError, SimUsageError } from './core/errors.ts';
import { type Fault, FaultInjector } from './core/faults.ts';
import { type ReleaseProfile, releaseProfile } from './core/release.ts';
import { Rng } from './core/rng.ts';
import { Scheduler, type Task, TIMED_OUT } from './core/scheduler.ts';
import { makeStrategy, type StrategySpec } from './core/strategy.ts';
import { Trace } from './core/trace.ts';
import { FdSystem, FdTable } from './fd/fd.ts';
import { GroundTruth } from './ground-truth.ts';
import type { PackageSpec } from './pm/manifest.ts';
import { PackageManager } from './pm/package-manager.ts';
import { PackageManagerView } from './pm/package-manager-view.ts';
import { userIdOf } from './pm/user-handle.ts';
import { CACHED_APP_MIN_ADJ, lowMemoryKillOrder } from './process/importance.ts';
import { type DeathCause, describeDeath, type ProcessRecord } from './process/process.ts';
import { ProcessTable } from './process/process-table.ts';
import { ServiceManager } from './process/services.ts';
import { Standing } from './process/standing.ts';
import { PreferencesDisk } from './storage/shared-preferences.ts';
import { DurableStore } from './storage/storage.ts';
import { ActivityManager } from './ui/activity.ts';
import { SimulatedUser } from './ui/user.ts';
import { applyDeviceFault, killDependents, rebootDevice, reinstallApp, resignApp } from './world-faults.ts';
import { contentCallRecord, ParcelDelivery, type SentContentCall } from './world-parcel.ts';
import { awaitStart, type StartReason } from './world-start.ts';
import { PROCESS_START_MS, Report, type RunReport, SYSTEM_UID, type WorldOptions } from './world-types.ts';

export * from './world-types.ts';

export class World {
  readonly seed: string;
  readonly rng: Rng;
  readonly clock: VirtualClock;
  readonly trace: Trace;
  readonly scheduler: Scheduler;
  readonly strategy: StrategySpec;
  readonly pm: PackageManager;
  readonly binder: BinderDriver;
  readonly observers: ObserverRegistry;
  readonly fds: FdSystem;
  readonly faults: FaultInjector;
  readonly activities: ActivityManager;
  readonly user: SimulatedUser;
  readonly truth: GroundTruth = new GroundTruth(this); // what happened, for the oracles
  readonly release: ReleaseProfile; // the Android release's behaviour switches (release.ts)

  private readonly processes = new ProcessTable(); // by process name (process-table.ts)
  /** Each package's store (world-faults.ts: a reboot syncs them, a power loss loses NORMAL commits). */
  readonly stores = new Map<string, DurableStore>();
  readonly uriGrants = new UriGrants(); // Context.grantUriPermission; a reboot clears them (uri-grants.ts)
  private readonly preferences = new Map<string, PreferencesDisk>();
  private readonly apps = new Map<string, { spec: PackageSpec; factory: AppFactory }>();
  readonly removals = new Map<string, number>(); // uninstalls per package: a reinstall's processes draw anew
  private readonly crashes: { task: string; error: string }[] = [];
  private readonly delivery = new ParcelDelivery(this);
  private readonly standing = new Standing(); // launched apps, services, connections (standing.ts)
  readonly services = new ServiceManager(this, this.standing);
  /** Every ContentProvider.call made, when `recordContentCalls` is on; otherwise null. */
  readonly contentCalls: ContentCallRecord[] | null;
  private readonly processStartMs: number;
  private nextPid = 2000;
  private ran = false;

  constructor(options: WorldOptions = {}) {
    this.seed = String(options.seed ?? 0);
    this.processStartMs = options.processStartMs ?? PROCESS_START_MS;
    this.release = releaseProfile(options.android);
    this.rng = new Rng(this.seed);
    this.clock = new VirtualClock(options.startMs ?? DEFAULT_START_MS);
    this.strategy = options.strategy ?? { kind: 'fifo' };
    const stepBudget = options.stepBudget ?? 100_000;
    const strategy = makeStrategy(this.strategy, this.rng.fork('scheduler'), stepBudget);
    this.scheduler = new Scheduler(this.clock, strategy, { stepBudget });
    // Method shorthand, not arrows, in these per-world objects: tsx's keep-names transform gives every
    // arrow in an object literal a defineProperty, and a fuzz campaign builds a world per run.
    const world = this;
    const { scheduler, clock } = this;
    this.trace = new Trace({
      step() {
        return scheduler.step;
      },
      nowMs() {
        return clock.nowMs();
      },
    });
    this.pm = new PackageManager(this.trace);
    this.binder = new BinderDriver(this);
    this.observers = new ObserverRegistry(this);
    this.fds = new FdSystem(this);
    this.faults = new FaultInjector(options.faults ?? []);
    this.activities = new ActivityManager(this);
    this.user = new SimulatedUser(this, options.user ?? { kind: 'silent' });
    this.contentCalls = options.recordContentCalls ? [] : null;
    this.pm.addListener({
      onPackageRemoved(name, uid) {
        world.onPackageRemoved(name, uid, true);
      },
      onPackageRemovedForUser(name, uid) {
        world.onPackageRemoved(name, uid, false);
      },
      onPackageUpdated(pkg) {
        for (const proc of world.processes.ofPackage(pkg.packageName))
          world.killProcess(proc.name, { kind: 'killed', reason: 'package updated' });
      },
    });
    this.scheduler.setHooks({
      beforeStep(step) {
        world.faults.applyDue(step, world);
      },
      onStep() {},
      onTaskFailed(task, error) {
        world.onTaskFailed(task, error);
      },
      onTaskDone() {},
    });
  }

  // ---- packages ----

  /** Installs a package and registers the factory that builds its app in each new process. */
  install(spec: PackageSpec, factory: AppFactory = () => ({})): void {
    this.pm.install(spec);
    this.apps.set(spec.manifest.packageName, { spec, factory });
  }

  /** Updates an installed package (same signer or a rotation); its running process is killed. */
  update(spec: PackageSpec, factory?: AppFactory): void {
    const previous = this.apps.get(spec.manifest.packageName);
    this.pm.update(spec);
    this.apps.set(spec.manifest.packageName, { spec, factory: factory ?? previous?.factory ?? (() => ({})) });
  }

  uninstall(packageName: string): void {
    this.pm.uninstall(packageName);
  }

  // ---- processes ----

  /** A process record of an installed package (created on first use; not started): its main
   *  process, or `processName` (a provider's android:process; same UID); `uid`: its UID in another user. */
  process(packageName: string, processName: string = packageName, uid?: number): ProcessRecord {
    const own = this.pm.getPackageUid(packageName);
    if (own === null || own === undefined || own < 0)
      throw new SimUsageError(`package ${packageName} is not installed`);
    return this.processes.ensure(packageName, processName, uid ?? own, this.pm.homeUidOf(packageName) ?? own);
  }

  allProcesses(): ProcessRecord[] {
    return this.processes.all();
  }

  /** Starts the package's process if needed (providers published, then Application.onCreate); blocks
   *  the calling task; false if the start failed (crash in onCreate, publish timeout, not installed). */
  async startProcess(
    packageName: string,
    processName = packageName,
    uid?: number,
    why: StartReason = 'other',
  ): Promise<boolean> {
    const installed = uid === undefined || this.pm.getPackagesForUid(uid)?.includes(packageName) === true;
    if (!this.apps.has(packageName) || this.pm.getPackageUid(packageName) === null || !installed)
      return false;
    const proc = this.process(packageName, processName, uid);
    if (proc.isRunning) return true;
    if (proc.state.kind !== 'starting') this.beginStart(proc);
    const waiter = this.scheduler.waiter<boolean>(`start of process ${proc.name}`);
    this.processes.onStarted(proc.name, (ok) => waiter.wake(ok));
    const result = await awaitStart(waiter, why); // only a provider's client has a deadline (world-start.ts)
    if (result === TIMED_OUT) {
      if (proc.state.kind === 'starting') this.killProcess(proc.name, { kind: 'publish-timeout' });
      return false;
    }
    // Woken by the publish, the caller may resume only after a kill that came in between.
    return result && proc.isRunning;
  }

  private beginStart(proc: ProcessRecord): void {
    const entry = this.apps.get(proc.packageName);
    if (!entry) throw new SimUsageError(`no app registered for ${proc.packageName}`);
    proc.toStarting(this.nextPid++);
    proc.fdTable = new FdTable(proc);
    const context = new AppContext(this, proc, new PackageManagerView(this.pm, proc.uid));
    proc.context = context;
    this.trace.record('process.start', {
      ...proc.traced,
      pid: proc.pid ?? -1,
      incarnation: proc.incarnation,
    });
    const startMs = this.processStartMs + this.faults.takeSlowStart(proc.name);
    this.scheduler.spawn(`main:${proc.name}`, () => this.bindApplication(proc, entry.factory, startMs), {
      owner: proc.name,
    });
  }

  /**
   * ActivityThread.handleBindApplication on the new process's main thread: the zygote fork and bind
   * take `startMs` of virtual time; then installContentProviders runs each provider's onCreate and
   * publishContentProviders makes them reachable — BEFORE Application.onCreate, and without waiting
   * for any asynchronous initialisation a provider started (Java's onCreate returns at once; work it
   * hands to another thread keeps running). So call() can arrive while the app is still initialising.
   */
  private async bindApplication(proc: ProcessRecord, factory: AppFactory, startMs: number): Promise<void> {
    await this.scheduler.sleep(startMs);
    const context = proc.context as AppContext;
    const app = factory(context);
    proc.app = app;
    for (const p of this.pm.getPackageInfo(proc.packageName)?.manifest.providers ?? []) {
      const instance = app.providers?.[p.name];
      if (!instance || p.processName !== proc.processName) continue; // each provider in its own android:process
      instance.attachInfo(context, {
        name: p.name,
        authorities: p.authorities,
        packageName: proc.packageName,
      });
      await this.installProvider(context, p.name, instance);
    }
    proc.toRunning();
    this.trace.record('process.ready', { ...proc.traced, pid: proc.pid ?? -1 });
    this.processes.settleStart(proc.name, true);
    // publishContentProviders is a Binder call to AMS: callers woken by it may run first.
    await this.scheduler.yield();
    await app.onCreate?.();
  }

  /**
   * Runs a provider's onCreate on a thread of its own until it first blocks (its synchronous part,
   * which on a device runs on the main thread), then lets the main thread go on: whatever the
   * onCreate awaits continues on that thread, racing the calls the published provider receives.
   */
  private async installProvider(context: AppContext, name: string, provider: ContentProvider): Promise<void> {
    const installed = this.scheduler.waiter<void>(`onCreate of provider ${name}`);
    context.spawn(`onCreate:${name}`, async () => {
      // Woken first: the main thread can go on only once this task blocks or ends, i.e. after the
      // synchronous part below (waking after it would be too late — a block inside it may let the
      // scheduler advance time before control comes back here).
      installed.wake();
      await provider.onCreate();
    });
    await installed.wait();
  }

  /** SIGKILL of one process (by process name; the package's other processes live on): memory, threads
   *  and fds gone; stable clients of its providers die after (world-faults.ts). Storage is the package's. */
  killProcess(processName: string, cause: DeathCause): void {
    const proc = this.processes.get(processName);
    if (!proc?.isAlive) return;
    this.trace.record('process.kill', { ...proc.traced, pid: proc.pid ?? -1, cause: describeDeath(cause) });
    this.fds.onProcessDied(proc);
    this.stores.get(proc.dataDir)?.onProcessDied(proc);
    this.activities.onProcessDied(proc);
    proc.toDead(cause);
    this.scheduler.killOwner(proc.name, describeDeath(cause));
    this.scheduler.thawOwner(proc.name);
    this.standing.forget(proc);
    this.processes.settleStart(processName, false);
    killDependents(this, proc.name, this.binder.onProcessDied(proc));
  }

  /** Uninstalled (`all` users, or only `uid`'s: PackageManager.deletePackageAsUser): its processes
   *  there killed and forgotten, their data directories removed, its URI grants there gone. */
  private onPackageRemoved(packageName: string, uid: number, all: boolean): void {
    const procs = this.processes.ofPackage(packageName).filter((p) => all || p.uid === uid);
    for (const proc of procs) this.killProcess(proc.name, { kind: 'uninstalled' });
    this.uriGrants.removePackage(packageName, all ? null : userIdOf(uid));
    const dirs = procs.map((p) => p.dataDir);
    for (const dir of new Set(all ? [packageName, ...dirs] : dirs)) {
      this.stores.get(dir)?.wipe(); // every user's data directory
      this.stores.delete(dir);
      this.preferences.delete(dir);
      this.fds.wipe(dir);
    }
    this.processes.forget(procs);
    if (all) this.apps.delete(packageName);
    this.removals.set(packageName, (this.removals.get(packageName) ?? 0) + 1);
  }

  // ---- storage ----

  storage(packageName: string): DurableStore {
    const store = this.stores.get(packageName) ?? new DurableStore(this, packageName);
    this.stores.set(packageName, store);
    return store;
  }

  /** The package's SharedPreferences files on disk. */
  preferencesDisk(packageName: string): PreferencesDisk {
    const disk = this.preferences.get(packageName) ?? new PreferencesDisk();
    this.preferences.set(packageName, disk);
    return disk;
  }

  // ---- tasks ----

  /** A harness task (a test driver), running as the system, outside any app process. */
  spawn(name: string, body: () => Promise<void>, options: { daemon?: boolean } = {}): Task {
    return this.scheduler.spawn(name, body, { owner: null, daemon: options.daemon ?? false });
  }

  /** The user opens the app: starts its process if needed, gives it the screen (importance.ts); false if it cannot. */
  async launchApp(packageName: string, uid?: number): Promise<boolean> {
    if (!(await this.startProcess(packageName, packageName, uid))) return false;
    this.userLaunched(this.process(packageName, packageName, uid));
    return true;
  }

  /** It takes the screen, and AMS unfreezes a frozen one (OomAdjuster updateAppFreezeStateLSP). */
  private userLaunched(proc: ProcessRecord): void {
    this.standing.userLaunched.add(proc);
    this.thaw(proc, 'user launched');
  }

  /** The user opens the app (launchApp), then `body` runs as a thread of its process. */
  spawnIn(packageName: string, name: string, body: (context: AppContext) => Promise<void>): Task {
    if (!this.apps.has(packageName)) throw new SimUsageError(`no app registered for ${packageName}`);
    return this.spawn(`launch:${packageName}:${name}`, async () => {
      if (!(await this.startProcess(packageName))) {
        // Killed while starting, or uninstalled (a fault, not misuse): the task never runs.
        this.trace.record('launch.failed', { actor: packageName, task: name });
        return;
      }
      const proc = this.process(packageName);
      this.userLaunched(proc);
      const context = proc.context as AppContext;
      context.spawn(name, () => body(context));
    });
  }

  /** The process the running task belongs to, or null for harness tasks. */
  currentProcess(): ProcessRecord | null {
    const owner = this.scheduler.currentTask?.owner;
    return owner ? (this.processes.get(owner) ?? null) : null;
  }

  currentUid(): number {
    return this.currentProcess()?.uid ?? SYSTEM_UID;
  }

  currentPid(): number {
    return this.currentProcess()?.pid ?? 0;
  }

  // ---- importance, freezer, low-memory killer (importance.ts) ----

  /** A provider connection (a stable or unstable reference) from `client` raises `provider` to it. */
  connectProvider(client: ProcessRecord, provider: ProcessRecord): void {
    this.standing.connect(client, provider);
    this.thaw(provider, 'provider connection');
  }

  /** Releases a connection made to the provider instance `providerPid` (gone with it if it died). */
  disconnectProvider(client: ProcessRecord, provider: ProcessRecord, providerPid: number): void {
    this.standing.disconnect(client, provider, providerPid);
  }

  importance(): Map<ProcessRecord, number> {
    return this.standing.adjs(this.allProcesses(), this.activities.screen());
  }

  /** Whether `proc` has a visible window (importance.ts hasVisibleWindow): what BAL checks ask. */
  hasVisibleWindow(proc: ProcessRecord): boolean {
    return proc.isAlive && this.standing.hasVisibleWindow(proc, this.activities.screen());
  }

  /** AMS unfreezes a process whose importance rises (a call, a connection, an Activity in it). */
  thaw(proc: ProcessRecord, reason: string): void {
    if (!this.scheduler.isFrozen(proc.name)) return;
    this.scheduler.thawOwner(proc.name);
    this.trace.record('process.thaw', { actor: proc.name, pid: proc.pid ?? -1, reason });
  }

  /** @internal The cached-app freezer's pass (a fault); never a process still starting (world-start.ts). */
  freezeCached(): void {
    for (const [proc, adj] of this.importance()) {
      if (adj < CACHED_APP_MIN_ADJ || proc.state.kind === 'starting' || this.scheduler.isFrozen(proc.name))
        continue;
      this.scheduler.freezeOwner(proc.name);
      this.trace.record('process.freeze', { actor: proc.name, pid: proc.pid ?? -1, adj });
    }
  }

  /** @internal The low-memory killer's pass (a fault): kills the `kills` least important processes. */
  lowMemoryKill(kills: number): void {
    const adjs = this.importance();
    for (const proc of lowMemoryKillOrder(adjs).slice(0, kills)) {
      this.killProcess(proc.name, { kind: 'lmk', adj: adjs.get(proc) ?? CACHED_APP_MIN_ADJ });
    }
  }

  // ---- Binder plumbing ----

  /** Copies a Bundle into `proc` as a Parcel would (deep copy, fds dup'ed, warnings to its logcat). */
  unparcelInto(proc: ProcessRecord, bundle: Bundle | null): Bundle | null {
    return this.delivery.into(proc, bundle);
  }

  /** @internal — content.ts reports each call here; returns the record to complete, if logging. */
  recordContentCall(...call: SentContentCall): ContentCallRecord | null {
    if (this.contentCalls === null) return null;
    const at = { id: this.contentCalls.length + 1, step: this.scheduler.step, t: this.clock.nowMs() };
    const record = contentCallRecord(at, ...call);
    this.contentCalls.push(record);
    return record;
  }

  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void {
    this.trace.record('log', { actor: proc?.name ?? 'system', level, tag, message });
  }

  // ---- faults ----

  applyFault(fault: Fault): void {
    applyDeviceFault(this, fault);
  }

  /**
   * A device reboot. Every app process dies (harness tasks, standing outside the device, go on);
   * activity tasks, pending results and PendingIntents are gone; PackageManager restarts UID
   * allocation, forgets implicit visibility and re-evaluates permissions. Apps start again on
   * demand. Storage: a clean reboot syncs the file systems; a power loss tears every file write not
   * fsynced (fd.ts), while SQLite commits (FULL sync) and written SharedPreferences survive either
   * way — an apply() still queued died with its process. The boot takes `bootMs` (a fault option),
   * then apps' elapsedRealtime restarts from 0 (world-faults.ts). Not modelled: BOOT_COMPLETED.
   */
  reboot(powerLoss: boolean, bootMs = 0): void {
    rebootDevice(this, powerLoss, bootMs);
  }

  /** Re-signs a package: a key rotation (same UID) or a reinstall under an unrelated key (new UID). */
  resign(packageName: string, certName: string, rotate: boolean): void {
    resignApp(this, packageName, certName, rotate);
  }

  reinstall(packageName: string): void {
    reinstallApp(this, packageName);
  }

  /** @internal The spec and factory an installed app was registered with (undefined: none). */
  registeredApp(
    packageName: string,
  ): { readonly spec: PackageSpec; readonly factory: AppFactory } | undefined {
    return this.apps.get(packageName);
  }

  // ---- running ----

  private onTaskFailed(task: Task, error: unknown): void {
    const message = describeError(error);
    if (task.owner === null) {
      this.scheduler.abort(task.name, error);
      return;
    }
    // An uncaught exception on an app thread crashes its process ("FATAL EXCEPTION").
    this.crashes.push({ task: task.name, error: message });
    this.log(
      this.processes.get(task.owner) ?? null,
      'E',
      'AndroidRuntime',
      `FATAL EXCEPTION: ${task.name}: ${message}`,
    );
    this.killProcess(task.owner, { kind: 'crash', error: message });
  }

  /** Runs the world until it is quiescent, the budget is spent, or a harness task crashes. */
  async run(): Promise<RunReport> {
    if (this.ran) throw new SimUsageError('World.run() called twice');
    this.ran = true;
    const outcome = await this.scheduler.run();
    this.trace.record('run.end', { actor: 'system', outcome: outcome.kind, steps: this.scheduler.step });
    const leaks = this.fds.leaks(this.processes.all());
    return Report.of(outcome, this.scheduler, this.trace, leaks, this.faults.unapplied, this.crashes);
  }
}
