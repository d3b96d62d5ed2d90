/**
 * ContentResolver.call() and ContentProviderClient — the two ways an app calls a provider, with the
 * trap that separates them (ContentResolver.java, ContentProviderClient.java, ContentProviderHelper):
 *
 * - ContentResolver.call(authority, …) acquires a **stable** reference for the duration of the
 *   call. If the provider's process dies meanwhile, AMS kills the caller's process too
 *   (REASON_DEPENDENCY_DIED). Any RemoteException — death, a failed or oversized transaction —
 *   comes back as a `null` result, indistinguishable from "no result". An authority that cannot be
 *   acquired throws IllegalArgumentException("Unknown authority …").
 * - acquireUnstableContentProviderClient(authority) returns a client whose calls throw
 *   DeadObjectException when the provider dies; the caller survives. A dead client stays dead:
 *   release it and acquire a new one (which restarts the provider).
 * - Acquisition is the only permission gate: the caller needs the provider's read OR write
 *   permission (either suffices), or the same UID; an unexported provider refuses other UIDs —
 *   except that a path permission's permission or a URI grant under the authority also passes
 *   (uri-grants.ts).
 *   Package visibility applies: an invisible provider is an unknown authority. After a successful
 *   acquisition the caller becomes visible to the provider's app.
 * - A call into a provider of the caller's own process is a plain method call: same thread, same
 *   Bundle object (no Parcel), and the caller's own identity.
 * - The AttributionSource a call carries is the caller's to write: Binder fixes the UID, but the
 *   package name and attribution tag are whatever it sends (Context.createAttributionContext, or a
 *   hostile app writing its own AttributionSource). `Attribution` lets a simulated app send any;
 *   the provider's getCallingPackage() still verifies the package against the UID.
 */

/** What a caller claims in its AttributionSource (defaults: its own package, no tag). */
export interface Attribution {
  readonly packageName?: string;
  readonly attributionTag?: string;
}

import type { BinderDriver, CallingIdentity, IncomingCall } from '../binder/binder.ts';
import { contentCallRequestBytes, exceptionForResult } from '../binder/binder-types.ts';
import type { Bundle } from '../binder/bundle.ts';
import { snapshotBundle } from '../binder/parcel.ts';
import type { VirtualClock } from '../core/clock.ts';
import {
  type AndroidException,
  DeadObjectException,
  FileNotFoundException,
  IllegalArgumentException,
  OperationApplicationException,
  OperationCanceledException,
  RemoteException,
  RuntimeException,
  SecurityException,
  SQLiteAbortException,
  SQLiteConstraintException,
  SQLiteDatabaseCorruptException,
  SQLiteDiskIOException,
  SQLiteException,
  SQLiteFullException,
  UnsupportedOperationException,
} from '../core/errors.ts';
import type { Scheduler } from '../core/scheduler.ts';
import type { Trace } from '../core/trace.ts';
import type { PackageManager } from '../pm/package-manager.ts';
import { authorityWithoutUserId, userIdFromAuthority, userIdOf } from '../pm/user-handle.ts';
import type { ProcessRecord } from '../process/process.ts';
import type { ContentObserver, ObserverRegistry } from './content-observer.ts';
import type { ContentCaller, ContentCallRecord, ServedInterval } from './types.ts';
import { acquisitionDenial, authorityOf, crossUserDenial, type UriGrants } from './uri-grants.ts';

export type { ContentCaller, ContentCallRecord, ContentCallResult, ServedInterval } from './types.ts';

/**
 * What ContentResolver and ContentProviderClient need of the world, passed in (the World
 * implements it): resolving and gating providers, starting their processes, the Binder driver,
 * provider connections (importance), the observer's record of calls, and the trace and clocks.
 */
export interface ContentHost {
  readonly observers: ObserverRegistry;
  readonly uriGrants: UriGrants;
  readonly pm: Pick<
    PackageManager,
    | 'resolveContentProvider'
    | 'checkPermission'
    | 'recordInteraction'
    | 'getPackageUid'
    | 'getPackageUidAsUser'
  >;
  readonly trace: Trace;
  readonly scheduler: Pick<Scheduler, 'step' | 'currentTask'>;
  readonly clock: Pick<VirtualClock, 'nowMs'>;
  readonly binder: Pick<BinderDriver, 'clearCallingIdentity' | 'restoreCallingIdentity' | 'transact'>;
  startProcess(packageName: string, processName?: string, uid?: number, why?: 'provider'): Promise<boolean>;
  process(packageName: string, processName?: string, uid?: number): ProcessRecord;
  unparcelInto(proc: ProcessRecord, bundle: Bundle | null): Bundle | null;
  connectProvider(client: ProcessRecord, provider: ProcessRecord): void;
  disconnectProvider(client: ProcessRecord, provider: ProcessRecord, providerPid: number): void;
  recordContentCall(
    caller: ContentCaller,
    handle: ProviderHandle,
    method: string,
    arg: string | null,
    extras: Bundle | null,
    stable: boolean,
  ): ContentCallRecord | null;
}

/** What the system calls on a published provider (content-provider.ts ContentProvider implements it). */
export interface HostedProvider {
  call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
  ): Bundle | null | Promise<Bundle | null>;
}

/** A resolved, started provider: the handle a Binder proxy stands for. */
export interface ProviderHandle {
  readonly authority: string;
  readonly process: ProcessRecord;
  readonly pid: number;
  readonly provider: HostedProvider;
}

/** Acquires `authority` for `caller`: visibility, permission gate, process start. */
/** `uid`'s permission check (an unnamed arrow: keep-names would name a nested `const` one at every call). */
function permissionCheck(world: ContentHost, uid: number): (permission: string) => boolean {
  return (p) => world.pm.checkPermission(p, uid);
}

export async function acquireProvider(
  world: ContentHost,
  caller: ContentCaller,
  authority: string,
): Promise<ProviderHandle | null> {
  // ContextImpl.ApplicationContentResolver.acquireProvider: "10@authority" names user 10's provider
  // (ContentProvider.getUserIdFromAuthority); without a prefix, the caller's own user.
  const userId = userIdFromAuthority(authority, userIdOf(caller.uid));
  const found = world.pm.resolveContentProvider(caller.uid, authorityWithoutUserId(authority), userId);
  // Resolved in that user: a package not installed for it is an unknown authority (user-handle.ts).
  const info = found && userIdOf(found.uid) === userId ? found : null;
  if (!info) {
    world.trace.record('provider.acquire.unknown', { from: caller.packageName, to: 'system', authority });
    return null;
  }
  // Another user's: a URI grant there or INTERACT_ACROSS_USERS(_FULL); then own UID, read/write
  // permission, a path permission, or a URI grant (uri-grants.ts).
  const holds = permissionCheck(world, caller.uid);
  const denial =
    crossUserDenial(info, caller.uid, holds, world.uriGrants) ??
    acquisitionDenial(info, caller.uid, holds, world.uriGrants);
  if (denial !== null) throw new SecurityException(denial);
  // AMS makes the client's connection before it waits for the provider to publish
  // (ContentProviderHelper.getContentProviderImpl: incProviderCountLocked, then the wait loop), so a
  // process started for a client is as important as that client while it starts: not cached, not
  // frozen under it. The call's own reference replaces this one once the provider is published.
  // The provider's own process: the package's, or its android:process (pm/manifest.ts processNameOf).
  const starting = world.process(info.packageName, info.processName, info.uid);
  world.connectProvider(caller.process, starting);
  const started = await world.startProcess(info.packageName, info.processName, info.uid, 'provider');
  world.disconnectProvider(caller.process, starting, starting.pid ?? -1);
  if (!started) return null;
  const proc = world.process(info.packageName, info.processName, info.uid);
  // The App's providers are ContentProviders (app/app.ts); the record holds them untyped (process.ts).
  const provider = proc.app?.providers?.[info.name] as HostedProvider | undefined;
  if (!provider || proc.pid === null) return null;
  if (info.uid !== caller.uid) world.pm.recordInteraction(info.uid, caller.uid);
  return { authority, process: proc, pid: proc.pid, provider };
}

/** One IContentProvider.call as the caller makes it: from whom, to which provider, what, over which reference. */
interface CallRequest {
  readonly caller: ContentCaller;
  readonly handle: ProviderHandle;
  readonly method: string;
  readonly arg: string | null;
  readonly extras: Bundle | null;
  /** A stable reference (ContentResolver.call) or an unstable one (ContentProviderClient). */
  readonly stable: boolean;
  readonly attribution: Attribution;
}

/** Sends IContentProvider.call over Binder (or calls in-process) and returns the raw result. */
async function transactCall(world: ContentHost, call: CallRequest): Promise<CallOutcome> {
  const { caller, handle, method, arg, extras, stable } = call;
  const record = world.recordContentCall(caller, handle, method, arg, extras, stable);
  const outcome = await dispatchCall(world, call, record);
  if (record) {
    const step = world.scheduler.step;
    const t = world.clock.nowMs();
    if ('reply' in outcome) record.result = { kind: 'reply', reply: snapshotBundle(outcome.reply), step, t };
    else if (outcome.undelivered === undefined)
      record.result = { kind: 'exception', exception: outcome.error.name, step, t };
    else {
      const undelivered = snapshotBundle(outcome.undelivered);
      record.result = { kind: 'exception', exception: outcome.error.name, step, t, undelivered };
    }
  }
  return outcome;
}

/** The callee side of one IContentProvider.call transaction. */
class ProviderCall implements IncomingCall {
  constructor(
    private readonly handle: ProviderHandle,
    private readonly method: string,
    private readonly arg: string | null,
    private readonly extras: Bundle | null,
    private readonly watch: { readonly world: ContentHost; readonly record: ContentCallRecord } | null,
  ) {}

  invoke(): Promise<Bundle | null> | Bundle | null {
    const watch = this.watch;
    if (!watch) return this.handle.provider.call(this.handle.authority, this.method, this.arg, this.extras);
    const served: ServedInterval = {
      pid: this.handle.pid,
      fromStep: watch.world.scheduler.step,
      untilStep: null,
    };
    watch.record.served = served;
    // Ground truth: the binder thread's task serves this call (ground-truth.ts attributes its commits).
    const task = watch.world.scheduler.currentTask;
    const before = task?.onBehalfOf ?? null;
    if (task) task.onBehalfOf = watch.record;
    const end = servedEnd(served, watch.world, task, before);
    let pending: Promise<Bundle | null> | Bundle | null;
    try {
      pending = this.handle.provider.call(this.handle.authority, this.method, this.arg, this.extras);
    } catch (error) {
      end();
      throw error;
    }
    if (!(pending instanceof Promise)) {
      end();
      return pending;
    }
    return pending.finally(end);
  }

  exceptionForCaller(error: unknown): AndroidException | null {
    return providerExceptionForCaller(error);
  }
}

/** Ends a served interval and restores whom the binder thread's task acts for (unnamed: see permissionCheck). */
function servedEnd(
  served: ServedInterval,
  world: { readonly scheduler: { readonly step: number } },
  task: { onBehalfOf: unknown } | null | undefined,
  before: unknown,
): () => void {
  return () => {
    served.untilStep = world.scheduler.step;
    if (task) task.onBehalfOf = before;
  };
}

/**
 * ContentProviderNative.onTransact catches every Exception and writes it with
 * DatabaseUtils.writeExceptionToParcel: codes 1–11 for FileNotFoundException, IllegalArgument,
 * UnsupportedOperation, the SQLite family, OperationApplicationException and
 * OperationCanceledException, anything else through Parcel.writeException. ContentProviderProxy.call
 * reads it with DatabaseUtils.readExceptionFromParcel, which has no case for codes 1 and 10: those
 * become RuntimeException("Unknown exception code: …") (Parcel.readException's default).
 */
const PROVIDER_EXCEPTIONS: readonly (new (message?: string) => AndroidException)[] = [
  IllegalArgumentException,
  UnsupportedOperationException,
  SQLiteAbortException,
  SQLiteConstraintException,
  SQLiteDatabaseCorruptException,
  SQLiteFullException,
  SQLiteDiskIOException,
  SQLiteException,
  OperationCanceledException,
];

export function providerExceptionForCaller(error: unknown): AndroidException | null {
  if (error instanceof FileNotFoundException) return unknownCode(1, error.message);
  if (error instanceof OperationApplicationException) return unknownCode(10, error.message);
  for (const ctor of PROVIDER_EXCEPTIONS) if (error instanceof ctor) return new ctor(error.message);
  return null;
}

function unknownCode(code: number, message: string): AndroidException {
  return new RuntimeException(`Unknown exception code: ${code} msg ${message}`);
}

async function dispatchCall(
  world: ContentHost,
  call: CallRequest,
  record: ContentCallRecord | null,
): Promise<CallOutcome> {
  const { caller, handle, method, arg, extras, stable, attribution } = call;
  const from = caller.process;
  const to = handle.process;
  const claimed = attribution.packageName ?? caller.packageName;
  if (from === to) {
    // In-process: a direct call on the caller's thread with the very same Bundle. Transport.call
    // still sets the calling AttributionSource, so getCallingPackage() is our own package during
    // the synchronous part (with our own UID), as on a device.
    const previous = world.binder.clearCallingIdentity();
    world.binder.restoreCallingIdentity({
      uid: caller.uid,
      pid: caller.pid,
      packageName: claimed,
      attributionTag: attribution.attributionTag ?? null,
    });
    try {
      let pending: Bundle | null | Promise<Bundle | null>;
      try {
        pending = handle.provider.call(handle.authority, method, arg, extras);
      } finally {
        world.binder.restoreCallingIdentity(previous);
      }
      return { reply: await pending };
    } catch (error) {
      return { error: error as Error };
    }
  }
  const requestBytes = contentCallRequestBytes(claimed, handle.authority, method, arg, extras);
  const identity: CallingIdentity = {
    uid: caller.uid,
    pid: caller.pid,
    packageName: claimed,
    attributionTag: attribution.attributionTag ?? null,
  };
  // The Parcel is written now: the callee gets a deep copy, with fds dup'ed into it.
  const delivered = to.isRunning && to.pid === handle.pid ? world.unparcelInto(to, extras) : null;
  const result = await world.binder.transact(
    from,
    to,
    handle.pid,
    method,
    requestBytes,
    identity,
    new ProviderCall(handle, method, arg, delivered, record ? { world, record } : null),
    stable,
  );
  if (result.kind === 'reply') return { reply: result.reply };
  const error = exceptionForResult(result, requestBytes) as Error;
  return result.kind === 'failed' && result.undelivered !== undefined
    ? { error, undelivered: result.undelivered }
    : { error };
}

/** A call's reply, or the exception the caller got (with the callee's answer if it was lost on the way). */
type CallOutcome = { reply: Bundle | null } | { error: RemoteException | Error; undelivered?: Bundle | null };

export class ContentResolver {
  constructor(
    private readonly world: ContentHost,
    private readonly context: ContentCaller,
  ) {}

  /**
   * ContentResolver.call(authority, method, arg, extras) — the stable path. Returns null on any
   * RemoteException; if the provider dies mid-call, the calling process is killed (the awaiting
   * task never resumes).
   */
  async call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
    attribution: Attribution = {},
  ): Promise<Bundle | null> {
    const named = authorityOf(authority) ?? authority; // call(Uri, …) calls call(uri.getAuthority(), …)
    const handle = await acquireProvider(this.world, this.context, named);
    if (!handle) throw new IllegalArgumentException(`Unknown authority ${named}`);
    // The stable reference lives for the call (releaseProvider in finally).
    this.world.connectProvider(this.context.process, handle.process);
    const outcome = await transactCall(this.world, {
      caller: this.context,
      handle,
      method,
      arg,
      extras,
      stable: true,
      attribution,
    });
    this.world.disconnectProvider(this.context.process, handle.process, handle.pid);
    if ('reply' in outcome) return outcome.reply;
    if (outcome.error instanceof RemoteException) return null;
    throw outcome.error;
  }

  /** registerContentObserver(uri, notifyForDescendants, observer): see content-observer.ts. */
  registerContentObserver(uri: string, notifyForDescendants: boolean, observer: ContentObserver): void {
    this.world.observers.register(this.context, uri, notifyForDescendants, observer);
  }

  unregisterContentObserver(observer: ContentObserver): void {
    this.world.observers.unregister(observer);
  }

  /** notifyChange(uri, observer): every matching observer gets a oneway onChange; nobody is awaited. */
  notifyChange(uri: string, observer: ContentObserver | null = null): void {
    this.world.observers.notifyChange(this.context, uri, observer);
  }

  /** acquireUnstableContentProviderClient(authority): null when the authority cannot be acquired. */
  async acquireUnstableContentProviderClient(
    authority: string,
    attribution: Attribution = {},
  ): Promise<ContentProviderClient | null> {
    const handle = await acquireProvider(this.world, this.context, authorityOf(authority) ?? authority);
    if (!handle) return null;
    this.world.connectProvider(this.context.process, handle.process);
    return new ContentProviderClient(this.world, this.context, handle, attribution);
  }
}

/** An unstable ContentProviderClient: provider death is a DeadObjectException, not our death. */
export class ContentProviderClient {
  private released = false;
  private dead = false;

  constructor(
    private readonly world: ContentHost,
    private readonly context: ContentCaller,
    private readonly handle: ProviderHandle,
    private readonly attribution: Attribution = {},
  ) {}

  get authority(): string {
    return this.handle.authority;
  }

  /** Throws DeadObjectException / TransactionTooLargeException / a Parcel-able exception. */
  async call(method: string, arg: string | null, extras: Bundle | null): Promise<Bundle | null> {
    if (this.released) throw new IllegalArgumentException('ContentProviderClient already released');
    if (this.dead) throw new DeadObjectException('provider died; re-acquire the client');
    const outcome = await transactCall(this.world, {
      caller: this.context,
      handle: this.handle,
      method,
      arg,
      extras,
      stable: false,
      attribution: this.attribution,
    });
    if ('reply' in outcome) return outcome.reply;
    if (outcome.error instanceof DeadObjectException && !this.handle.process.isRunning) this.dead = true;
    if (outcome.error instanceof DeadObjectException && this.handle.process.pid !== this.handle.pid)
      this.dead = true;
    throw outcome.error;
  }

  /** ContentProviderClient.close() / release(). */
  close(): void {
    if (this.released) return;
    this.released = true;
    this.world.disconnectProvider(this.context.process, this.handle.process, this.handle.pid);
  }
}
