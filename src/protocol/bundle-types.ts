/**
 * The slice of android.os.Bundle that the protocol reads and writes, as a structural interface: the
 * simulated Bundle (src/sim) satisfies it, so src/protocol never imports the simulation.
 *
 * Android semantics the checks rely on (BaseBundle.java): a getter for a missing key, or for a key
 * holding another type, returns the default (0, false, null) instead of throwing. That is why the
 * envelope readers look at `typeOf` before trusting a getter: a protocol_version stored as a Long
 * reads as 0 through getInt on a real device.
 */

import type { BundleValueType } from '../base/bundle-value.ts';

export type { BundleValueType };

export interface BundleReader {
  containsKey(key: string): boolean;
  keySet(): string[];
  /** Simulation extra: the stored value's type, null if absent. */
  typeOf(key: string): BundleValueType | null;
  /** Wrong type or missing ⇒ defaultValue (0). */
  getInt(key: string, defaultValue?: number): number;
  /** Long values are JS numbers (safe integers). */
  getLong(key: string, defaultValue?: number): number;
  getString(key: string): string | null;
  getBoolean(key: string, defaultValue?: boolean): boolean;
  getIntArray(key: string): number[] | null;
}

export interface BundleWriter {
  putInt(key: string, value: number): void;
  putLong(key: string, value: number): void;
  putString(key: string, value: string | null): void;
  putBoolean(key: string, value: boolean): void;
  putIntArray(key: string, value: number[] | null): void;
}
