/**
 * Parcel size accounting and marshalling of Bundles across Binder (frameworks/native Parcel.cpp,
 * BaseBundle.writeToParcelInner, Parcel.writeValue).
 *
 * A Bundle crossing Binder is written to a Parcel and read back in the receiver: a deep copy, so no
 * object is shared between processes. Sizes follow Android's encoding closely enough to reproduce
 * its limits: int32 fields are 4 bytes, longs 8, String16 is a 4-byte length + UTF-16 code units
 * + NUL padded to 4 (null = 4 bytes), a Binder object (PendingIntent token, file descriptor) is a
 * 24-byte flat_binder_object. A Bundle is length + 'BNDL' magic + count + (key, type tag, value)*.
 * Parcelables are written with their class name and (API 33+ lazy bundles) a length prefix.
 */

import type { ParcelFileDescriptor } from '../fd/fd.ts';
import { Bundle, type BundleEntry } from './bundle.ts';

export const INT_SIZE = 4;
export const LONG_SIZE = 8;
/** flat_binder_object on a 64-bit kernel. */
export const BINDER_OBJECT_SIZE = 24;

export function pad4(n: number): number {
  return (n + 3) & ~3;
}

/** Parcel.writeString16: int32 length, UTF-16 code units plus NUL, padded to 4; null is 4 bytes. */
export function string16Size(s: string | null): number {
  return s === null ? INT_SIZE : INT_SIZE + pad4(2 * (s.length + 1));
}

const PENDING_INTENT_CLASS = 'android.app.PendingIntent';
const PFD_CLASS = 'android.os.ParcelFileDescriptor';

function parcelableSize(className: string, body: number): number {
  // VAL_PARCELABLE tag is counted by the caller; length prefix + class name + body.
  return INT_SIZE + string16Size(className) + body;
}

function entrySize(e: BundleEntry): number {
  // Every value starts with its int32 VAL_* type tag; a null value is just VAL_NULL.
  switch (e.type) {
    case 'Int':
    case 'Boolean':
      return INT_SIZE + INT_SIZE;
    case 'Long':
      return INT_SIZE + LONG_SIZE;
    case 'String':
      return e.value === null ? INT_SIZE : INT_SIZE + string16Size(e.value);
    case 'IntArray':
      return e.value === null ? INT_SIZE : INT_SIZE + INT_SIZE + INT_SIZE * e.value.length;
    case 'Bundle':
      return e.value === null ? INT_SIZE : INT_SIZE + bundleParcelSize(e.value);
    case 'PendingIntent':
      return e.value === null
        ? INT_SIZE
        : INT_SIZE + parcelableSize(PENDING_INTENT_CLASS, BINDER_OBJECT_SIZE);
    case 'Parcelable':
      return e.value === null
        ? INT_SIZE
        : INT_SIZE + parcelableSize(e.value.className, string16Size(JSON.stringify(e.value.fields)));
    case 'ParcelFileDescriptor':
      // writeInt(hasCommChannel) + the fd object (+ the comm fd for reliable pipes).
      return e.value === null
        ? INT_SIZE
        : INT_SIZE +
            parcelableSize(PFD_CLASS, INT_SIZE + BINDER_OBJECT_SIZE * (e.value.hasCommChannel ? 2 : 1));
  }
}

/** Bytes `Parcel.writeBundle(b)` appends (null Bundle = 4 bytes; empty = 4 bytes). */
export function bundleParcelSize(b: Bundle | null): number {
  if (b === null || b.isEmpty()) return INT_SIZE;
  let size = INT_SIZE /* length */ + INT_SIZE /* 'BNDL' */ + INT_SIZE; /* count */
  b.forEachEntry((e, key) => {
    size += string16Size(key) + entrySize(e);
  });
  return size;
}

/** How the receiving side adopts file descriptors found while copying a Bundle. */
export interface ParcelTarget {
  /** Dups `pfd` into the receiving process and returns the receiver's own ParcelFileDescriptor. */
  adoptFileDescriptor(pfd: ParcelFileDescriptor): ParcelFileDescriptor;
  /** Sink for the copy's type-mismatch warnings (the receiver's logcat). */
  warningSink: ((message: string) => void) | null;
  /** The receiver's class loader for lazy custom Parcelables (null: any class loads). */
  classLoader: ((className: string) => boolean) | null;
}

/**
 * Writes `b` to a Parcel and reads it back on the receiving side: a deep copy in which strings and
 * primitives are copied, nested Bundles recursively, PendingIntents keep their system token
 * identity, and file descriptors are dup'ed into the receiver (the sender keeps its own copy).
 */
export function unparcelBundle(b: Bundle | null, target: ParcelTarget): Bundle | null {
  if (b === null) return null;
  // Nothing to dup or copy deeply: the receiver's Bundle shares the entries until either side writes.
  const shared = Bundle.sharingEntriesOf(b);
  if (shared) {
    shared.warningSink = target.warningSink;
    shared.classLoader = target.classLoader;
    return shared;
  }
  const copy = new Bundle();
  copy.warningSink = target.warningSink;
  copy.classLoader = target.classLoader;
  for (const [key, e] of b.entries()) copy.putEntry(key, copyEntry(e, target));
  return copy;
}

function copyEntry(e: BundleEntry, target: ParcelTarget): BundleEntry {
  switch (e.type) {
    case 'IntArray':
      return { type: 'IntArray', value: e.value === null ? null : [...e.value] };
    case 'Bundle':
      return { type: 'Bundle', value: unparcelBundle(e.value, target) };
    case 'ParcelFileDescriptor':
      return {
        type: 'ParcelFileDescriptor',
        value: e.value === null ? null : target.adoptFileDescriptor(e.value),
      };
    default:
      return e;
  }
}

/** Every file descriptor inside a Bundle, depth first (for closing and leak accounting). */
export function fileDescriptorsIn(
  b: Bundle | null,
  out: ParcelFileDescriptor[] = [],
): ParcelFileDescriptor[] {
  if (b === null) return out;
  for (const [, e] of b.entries()) {
    if (e.type === 'ParcelFileDescriptor' && e.value !== null) out.push(e.value);
    else if (e.type === 'Bundle') fileDescriptorsIn(e.value, out);
  }
  return out;
}

/**
 * A read-only snapshot of a Bundle for observers (wire logs, checkers): nested Bundles and arrays
 * are copied so later mutation cannot change what was observed; PendingIntents and
 * ParcelFileDescriptors are kept as the objects that were sent (no fd is dup'ed).
 */
export function snapshotBundle(b: Bundle | null): Bundle | null {
  if (b === null) return null;
  const shared = Bundle.sharingEntriesOf(b);
  if (shared) return shared;
  const copy = new Bundle();
  for (const [key, e] of b.entries()) {
    if (e.type === 'Bundle') copy.putEntry(key, { type: 'Bundle', value: snapshotBundle(e.value) });
    else if (e.type === 'IntArray')
      copy.putEntry(key, { type: 'IntArray', value: e.value === null ? null : [...e.value] });
    else copy.putEntry(key, e);
  }
  return copy;
}
