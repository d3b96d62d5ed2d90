/**
 * The Binder driver's vocabulary (see binder.ts): calling identity, transactions and their results,
 * the parcel sizes of IContentProvider.call, and the exceptions a caller sees for a failed or
 * throwing transaction (Parcel.writeException / readException; android_util_Binder.cpp
 * signalExceptionForError).
 */

import {
  type AndroidException,
  DeadObjectException,
  MESSAGE_ONLY_PARCELABLE_EXCEPTIONS,
  RuntimeException,
  ServiceSpecificException,
  TransactionTooLargeException,
} from '../core/errors.ts';
import type { Waiter } from '../core/scheduler.ts';
import { BINDER_BUFFER_BYTES, type ProcessRecord } from '../process/process.ts';
import type { Bundle } from './bundle.ts';
import { bundleParcelSize, INT_SIZE, string16Size } from './parcel.ts';

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

/** The callee side of a oneway transaction: no reply; what it throws is logged in the callee only. */
export interface OnewayCall {
  invoke(): void | Promise<void>;
}

/** A oneway transaction queued on, or being served by, a binder node of its target. */
export interface OnewayTransaction {
  readonly oneway: true;
  readonly id: number;
  readonly fromName: string;
  readonly to: ProcessRecord;
  readonly node: string;
  readonly label: string;
  readonly requestBytes: number;
  readonly identity: CallingIdentity;
  readonly call: OnewayCall;
}

/** What the sender of a oneway transaction learns at once (it never learns more). */
export type OnewaySendResult = 'sent' | 'dead' | 'failed';

/** binder_alloc.c: oneway transactions may hold at most half of a process's receive buffer. */
export const ASYNC_BUFFER_BYTES = Math.floor(BINDER_BUFFER_BYTES / 2);

export interface Transaction {
  readonly oneway?: never;
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
  /**
   * What the callee's call() returned, once it has (null before): `finish` runs the afterReply hooks
   * of its descriptors. A field of the transaction, not a WeakMap keyed by it: V8's scavenger keeps
   * a WeakMap's values alive while their key is young, so every reply Bundle — a large inline
   * result with it — survived a minor GC and was copied (issue 18).
   */
  returned: Bundle | null;
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

/** The exception the caller sees: same class and message, a fresh object (no shared stack or fields). */
export function recreateInCaller(error: AndroidException): AndroidException {
  if (error instanceof ServiceSpecificException)
    return new ServiceSpecificException(error.errorCode, error.message);
  for (const ctor of MESSAGE_ONLY_PARCELABLE_EXCEPTIONS)
    if (error.constructor === ctor) return new ctor(error.message);
  for (const ctor of MESSAGE_ONLY_PARCELABLE_EXCEPTIONS)
    if (error instanceof ctor) return new ctor(error.message);
  return new RuntimeException(error.message);
}

/** Maps a failed transaction to the exception Java raises: TTLE for big requests, else DeadObject. */
export function exceptionForResult(result: TransactionResult, requestBytes: number): AndroidException | null {
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
