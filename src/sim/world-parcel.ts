/**
 * Binder plumbing of the world (world.ts): delivering a Bundle into a process as a Parcel would,
 * and the observer's record of a ContentProvider.call.
 */

import type { AppContext } from './app/context.ts';
import type { Bundle } from './binder/bundle.ts';
import { type ParcelTarget, snapshotBundle, unparcelBundle } from './binder/parcel.ts';
import type { ContentCallRecord, ProviderHandle } from './content/content.ts';
import type { LogLevel } from './core/trace.ts';
import type { FdSystem } from './fd/fd.ts';
import type { ProcessRecord } from './process/process.ts';

/** What delivering a parcel needs of the world: dup'ing fds into the receiver, and its logcat. */
export interface ParcelHost {
  readonly fds: Pick<FdSystem, 'dup'>;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
}

/** Each process's receiving side of a Parcel, made on first delivery. */
export class ParcelDelivery {
  private readonly targets = new Map<ProcessRecord, ParcelTarget>();

  constructor(private readonly world: ParcelHost) {}

  /** Copies a Bundle into `proc` as a Parcel would (deep copy, fds dup'ed, warnings to its logcat). */
  into(proc: ProcessRecord, bundle: Bundle | null): Bundle | null {
    if (bundle === null) return null;
    let target = this.targets.get(proc);
    if (!target) {
      const world = this.world;
      target = {
        adoptFileDescriptor(pfd) {
          return world.fds.dup(pfd, proc);
        },
        warningSink(message) {
          world.log(proc, 'W', 'Bundle', message);
        },
        classLoader(className) {
          // The boot class path, then the classes of the app running in the process now.
          return (
            className.startsWith('android.') || (proc.app?.parcelableClasses?.includes(className) ?? false)
          );
        },
      };
      this.targets.set(proc, target);
    }
    return unparcelBundle(bundle, target);
  }
}

/** One ContentProvider.call as content.ts reports it to the world. */
export type SentContentCall = readonly [
  caller: AppContext,
  handle: ProviderHandle,
  method: string,
  arg: string | null,
  extras: Bundle | null,
  stable: boolean,
];

/** The record of one ContentProvider.call as sent (its extras snapshotted), to be completed later. */
export function contentCallRecord(
  at: { readonly id: number; readonly step: number; readonly t: number },
  ...[caller, handle, method, arg, extras, stable]: SentContentCall
): ContentCallRecord {
  return {
    id: at.id,
    caller: caller.packageName,
    callerUid: caller.uid,
    callerPid: caller.pid,
    provider: handle.process.packageName,
    providerUid: handle.process.uid,
    // The process names, where they are not the package's (trace events name processes: ProcessRecord.traced).
    ...(caller.process.name !== caller.packageName ? { callerProcess: caller.process.name } : {}),
    ...(handle.process.name !== handle.process.packageName ? { providerProcess: handle.process.name } : {}),
    authority: handle.authority,
    method,
    arg,
    extras: snapshotBundle(extras),
    stable,
    step: at.step,
    t: at.t,
  };
}
