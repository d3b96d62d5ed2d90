/**
 * The Binder driver, as far as ContentProvider.call() needs it.
 *
 * - Calling identity (d.a.c Binder#getCallingUid): set only while the incoming call's handler runs
 *   synchronously on its Binder thread. Once the handler awaits, whatever runs next — on any task —
 *   sees no incoming transaction, so getCallingUid() returns the process's own UID.
 * - Threads (ProcessState.cpp): at most 16 transactions are served at once per process; more queue.
 * - Buffer (binder_alloc.c): each process has a 1 MiB − 2 pages receive buffer (release.ts: 4 or 16
 *   KiB pages) shared by all in-flight transactions; a request is held in the callee's buffer until served, a reply in the caller's
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
 * - Writing the reply fails when a file descriptor in it is already closed (EBADF in
 *   Parcel.writeDupFileDescriptor → RuntimeException("Bad file descriptor") inside onTransact): the
 *   path above — logged in the callee, an empty Bundle for the caller, no crash.
 * - Death: a transaction to a dead process, or whose callee dies before replying, fails with
 *   DeadObjectException; a reply to a caller that died meanwhile is dropped. Liveness is per process
 *   *instance* (pid): the kernel's binder_proc of the dead caller is gone with it, so a reply (and
 *   the fds inside it) is never delivered into a restarted successor of the same package, and a
 *   stable reference held by a dead instance does not make AMS kill its successor.
 * - Faults: a lost reply (the callee finished — its effects happened — but the reply failed) and a
 *   failed transaction (the request never arrived) both surface as FAILED_TRANSACTION.
 * - Oneway transactions (FLAG_ONEWAY; `sendOneway`), e.g. IContentObserver.onChange
 *   (core/java/android/database/IContentObserver.aidl: `oneway void onChange`):
 *   - the sender does not block and gets no reply: only a dead target (DeadObjectException) or a
 *     failed transaction is reported, synchronously;
 *   - the kernel sets no `t->from` for a oneway transaction, so binder_thread_read hands the callee
 *     sender_pid 0: getCallingPid() is 0 (the UID is still the sender's) (kernel binder.c);
 *   - oneway transactions to the same binder node are delivered one at a time, in order: while one
 *     is outstanding (node->has_async_transaction) the next waits in node->async_todo until the
 *     first's buffer is freed, i.e. its onTransact returned (binder.c binder_proc_transaction /
 *     binder_free_buf). Different nodes of one process still run on parallel binder threads;
 *   - they may use only half of the receive buffer (binder_alloc.c free_async_space = size / 2);
 *   - one sent to a frozen process (the cached-app freezer) does not thaw it: the kernel queues it
 *     and answers BR_TRANSACTION_PENDING_FROZEN, libbinder (IPCThreadState::waitForResponse) logs
 *     "Sending oneway calls to frozen process." and reports success; it runs once the process is
 *     unfrozen (binder.c binder_proc_transaction). Two-way calls: release.ts `frozenCalleeFails`;
 *   - an exception thrown by the callee goes nowhere: Binder.execTransactInternal logs it
 *     ("Caught a RuntimeException from the binder stub implementation.") when FLAG_ONEWAY is set
 *     instead of writing it into a reply; the callee survives and the sender never learns.
 */

import { describeError, isParcelableException, RuntimeException } from '../core/errors.ts';
import type { FaultInjector } from '../core/faults.ts';
import type { ReleaseProfile } from '../core/release.ts';
import type { Scheduler } from '../core/scheduler.ts';
import type { LogLevel, Trace } from '../core/trace.ts';
import type { ParcelFileDescriptor } from '../fd/fd.ts';
import { MAX_BINDER_THREADS, type ProcessRecord } from '../process/process.ts';
import {
  type CallingIdentity,
  contentCallReplyBytes,
  type IncomingCall,
  type OnewayCall,
  type OnewaySendResult,
  type OnewayTransaction,
  recreateInCaller,
  type Transaction,
  type TransactionResult,
} from './binder-types.ts';
import { Bundle } from './bundle.ts';
import { fileDescriptorsIn } from './parcel.ts';

export {
  ASYNC_BUFFER_BYTES,
  type CallingIdentity,
  contentCallReplyBytes,
  contentCallRequestBytes,
  type IncomingCall,
  type OnewayCall,
  type OnewaySendResult,
  type Transaction,
  type TransactionResult,
  TTLE_REQUEST_THRESHOLD_BYTES,
} from './binder-types.ts';

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
  /** The release's switches: buffer size, whether a frozen callee fails two-way calls (release.ts). */
  readonly release: Pick<ReleaseProfile, 'binderBufferBytes' | 'asyncBufferBytes' | 'frozenCalleeFails'>;
  log(proc: ProcessRecord | null, level: LogLevel, tag: string, message: string): void;
  unparcelInto(proc: ProcessRecord, bundle: Bundle | null): Bundle | null;
}

/** Whether the process that sent `tx` is still that very instance (not dead, not restarted since). */
function isSameInstance(tx: Transaction): boolean {
  return tx.from.isAlive && tx.from.pid === tx.fromPid;
}

export class BinderDriver {
  private nextTxId = 1;
  private incoming: CallingIdentity | null = null;
  /** What to run once a reply carrying a descriptor is done with (see afterReply). */
  private readonly onReplyDone = new WeakMap<ParcelFileDescriptor, (() => void)[]>();
  private readonly inFlight = new Set<Transaction>();
  private readonly queues = new Map<ProcessRecord, (Transaction | OnewayTransaction)[]>();
  private threadSerial = 0;
  /** Per target process: each binder node's async_todo (the head is the one outstanding). */
  private readonly asyncTodo = new Map<ProcessRecord, Map<string, OnewayTransaction[]>>();
  /** Per target process: bytes of its buffer held by oneway transactions (free_async_space). */
  private readonly asyncBytes = new Map<ProcessRecord, number>();

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
    const bufferBytes = world.release.binderBufferBytes;
    if (to.bufferUsed + requestBytes > bufferBytes) {
      world.trace.record('binder.failed', {
        ...trace,
        reason: `callee buffer full (${to.bufferUsed} + ${requestBytes} > ${bufferBytes})`,
      });
      return { kind: 'failed' };
    }
    if (world.release.frozenCalleeFails && world.scheduler.isFrozen(to.name)) {
      world.log(from, 'W', 'IPCThreadState', 'Transaction failed because process frozen.');
      world.trace.record('binder.failed', { ...trace, reason: 'callee frozen (BR_FROZEN_REPLY)' });
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
      returned: null,
    };
    this.inFlight.add(tx);
    world.trace.record('binder.call', trace);
    this.dispatch(tx);
    const result = await waiter.wait();
    if (result.kind === 'reply') from.bufferUsed = Math.max(0, from.bufferUsed - result.bytes);
    return result;
  }

  /**
   * Sends a oneway transaction to binder node `node` of `to` (pid `toPid`) and returns at once: the
   * sender never blocks and never sees a reply or an exception of the callee. `from` names the
   * sender for the trace ('system' for system_server). See the header for the rules.
   */
  sendOneway(
    from: string,
    to: ProcessRecord,
    toPid: number,
    node: string,
    label: string,
    requestBytes: number,
    identity: CallingIdentity,
    call: OnewayCall,
  ): OnewaySendResult {
    const world = this.world;
    const id = this.nextTxId++;
    const trace = { from, to: to.name, txn: id, method: label, bytes: requestBytes, oneway: true };
    if (!to.isRunning || to.pid !== toPid) {
      world.trace.record('binder.dead', { ...trace, reason: 'callee process is not running' });
      return 'dead';
    }
    // The failed-transaction and lost-reply faults stay aimed at the two-way CETP calls.
    const asyncUsed = this.asyncBytes.get(to) ?? 0;
    const { binderBufferBytes, asyncBufferBytes } = world.release;
    if (to.bufferUsed + requestBytes > binderBufferBytes || asyncUsed + requestBytes > asyncBufferBytes) {
      world.trace.record('binder.failed', {
        ...trace,
        reason: `callee async buffer full (${asyncUsed} + ${requestBytes} > ${asyncBufferBytes})`,
      });
      return 'failed';
    }
    to.bufferUsed += requestBytes;
    this.asyncBytes.set(to, asyncUsed + requestBytes);
    // No thaw: a oneway transaction to a frozen process is queued (BR_TRANSACTION_PENDING_FROZEN)
    // and runs when the process is unfrozen; the sender's libbinder only warns.
    const frozen = world.scheduler.isFrozen(to.name);
    if (frozen) world.log(null, 'W', 'IPCThreadState', 'Sending oneway calls to frozen process.');
    const tx: OnewayTransaction = {
      oneway: true,
      id,
      fromName: from,
      to,
      node,
      label,
      requestBytes,
      // No t->from for oneway: the callee reads sender_pid 0.
      identity: { ...identity, pid: 0 },
      call,
    };
    let nodes = this.asyncTodo.get(to);
    if (!nodes) {
      nodes = new Map();
      this.asyncTodo.set(to, nodes);
    }
    const todo = nodes.get(node);
    world.trace.record('binder.oneway', { ...trace, node, queued: todo !== undefined, frozen });
    if (todo) todo.push(tx);
    else {
      nodes.set(node, [tx]);
      this.dispatch(tx);
    }
    return 'sent';
  }

  /** Hands a transaction to a free binder thread of its target, or queues it for the next one. */
  private dispatch(tx: Transaction | OnewayTransaction): void {
    if (tx.to.busyBinderThreads < MAX_BINDER_THREADS) this.startBinderThread(tx);
    else this.queueOf(tx.to).push(tx);
  }

  private async serveOneway(tx: OnewayTransaction): Promise<void> {
    const world = this.world;
    const to = tx.to;
    const previous = this.incoming;
    this.incoming = tx.identity;
    let thrown: { error: unknown } | null = null;
    let pending: unknown;
    try {
      pending = tx.call.invoke();
    } catch (error) {
      thrown = { error };
    } finally {
      this.incoming = previous;
    }
    if (!thrown) {
      try {
        await pending;
      } catch (error) {
        thrown = { error };
      }
    }
    if (thrown) {
      // Binder.execTransactInternal with FLAG_ONEWAY: logged, no reply to write it into.
      world.log(
        to,
        'W',
        'Binder',
        `Caught a RuntimeException from the binder stub implementation. ${describeError(thrown.error)}`,
      );
      world.trace.record('binder.oneway.exception', {
        from: to.name,
        to: tx.fromName,
        txn: tx.id,
        method: tx.label,
        actor: to.name,
        exception: describeError(thrown.error),
      });
    }
    // The buffer is freed when onTransact returned: the node's next oneway transaction may go.
    to.bufferUsed = Math.max(0, to.bufferUsed - tx.requestBytes);
    this.asyncBytes.set(to, Math.max(0, (this.asyncBytes.get(to) ?? 0) - tx.requestBytes));
    const nodes = this.asyncTodo.get(to);
    const todo = nodes?.get(tx.node);
    if (!nodes || !todo) return;
    todo.shift();
    const next = todo[0];
    if (next) this.dispatch(next);
    else nodes.delete(tx.node);
  }

  /** Called by the world when `proc` dies: fail everything it was serving or had queued. */
  onProcessDied(proc: ProcessRecord): ProcessRecord[] {
    const stableCallers: ProcessRecord[] = [];
    this.queues.delete(proc);
    // Oneway transactions to it are gone with its buffer: nobody waits for them.
    this.asyncTodo.delete(proc);
    this.asyncBytes.delete(proc);
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

  private queueOf(proc: ProcessRecord): (Transaction | OnewayTransaction)[] {
    let q = this.queues.get(proc);
    if (!q) {
      q = [];
      this.queues.set(proc, q);
    }
    return q;
  }

  private startBinderThread(first: Transaction | OnewayTransaction): void {
    const to = first.to;
    to.busyBinderThreads++;
    const threadName = `binder:${to.name}#${++this.threadSerial}`;
    this.world.scheduler.spawn(
      threadName,
      async () => {
        let tx: Transaction | OnewayTransaction | undefined = first;
        while (tx) {
          if (tx.oneway) await this.serveOneway(tx);
          else await this.serve(tx);
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
    if (reply) tx.returned = reply;
    const to = tx.to;
    to.bufferUsed = Math.max(0, to.bufferUsed - tx.requestBytes);
    if (tx.done) return;
    const base = { from: to.name, to: tx.from.name, txn: tx.id, method: tx.label };
    // reply.writeBundle: dup of a closed fd fails with EBADF (android_util_Binder.cpp -EBADF).
    if (!thrown && fileDescriptorsIn(reply).some((pfd) => pfd.isClosed))
      thrown = { error: new RuntimeException('Bad file descriptor') };
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
    const bufferBytes = this.world.release.binderBufferBytes;
    if (tx.from.bufferUsed + replyBytes > bufferBytes) {
      world.trace.record('binder.reply.failed', {
        ...base,
        bytes: replyBytes,
        reason: `caller buffer full (${tx.from.bufferUsed} + ${replyBytes} > ${bufferBytes})`,
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
    const reply = tx.returned;
    if (reply) for (const pfd of fileDescriptorsIn(reply)) for (const run of this.takeReplyDone(pfd)) run();
  }

  /**
   * Runs `run` once a reply carrying `pfd` has been written to its caller — or dropped, lost or
   * refused: the moment a provider may close its own copy of a descriptor it returns (what
   * ParcelFileDescriptor.PARCELABLE_WRITE_RETURN_VALUE does for a return value).
   */
  afterReply(pfd: ParcelFileDescriptor, run: () => void): void {
    this.onReplyDone.set(pfd, [...(this.onReplyDone.get(pfd) ?? []), run]);
  }

  private takeReplyDone(pfd: ParcelFileDescriptor): (() => void)[] {
    const runs = this.onReplyDone.get(pfd) ?? [];
    this.onReplyDone.delete(pfd);
    return runs;
  }
}
