/**
 * Simulated app processes: lifecycle as a tagged union with an assertion at every transition.
 *
 * One process per installed package (its name is the package name), and one more per `android:process`
 * a provider of it names (process-table.ts; same UID, same storage). A process is started on demand
 * (the first Binder call to one of its providers, an Activity launch) by calling the package's
 * factory; it dies by a kill fault, a crash (an uncaught exception on one of its threads), the death
 * of a provider it held a stable reference to (AMS REASON_DEPENDENCY_DIED), a provider publish
 * timeout, uninstall, a device reboot, or the low-memory killer (importance.ts). Death is SIGKILL: no callbacks; memory, Binder threads and fds are gone;
 * transactions it was serving fail in their callers with DeadObjectException.
 */
import { SimUsageError } from '../core/errors.ts';
import type { FdTable } from '../fd/fd-kernel.ts';

export type DeathCause =
  | { readonly kind: 'killed'; readonly reason: string }
  | { readonly kind: 'crash'; readonly error: string }
  | { readonly kind: 'dependency'; readonly provider: string }
  | { readonly kind: 'publish-timeout' }
  | { readonly kind: 'reboot' }
  | { readonly kind: 'lmk'; readonly adj: number }
  | { readonly kind: 'uninstalled' };

export type ProcessState =
  | { readonly kind: 'not-started' }
  | { readonly kind: 'starting'; readonly pid: number }
  | { readonly kind: 'running'; readonly pid: number }
  | { readonly kind: 'dead'; readonly pid: number; readonly cause: DeathCause };

export function describeDeath(cause: DeathCause): string {
  switch (cause.kind) {
    case 'killed':
      return `killed (${cause.reason})`;
    case 'crash':
      return `crashed: ${cause.error}`;
    case 'dependency':
      return `killed: depends on provider ${cause.provider} in dying proc`;
    case 'publish-timeout':
      return 'killed: timeout publishing content providers';
    case 'reboot':
      return 'killed: device reboot';
    case 'lmk':
      return `killed: low memory (lmkd, oom_score_adj ${cause.adj})`;
    case 'uninstalled':
      return 'killed: package uninstalled';
  }
}

/** Android: DEFAULT_MAX_BINDER_THREADS (15) + the thread startThreadPool() spawns. */
export const MAX_BINDER_THREADS = 16;
/** Android: BINDER_VM_SIZE = 1 MiB − 2 pages, the per-process receive buffer. */
export const BINDER_BUFFER_BYTES = 1024 * 1024 - 2 * 4096;

/**
 * What a running incarnation holds of its app, as far as the record and the system below the app
 * need it. The full shapes live above (App in app/app.ts, read back with appOf there); the record
 * stays below every room that names a process, so none of them is tied to the app's code.
 */
export interface ProcessApp {
  readonly providers?: Readonly<Record<string, object>>;
  readonly activities?: Readonly<Record<string, () => object>>;
  /** Custom Parcelable classes in the app's APK (its class loader). */
  readonly parcelableClasses?: readonly string[];
}

/** The incarnation's Context (app/context.ts AppContext, read back with contextOf there). */
export interface ProcessContext {
  readonly packageName: string;
}

export class ProcessRecord {
  state: ProcessState = { kind: 'not-started' };
  /** Count of starts: 1 for the first incarnation. */
  incarnation = 0;
  app: ProcessApp | null = null;
  context: ProcessContext | null = null;
  /** Binder threads currently serving a transaction. */
  busyBinderThreads = 0;
  /** Bytes of the receive buffer held by in-flight transactions and undelivered replies. */
  bufferUsed = 0;
  fdTable: FdTable | null = null;

  /**
   * `name` is the process name: the package name, or a provider's `android:process` (a second
   * process of the same package, same UID, same data directory: `packageName` names the package).
   */
  constructor(
    readonly name: string,
    readonly uid: number,
    readonly packageName: string = name,
    /** Its package's data directory (storage, files, SharedPreferences): one per package and user. */
    readonly dataDir: string = packageName,
    /** AMS's processName (the package's, or a component's android:process) without the user (`name` has it). */
    readonly processName: string = name,
  ) {}

  /**
   * How process events name it in the trace: `actor`, its process name, and `package` when that is
   * not the package's own name (a provider's android:process `<pkg>:cetp`, another user's `<pkg>@u10`),
   * so a reader can tell which package died. Absent otherwise: one-process traces read as before.
   */
  get traced(): { readonly actor: string; readonly package?: string } {
    return this.name === this.packageName
      ? { actor: this.name }
      : { actor: this.name, package: this.packageName };
  }

  get pid(): number | null {
    return this.state.kind === 'not-started' ? null : this.state.pid;
  }

  get isRunning(): boolean {
    return this.state.kind === 'running';
  }

  get isAlive(): boolean {
    return this.state.kind === 'running' || this.state.kind === 'starting';
  }

  toStarting(pid: number): void {
    if (this.isAlive) throw new SimUsageError(`process ${this.name} is already ${this.state.kind}`);
    this.state = { kind: 'starting', pid };
    this.incarnation++;
  }

  toRunning(): void {
    if (this.state.kind !== 'starting')
      throw new SimUsageError(`process ${this.name}: running from ${this.state.kind}`);
    this.state = { kind: 'running', pid: this.state.pid };
  }

  toDead(cause: DeathCause): void {
    if (!this.isAlive) throw new SimUsageError(`process ${this.name}: dying from ${this.state.kind}`);
    this.state = { kind: 'dead', pid: (this.state as { pid: number }).pid, cause };
    this.app = null;
    this.context = null;
    this.busyBinderThreads = 0;
    this.bufferUsed = 0;
    this.fdTable = null;
  }
}
