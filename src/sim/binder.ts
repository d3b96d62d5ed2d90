/**
 * The Binder driver, as far as ContentProvider.call() needs it.
 *
 * - Calling identity (d.a.c Binder#getCallingUid): set only while the incoming call's handler runs
 *   synchronously on its Binder thread. Once the handler awaits, whatever runs next — on any task —
 *   sees no incoming transaction, so getCallingUid() returns the process's own UID.
 * - Threads (ProcessState.cpp): at most 16 transactions are served at once per process; more queue.
 * - Buffer (binder_alloc.c): each process has a 1 MiB − 8 KiB receive buffer shared by all in-flight
 *   transactions; a request is held in the callee's buffer until served, a reply in the caller's
 *   until read. A transaction that does not fit fails with FAILED_TRANSACTION, which Java reports as
 *   TransactionTooLargeException when the *request* parcel is over 200 KB and as DeadObjectException
 *   otherwise — so an oversized reply to a small request surfaces as DeadObjectException
 *   (android_util_Binder.cpp signalExceptionForError; the reply case is an inference).
 * - Exceptions (Parcel.writeException): only the Parcel-able types reach the caller, as a new
 *   exception of the same class and message; an interface may carry more (IncomingCall
 *   `exceptionForCaller`: ContentProviderNative's DatabaseUtils.writeExceptionToParcel). Anything
 *   else makes writeException rethrow; Binder.execTransactInternal clears the reply, tries again,
 *   rethrows; JavaBBinder::onTransact logs "*** Uncaught remote exception!" and returns
 *   UNKNOWN_TRANSACTION — the callee process SURVIVES — and the caller's BinderProxy.transact
 *   returns false, so the proxy reads an empty reply parcel: no exception code, an empty Bundle
 *   (Parcel.readBundle of length 0) (Binder.java, android_util_Binder.cpp).
 * - Writing the reply fails when a file descriptor in it is already closed: Parcel.writeDupFileDescriptor
 *   gets EBADF and android_os_Parcel_writeFileDescriptor throws RuntimeException("Bad file
 *   descriptor") inside onTransact, which takes the path above — logged in the callee, an empty
 *   Bundle for the caller; no crash (the simulation used to kill the provider, and its stable callers).
 * - Death: a transaction to a dead process, or whose callee dies before replying, fails with
 *   DeadObjectException; a reply to a caller that died meanwhile is dropped. Liveness is per process
 *   *instance* (pid): the kernel's binder_proc of the dead caller is gone with it, so a reply (and
 *   the fds inside it) is never delivered into a restarted successor of the same package, and a
 *   stable reference held by a dead instance does not make AMS kill its successor.
 * - Faults: a lost reply (the callee finished — its effects happened — but the reply failed) and a
 *   failed transaction (the request never arrived) both surface as FAILED_TRANSACTION.
 */
import { Bundle } from './bundle.ts';
import {
  type AndroidException,
  BadParcelableException,
  DeadObjectException,
  describeError,
  IllegalArgumentException,
  IllegalStateException,
  isParcelableException,
  NetworkOnMainThreadException,
  NullPointerException,
  RuntimeException,
  SecurityException,
  ServiceSpecificException,
  TransactionTooLargeException,
  UnsupportedOperationException,
} from './errors.ts';
import type { FaultInjector } from './faults.ts';
import { bundleParcelSize, fileDescriptorsIn, INT_SIZE, string16Size } from './parcel.ts';
import { BINDER_BUFFER_BYTES, MAX_BINDER_THREADS, type ProcessRecord } from './process.ts';
import type { Scheduler, Waiter } from './scheduler.ts';
import type { LogLevel, Trace } from './trace.ts';

/**
 * What the Binder driver needs of the world, passed in (the World implements it): the trace, the
 * scheduler, the two transaction faults, who is running now, thawing a frozen callee, logging, and
 * delivering a parcel's contents into a process.
 */
export interface BinderHost {
  readonly trace: Trace;
  readonly scheduler: Scheduler;
  readonly faults: Pick<FaultInjector, 'takeTransactionFailure' | 'takeLostReply'>;
  currentUid(): number;
  currentPid(): number;
  thaw(proc: ProcessRecord, reason: string): void;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
  unparcelInto(proc: ProcessRecord, bundle: Bundle | null): Bundle | null;
}

/** Requests above this size that fail are reported as TransactionTooLargeException. */
export const TTLE_REQUEST_THRESHOLD_BYTES = 200 * 1024;

export interface CallingIdentity {
  readonly uid: number;
  readonly pid: number;
  /** The package the caller claims (AttributionSource): verified by getCallingPackage() only. */
  readonly packageName: string | null;
  readonly attributionTag: string | null;
}

/** What the caller's blocked task is woken with. */
export type TransactionResult =
  | { readonly kind: 'reply'; readonly reply: Bundle | null; readonly bytes: number }
  | { readonly kind: 'exception'; readonly error: AndroidException }
  /**
   * The transaction failed. `undelivered` is the callee's answer when it did answer but the reply
   * never reached the caller (a lost reply, a full caller buffer): the callee's side of the story,
   * for oracles — the caller sees only the failure.
   */
  | { readonly kind: 'failed'; readonly undelivered?: Bundle | null }
  | { readonly kind: 'dead' };

/** The callee side of a transaction: runs on a Binder thread of the target process. */
export interface IncomingCall {
  /** Unparcels the request into the callee and invokes the handler; its synchronous part runs with the caller's identity. */
  invoke(): Bundle | null | Promise<Bundle | null>;
  /**
   * The exception the caller reads when the handler throws `error`, for interfaces that write more
   * than Parcel.writeException can (ContentProviderNative); null to leave it to Parcel.writeException.
   */
  exceptionForCaller?(error: unknown): AndroidException | null;
}

export interface Transaction {
  readonly id: number;
  readonly from: ProcessRecord;
  /** The calling process instance: its reply goes to this pid or nowhere. */
  readonly fromPid: number;
  readonly to: ProcessRecord;
  /** Incarnation (pid) of the callee the caller's reference points to. */
  readonly toPid: number;
  readonly label: string;
  readonly requestBytes: number;
  readonly identity: CallingIdentity;
  readonly call: IncomingCall;
  readonly waiter: Waiter<TransactionResult>;
  /** Whether the caller holds a stable provider reference for the call (ContentResolver.call). */
  readonly stable: boolean;
  done: boolean;
}

/** Fixed per-call overhead of IContentProvider.call: interface token and AttributionSource (approximate). */
export function contentCallRequestBytes(
  callerPackage: string,
  authority: string,
  method: string,
  arg: string | null,
  extras: Bundle | null,
): number {
  const interfaceToken = 3 * INT_SIZE + string16Size('android.content.IContentProvider');
  const attributionSource = 4 * INT_SIZE + string16Size(callerPackage) + string16Size(null) + 24;
  return (
    interfaceToken +
    attributionSource +
    string16Size(authority) +
    string16Size(method) +
    string16Size(arg) +
    bundleParcelSize(extras)
  );
}

/** Reply parcel: exception header (0 = none) + the Bundle. */
export function contentCallReplyBytes(reply: Bundle | null): number {
  return INT_SIZE + bundleParcelSize(reply);
}

type ExceptionCtor = new (message?: string) => AndroidException;
const RECREATE: readonly ExceptionCtor[] = [
  SecurityException,
  BadParcelableException,
  IllegalArgumentException,
  NullPointerException,
  IllegalStateException,
  NetworkOnMainThreadException,
  UnsupportedOperationException,
];

/** The exception the caller sees: same class and message, a fresh object (no shared stack or fields). */
function recreateInCaller(error: AndroidException): AndroidException {
  if (error instanceof ServiceSpecificException)
    return new ServiceSpecificException(error.errorCode, error.message);
  for (const ctor of RECREATE) if (error.constructor === ctor) return new ctor(error.message);
  for (const ctor of RECREATE) if (error instanceof ctor) return new ctor(error.message);
  return new RuntimeException(error.message);
}

/** Whether the process that sent `tx` is still that very instance (not dead, not restarted since). */
function isSameInstance(tx: Transaction): boolean {
  return tx.from.isAlive && tx.from.pid === tx.fromPid;
}

export class BinderDriver {
  private nextTxId = 1;
  private incoming: CallingIdentity | null = null;
  private readonly inFlight = new Set<Transaction>();
  private readonly queues = new Map<ProcessRecord, Transaction[]>();
  private threadSerial = 0;

  constructor(private readonly world: BinderHost) {}

  // ---- calling identity ----

  /** Binder.getCallingUid(): the caller's UID during the synchronous part of an incoming call, else our own. */
  getCallingUid(): number {
    return this.incoming?.uid ?? this.world.currentUid();
  }

  getCallingPid(): number {
    return this.incoming?.pid ?? this.world.currentPid();
  }

  /** The full incoming identity, or null when not inside the synchronous part of an incoming call. */
  getCallingIdentity(): CallingIdentity | null {
    return this.incoming;
  }

  /** Binder.clearCallingIdentity(): reset to our own identity; returns a token to restore. */
  clearCallingIdentity(): CallingIdentity | null {
    const token = this.incoming;
    this.incoming = null;
    return token;
  }

  restoreCallingIdentity(token: CallingIdentity | null): void {
    this.incoming = token;
  }

  // ---- transactions ----

  /**
   * Sends a transaction and blocks the calling task until it completes. Never throws: the caller
   * maps the result to Android's exceptions (see `throwForResult`).
   */
  async transact(
    from: ProcessRecord,
    to: ProcessRecord,
    toPid: number,
    label: string,
    requestBytes: number,
    identity: CallingIdentity,
    call: IncomingCall,
    stable: boolean,
  ): Promise<TransactionResult> {
    const world = this.world;
    const id = this.nextTxId++;
    const trace = { from: from.name, to: to.name, txn: id, method: label, bytes: requestBytes };
    if (!to.isRunning || to.pid !== toPid) {
      world.trace.record('binder.dead', { ...trace, reason: 'callee process is not running' });
      return { kind: 'dead' };
    }
    if (world.faults.takeTransactionFailure(from.name, to.name)) {
      world.trace.record('binder.failed', { ...trace, reason: 'fault: failed transaction' });
      return { kind: 'failed' };
    }
    if (to.bufferUsed + requestBytes > BINDER_BUFFER_BYTES) {
      world.trace.record('binder.failed', {
        ...trace,
        reason: `callee buffer full (${to.bufferUsed} + ${requestBytes} > ${BINDER_BUFFER_BYTES})`,
      });
      return { kind: 'failed' };
    }
    to.bufferUsed += requestBytes;
    world.thaw(to, 'binder transaction');
    const waiter = world.scheduler.waiter<TransactionResult>(
      `binder reply ${label} from ${to.name} (txn ${id})`,
    );
    const tx: Transaction = {
      id,
      from,
      fromPid: from.pid ?? -1,
      to,
      toPid,
      label,
      requestBytes,
      identity,
      call,
      waiter,
      stable,
      done: false,
    };
    this.inFlight.add(tx);
    world.trace.record('binder.call', trace);
    if (to.busyBinderThreads < MAX_BINDER_THREADS) this.startBinderThread(tx);
    else this.queueOf(to).push(tx);
    const result = await waiter.wait();
    if (result.kind === 'reply') from.bufferUsed = Math.max(0, from.bufferUsed - result.bytes);
    return result;
  }

  /** Maps a failed transaction to the exception Java raises: TTLE for big requests, else DeadObject. */
  static exceptionFor(result: TransactionResult, requestBytes: number): AndroidException | null {
    switch (result.kind) {
      case 'reply':
        return null;
      case 'exception':
        return result.error;
      case 'dead':
        return new DeadObjectException('remote process is dead');
      case 'failed':
        return requestBytes > TTLE_REQUEST_THRESHOLD_BYTES
          ? new TransactionTooLargeException(`data parcel size ${requestBytes} bytes`)
          : new DeadObjectException('Transaction failed on small parcel; remote process probably died');
    }
  }

  /** Called by the world when `proc` dies: fail everything it was serving or had queued. */
  onProcessDied(proc: ProcessRecord): ProcessRecord[] {
    const stableCallers: ProcessRecord[] = [];
    this.queues.delete(proc);
    for (const tx of [...this.inFlight]) {
      if (tx.to === proc && !tx.done) {
        this.complete(tx, { kind: 'dead' }, 'callee died');
        if (tx.stable && isSameInstance(tx) && tx.from !== proc) stableCallers.push(tx.from);
      } else if (tx.from === proc && !tx.done && tx.to.isAlive) {
        // The callee keeps serving; its reply will be dropped.
      }
    }
    return stableCallers;
  }

  private queueOf(proc: ProcessRecord): Transaction[] {
    let q = this.queues.get(proc);
    if (!q) {
      q = [];
      this.queues.set(proc, q);
    }
    return q;
  }

  private startBinderThread(first: Transaction): void {
    const to = first.to;
    to.busyBinderThreads++;
    const threadName = `binder:${to.name}#${++this.threadSerial}`;
    this.world.scheduler.spawn(
      threadName,
      async () => {
        let tx: Transaction | undefined = first;
        while (tx) {
          await this.serve(tx);
          tx = this.queues.get(to)?.shift();
        }
        to.busyBinderThreads--;
      },
      { owner: to.name },
    );
  }

  private async serve(tx: Transaction): Promise<void> {
    const world = this.world;
    let reply: Bundle | null = null;
    let thrown: { error: unknown } | null = null;
    const previous = this.incoming;
    // binder_thread_read: sender_pid is read when the transaction is picked up; a caller that died
    // meanwhile (its binder thread gone) yields 0 (kernel binder.c; d.a.c Binder#getCallingPid).
    this.incoming = isSameInstance(tx) ? tx.identity : { ...tx.identity, pid: 0 };
    let pending: Bundle | null | Promise<Bundle | null>;
    try {
      pending = tx.call.invoke();
    } catch (error) {
      thrown = { error };
      pending = null;
    } finally {
      this.incoming = previous;
    }
    if (!thrown) {
      try {
        reply = await pending;
      } catch (error) {
        thrown = { error };
      }
    }
    const to = tx.to;
    to.bufferUsed = Math.max(0, to.bufferUsed - tx.requestBytes);
    if (tx.done) return;
    const base = { from: to.name, to: tx.from.name, txn: tx.id, method: tx.label };
    if (!thrown && fileDescriptorsIn(reply).some((pfd) => pfd.isClosed)) {
      // reply.writeBundle: dup of a closed fd fails with EBADF (android_util_Binder.cpp -EBADF).
      thrown = { error: new RuntimeException('Bad file descriptor') };
    }
    if (thrown) {
      const forCaller =
        tx.call.exceptionForCaller?.(thrown.error) ??
        (isParcelableException(thrown.error) ? recreateInCaller(thrown.error) : null);
      if (forCaller) {
        world.trace.record('binder.exception', { ...base, exception: describeError(thrown.error) });
        this.complete(tx, { kind: 'exception', error: forCaller }, null);
        return;
      }
      world.log(to, 'E', 'JavaBinder', `*** Uncaught remote exception!  ${describeError(thrown.error)}`);
      world.trace.record('binder.uncaught', {
        ...base,
        actor: to.name,
        exception: describeError(thrown.error),
      });
      reply = new Bundle();
    }
    if (!isSameInstance(tx)) {
      world.trace.record('binder.reply.dropped', { ...base, reason: 'caller process died' });
      this.finish(tx);
      return;
    }
    const replyBytes = contentCallReplyBytes(reply);
    if (world.faults.takeLostReply(to.name, tx.from.name)) {
      world.trace.record('binder.reply.lost', { ...base, bytes: replyBytes, reason: 'fault: lost reply' });
      this.complete(tx, { kind: 'failed', undelivered: reply }, null);
      return;
    }
    if (tx.from.bufferUsed + replyBytes > BINDER_BUFFER_BYTES) {
      world.trace.record('binder.reply.failed', {
        ...base,
        bytes: replyBytes,
        reason: `caller buffer full (${tx.from.bufferUsed} + ${replyBytes} > ${BINDER_BUFFER_BYTES})`,
      });
      this.complete(tx, { kind: 'failed', undelivered: reply }, null);
      return;
    }
    tx.from.bufferUsed += replyBytes;
    const delivered = world.unparcelInto(tx.from, reply);
    // `base` is this transaction's own record: the reply event takes it over (no copy).
    world.trace.record('binder.reply', Object.assign(base, { bytes: replyBytes }));
    this.complete(tx, { kind: 'reply', reply: delivered, bytes: replyBytes }, null);
  }

  private complete(tx: Transaction, result: TransactionResult, reason: string | null): void {
    if (tx.done) return;
    if (reason !== null) {
      this.world.trace.record('binder.dead', {
        from: tx.from.name,
        to: tx.to.name,
        txn: tx.id,
        method: tx.label,
        reason,
      });
    }
    this.finish(tx);
    tx.waiter.wake(result);
  }

  private finish(tx: Transaction): void {
    tx.done = true;
    this.inFlight.delete(tx);
  }
}
