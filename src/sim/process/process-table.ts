/**
 * The World's process records, keyed by process name (AMS ProcessList `getProcessRecordLocked(processName,
 * uid)`). A package runs in the process named after it, and a provider declaring `android:process`
 * (manifest.ts processNameOf) in a process of its own: same UID, same data directory, its own pid,
 * started and killed apart from the package's main process (ProcessList `startProcessLocked` takes
 * the component's processName). An Activity may declare one too (its confirmation screen apart from
 * the provider); services are not given a process attribute here.
 */
import { SimUsageError } from '../core/errors.ts';
import { userIdOf } from '../pm/user-handle.ts';
import { ProcessRecord } from './process.ts';

export class ProcessTable {
  private readonly byName = new Map<string, ProcessRecord>();
  /** Tasks waiting for a process to start (World.startProcess), by process name. */
  private readonly startWaiters = new Map<string, ((ok: boolean) => void)[]>();

  get(processName: string): ProcessRecord | undefined {
    return this.byName.get(processName);
  }

  /**
   * The record of `processName` for `packageName` under `uid` (a fresh one if none or its UID changed).
   * `ownUid` is the package's home UID (the user it was first installed for: PackageManager.homeUidOf);
   * in any other user (installExistingPackageAsUser) the process and its data directory carry the
   * user (`name@u10`, AMS's (processName, uid) key made one string) — even after its home user left.
   */
  ensure(packageName: string, processName: string, uid: number, ownUid: number = uid): ProcessRecord {
    const user = userIdOf(uid) === userIdOf(ownUid) ? '' : `@u${userIdOf(uid)}`;
    const name = `${processName}${user}`;
    let proc = this.byName.get(name);
    if (proc && proc.packageName !== packageName)
      throw new SimUsageError(`process ${processName} belongs to ${proc.packageName}, not ${packageName}`);
    if (!proc || proc.uid !== uid) {
      proc = new ProcessRecord(name, uid, packageName, `${packageName}${user}`, processName);
      this.byName.set(name, proc);
    }
    return proc;
  }

  /** Every process of `packageName`, in the order they were first used. */
  ofPackage(packageName: string): ProcessRecord[] {
    return this.all().filter((proc) => proc.packageName === packageName);
  }

  all(): ProcessRecord[] {
    return [...this.byName.values()];
  }

  /** Forgets processes of an uninstalled package (every one, or one user's). */
  forget(procs: readonly ProcessRecord[]): void {
    for (const proc of procs) this.byName.delete(proc.name);
  }

  /** `wake` runs once `processName` has started (true) or failed to (false). */
  onStarted(processName: string, wake: (ok: boolean) => void): void {
    const list = this.startWaiters.get(processName) ?? [];
    list.push(wake);
    this.startWaiters.set(processName, list);
  }

  settleStart(processName: string, ok: boolean): void {
    const list = this.startWaiters.get(processName) ?? [];
    this.startWaiters.delete(processName);
    for (const wake of list) wake(ok);
  }
}
