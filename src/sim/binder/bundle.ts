/**
 * android.os.Bundle as the simulation needs it: typed values, Android's lenient getters, and no
 * sharing across processes (Binder copies a Bundle through a Parcel — see parcel.ts).
 *
 * Getter behaviour (BaseBundle.java): a missing key returns the default silently; a value of the
 * wrong type returns the default and logs "Key k expected Long but value was a java.lang.Integer.
 * The default value 0 was returned." — it never throws. Unknown keys are simply never read.
 *
 * Custom Parcelables (BaseBundle, API 33+ lazy values): a Bundle from another process keeps each
 * custom Parcelable as a lazy value, deserialized when its key is read. A class the reading
 * process's class loader does not have fails THAT read with BadParcelableException
 * ("ClassNotFoundException when unmarshalling: …"); every other key stays readable. Only a process
 * that has the class (App.parcelableClasses) can read the value.
 */

import type { BundleValueType } from '../../base/bundle-value.ts';
import type { JsonValue } from '../../base/json.ts';
import { BadParcelableException } from '../core/errors.ts';
import type { ParcelFileDescriptor } from '../fd/fd.ts';
import type { PendingIntent } from '../ui/pending-intent-token.ts';

/** A custom Parcelable: its class name and its fields (JSON, the simulation's stand-in for its bytes). */
export interface ParcelableValue {
  readonly className: string;
  readonly fields: JsonValue;
}

export type BundleEntry =
  | { readonly type: 'Int'; readonly value: number }
  | { readonly type: 'Long'; readonly value: number }
  | { readonly type: 'String'; readonly value: string | null }
  | { readonly type: 'IntArray'; readonly value: readonly number[] | null }
  | { readonly type: 'Boolean'; readonly value: boolean }
  | { readonly type: 'Bundle'; readonly value: Bundle | null }
  | { readonly type: 'PendingIntent'; readonly value: PendingIntent | null }
  | { readonly type: 'ParcelFileDescriptor'; readonly value: ParcelFileDescriptor | null }
  | { readonly type: 'Parcelable'; readonly value: ParcelableValue | null };

/** The Java class Android names in its type-mismatch warning. */
export const JAVA_CLASS_OF: Readonly<Record<BundleValueType, string>> = {
  Int: 'java.lang.Integer',
  Long: 'java.lang.Long',
  String: 'java.lang.String',
  IntArray: 'int[]',
  Boolean: 'java.lang.Boolean',
  Bundle: 'android.os.Bundle',
  PendingIntent: 'android.app.PendingIntent',
  ParcelFileDescriptor: 'android.os.ParcelFileDescriptor',
  Parcelable: 'android.os.Parcelable',
};

/** Where a Bundle's type-mismatch warnings go (the owning process's logcat, once unparcelled). */
export type BundleWarningSink = (message: string) => void;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** Java `(int)` narrowing of a JS number. */
export function toJavaInt(value: number): number {
  return Number.isFinite(value) ? Math.trunc(value) | 0 : 0;
}

/** Java `long` as a JS safe integer (the simulation's Longs are epoch-ms sized). */
export function toJavaLong(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const t = Math.trunc(value);
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, t));
}

/** The entry map a Bundle under construction adopts instead of a fresh one (made only by `sharingEntriesOf`). */
class SharedEntries {
  constructor(readonly map: Map<string, BundleEntry>) {}
}

export class Bundle {
  private map: Map<string, BundleEntry>;
  /**
   * The entry map may be shared with other Bundles (see `sharingEntriesOf`): the first write takes
   * a private copy. Entries themselves are immutable, so sharing them is never observable.
   */
  private shared = false;
  /** Set by the simulation when the Bundle is unparcelled in a process. */
  warningSink: BundleWarningSink | null = null;
  /** The receiving process's class loader (set on unparcel); null: every class is loadable. */
  classLoader: ((className: string) => boolean) | null = null;

  constructor(entries?: Iterable<[string, BundleEntry]> | SharedEntries) {
    if (entries instanceof SharedEntries) {
      this.map = entries.map;
      return;
    }
    this.map = new Map();
    if (entries) for (const [k, v] of entries) this.map.set(k, v);
  }

  /**
   * A Bundle with the same entries as `source`, sharing its entry map copy-on-write: a later write to
   * either Bundle leaves the other as it was. Null when a value must not be shared — a nested Bundle
   * (mutable) or a file descriptor (dup'ed into the receiver); every other entry is an immutable
   * record (int[] values are copied on put and on get). It saves copying the map on every hop.
   */
  static sharingEntriesOf(source: Bundle): Bundle | null {
    for (const e of source.map.values()) {
      if (e.type === 'Bundle' || e.type === 'ParcelFileDescriptor') return null;
    }
    const copy = new Bundle(new SharedEntries(source.map));
    copy.shared = true;
    source.shared = true;
    return copy;
  }

  /** Calls `visit` with each entry, in insertion order (no entry tuples allocated). */
  forEachEntry(visit: (entry: BundleEntry, key: string) => void): void {
    // Not `forEach(visit)`: Map#forEach hands its callback the map itself, which may be shared.
    this.map.forEach((entry, key) => {
      visit(entry, key);
    });
  }

  /** The entry map, made private to this Bundle first if it is shared. */
  private own(): Map<string, BundleEntry> {
    if (this.shared) {
      this.map = new Map(this.map);
      this.shared = false;
    }
    return this.map;
  }

  // ---- writers ----
  putInt(key: string, value: number): void {
    this.own().set(key, { type: 'Int', value: toJavaInt(value) });
  }
  putLong(key: string, value: number): void {
    this.own().set(key, { type: 'Long', value: toJavaLong(value) });
  }
  putString(key: string, value: string | null): void {
    this.own().set(key, { type: 'String', value });
  }
  putIntArray(key: string, value: readonly number[] | null): void {
    this.own().set(key, { type: 'IntArray', value: value === null ? null : value.map(toJavaInt) });
  }
  putBoolean(key: string, value: boolean): void {
    this.own().set(key, { type: 'Boolean', value });
  }
  putBundle(key: string, value: Bundle | null): void {
    this.own().set(key, { type: 'Bundle', value });
  }
  putPendingIntent(key: string, value: PendingIntent | null): void {
    this.own().set(key, { type: 'PendingIntent', value });
  }
  putParcelFileDescriptor(key: string, value: ParcelFileDescriptor | null): void {
    this.own().set(key, { type: 'ParcelFileDescriptor', value });
  }
  putParcelable(key: string, value: ParcelableValue | null): void {
    this.own().set(key, { type: 'Parcelable', value });
  }
  /** Raw entry write (parcelling, hostile peers that send odd types). */
  putEntry(key: string, entry: BundleEntry): void {
    this.own().set(key, entry);
  }
  putAll(other: Bundle): void {
    for (const [k, v] of other.entries()) this.own().set(k, v);
  }
  remove(key: string): void {
    this.own().delete(key);
  }
  clear(): void {
    this.own().clear();
  }

  // ---- readers (Android's lenient semantics) ----
  getInt(key: string, defaultValue = 0): number {
    const e = this.read(key, 'Int', defaultValue);
    return e ? (e.value as number) : defaultValue;
  }
  getLong(key: string, defaultValue = 0): number {
    const e = this.read(key, 'Long', defaultValue);
    return e ? (e.value as number) : defaultValue;
  }
  getString(key: string, defaultValue: string | null = null): string | null {
    const e = this.read(key, 'String', defaultValue);
    if (!e) return defaultValue;
    return (e.value as string | null) ?? defaultValue;
  }
  getIntArray(key: string): number[] | null {
    const e = this.read(key, 'IntArray', null);
    const v = e?.value as readonly number[] | null | undefined;
    return v ? [...v] : null;
  }
  getBoolean(key: string, defaultValue = false): boolean {
    const e = this.read(key, 'Boolean', defaultValue);
    return e ? (e.value as boolean) : defaultValue;
  }
  getBundle(key: string): Bundle | null {
    const e = this.read(key, 'Bundle', null);
    return (e?.value as Bundle | null | undefined) ?? null;
  }
  getPendingIntent(key: string): PendingIntent | null {
    const e = this.read(key, 'PendingIntent', null);
    return (e?.value as PendingIntent | null | undefined) ?? null;
  }
  getParcelFileDescriptor(key: string): ParcelFileDescriptor | null {
    const e = this.read(key, 'ParcelFileDescriptor', null);
    return (e?.value as ParcelFileDescriptor | null | undefined) ?? null;
  }

  /** Deserializes the key's lazy value now: BadParcelableException if its class cannot be loaded here. */
  getParcelable(key: string): ParcelableValue | null {
    const e = this.read(key, 'Parcelable', null);
    const value = (e?.value as ParcelableValue | null | undefined) ?? null;
    if (value && this.classLoader && !this.classLoader(value.className)) {
      throw new BadParcelableException(`ClassNotFoundException when unmarshalling: ${value.className}`);
    }
    return value;
  }

  containsKey(key: string): boolean {
    return this.map.has(key);
  }
  keySet(): string[] {
    return [...this.map.keys()];
  }
  size(): number {
    return this.map.size;
  }
  isEmpty(): boolean {
    return this.map.size === 0;
  }
  /** The stored value's type (a simulation extra; Android code would use `get(key) instanceof`). */
  typeOf(key: string): BundleValueType | null {
    return this.map.get(key)?.type ?? null;
  }
  getEntry(key: string): BundleEntry | undefined {
    return this.map.get(key);
  }
  entries(): IterableIterator<[string, BundleEntry]> {
    return this.map.entries();
  }

  /** A readable one-line rendering for traces: `{status="error", retryable=false, ...}`. */
  toString(): string {
    const parts: string[] = [];
    for (const [k, e] of this.map) parts.push(`${k}=${renderEntry(e)}`);
    return `Bundle{${parts.join(', ')}}`;
  }

  private read(key: string, expected: BundleValueType, defaultValue: unknown): BundleEntry | null {
    const e = this.map.get(key);
    if (e === undefined) return null;
    if (e.type !== expected) {
      this.warningSink?.(
        `Key ${key} expected ${JAVA_CLASS_OF[expected]} but value was a ${JAVA_CLASS_OF[e.type]}.  The default value ${String(defaultValue)} was returned.`,
      );
      return null;
    }
    return e;
  }
}

function renderEntry(e: BundleEntry): string {
  switch (e.type) {
    case 'String':
      return e.value === null
        ? 'null'
        : JSON.stringify(e.value.length > 80 ? `${e.value.slice(0, 77)}...` : e.value);
    case 'IntArray':
      return e.value === null ? 'null' : `[${e.value.join(',')}]`;
    case 'Long':
      return `${e.value}L`;
    case 'Bundle':
      return e.value === null ? 'null' : e.value.toString();
    case 'PendingIntent':
    case 'ParcelFileDescriptor':
      return e.value === null ? 'null' : e.value.toString();
    case 'Parcelable':
      return e.value === null ? 'null' : `${e.value.className}{…}`;
    default:
      return String(e.value);
  }
}

export const JAVA_INT_MIN = INT_MIN;
export const JAVA_INT_MAX = INT_MAX;
