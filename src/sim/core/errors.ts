/**
 * Errors, in two families that never mix (docs/design.md "Errors"):
 * - SimUsageError: the harness itself was misused (a local error, a bug in the test or the caller);
 * - AndroidException and subclasses: simulated Java exceptions, thrown only where Android throws
 *   them, carrying the Java class name so traces and checkers can name them exactly.
 */

export class SimUsageError extends Error {
  override readonly name = 'SimUsageError';
}

export class AndroidException extends Error {
  /** Fully qualified Java class name of the simulated exception. */
  readonly javaClass: string = 'java.lang.Exception';
  override get name(): string {
    return this.javaClass.slice(this.javaClass.lastIndexOf('.') + 1);
  }
}

export class RuntimeException extends AndroidException {
  override readonly javaClass: string = 'java.lang.RuntimeException';
}
export class SecurityException extends RuntimeException {
  override readonly javaClass: string = 'java.lang.SecurityException';
}
export class IllegalArgumentException extends RuntimeException {
  override readonly javaClass: string = 'java.lang.IllegalArgumentException';
}
export class IllegalStateException extends RuntimeException {
  override readonly javaClass: string = 'java.lang.IllegalStateException';
}
export class NullPointerException extends RuntimeException {
  override readonly javaClass: string = 'java.lang.NullPointerException';
}
export class UnsupportedOperationException extends RuntimeException {
  override readonly javaClass: string = 'java.lang.UnsupportedOperationException';
}
export class BadParcelableException extends RuntimeException {
  override readonly javaClass: string = 'android.os.BadParcelableException';
}
export class NetworkOnMainThreadException extends RuntimeException {
  override readonly javaClass: string = 'android.os.NetworkOnMainThreadException';
}
export class ServiceSpecificException extends RuntimeException {
  override readonly javaClass: string = 'android.os.ServiceSpecificException';
  constructor(
    readonly errorCode: number,
    message?: string,
  ) {
    super(message);
  }
}

export class RemoteException extends AndroidException {
  override readonly javaClass: string = 'android.os.RemoteException';
}
/** The remote process died, or the transaction failed on a small parcel (buffer full, oversized reply). */
export class DeadObjectException extends RemoteException {
  override readonly javaClass: string = 'android.os.DeadObjectException';
}
/** The transaction failed and its request parcel was larger than 200 KB. */
export class TransactionTooLargeException extends RemoteException {
  override readonly javaClass: string = 'android.os.TransactionTooLargeException';
}

export class IOException extends AndroidException {
  override readonly javaClass: string = 'java.io.IOException';
}
export class FileNotFoundException extends IOException {
  override readonly javaClass: string = 'java.io.FileNotFoundException';
}

/** The SQLite family, which ContentProviderNative carries back to the caller (DatabaseUtils). */
export class SQLiteException extends RuntimeException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteException';
}
export class SQLiteAbortException extends SQLiteException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteAbortException';
}
export class SQLiteConstraintException extends SQLiteException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteConstraintException';
}
export class SQLiteDatabaseCorruptException extends SQLiteException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteDatabaseCorruptException';
}
export class SQLiteFullException extends SQLiteException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteFullException';
}
export class SQLiteDiskIOException extends SQLiteException {
  override readonly javaClass: string = 'android.database.sqlite.SQLiteDiskIOException';
}
export class OperationCanceledException extends RuntimeException {
  override readonly javaClass: string = 'android.os.OperationCanceledException';
}
/** A checked exception (applyBatch); call() has no reader for its code. */
export class OperationApplicationException extends AndroidException {
  override readonly javaClass: string = 'android.content.OperationApplicationException';
}

/** The parcelable exceptions that cross as a class and a message alone (all but ServiceSpecificException, which carries a code). */
export const MESSAGE_ONLY_PARCELABLE_EXCEPTIONS: readonly (new (message?: string) => AndroidException)[] = [
  SecurityException,
  BadParcelableException,
  IllegalArgumentException,
  NullPointerException,
  IllegalStateException,
  NetworkOnMainThreadException,
  UnsupportedOperationException,
];

/**
 * Exception types that Parcel.writeException can carry back to the caller (Parcel.java javadoc);
 * anything else thrown by a Binder call is not delivered (the callee logs "*** Uncaught remote
 * exception!" and the caller sees an empty reply).
 */
const PARCELABLE_EXCEPTIONS: readonly (abstract new (...args: never[]) => AndroidException)[] = [
  ...MESSAGE_ONLY_PARCELABLE_EXCEPTIONS,
  ServiceSpecificException,
];

export function isParcelableException(error: unknown): error is AndroidException {
  return PARCELABLE_EXCEPTIONS.some((type) => error instanceof type);
}

/** A short, stable description of any thrown value for traces (no stack). */
export function describeError(error: unknown): string {
  if (error instanceof AndroidException) return `${error.javaClass}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
