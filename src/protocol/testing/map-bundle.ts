/**
 * A minimal Bundle for protocol tests, with Android's lenient getters (missing or wrong-typed key ⇒
 * default). It lets src/protocol test itself without importing the simulation; `putRaw` stores any
 * type under any key, as a hostile or buggy peer would.
 */
import type { BundleReader, BundleValueType, BundleWriter } from '../bundle-types.ts';

export class MapBundle implements BundleReader, BundleWriter {
  private readonly entries = new Map<string, { type: BundleValueType; value: unknown }>();

  static of(entries: Record<string, [BundleValueType, unknown]>): MapBundle {
    const b = new MapBundle();
    for (const [key, [type, value]] of Object.entries(entries)) b.putRaw(key, type, value);
    return b;
  }

  putRaw(key: string, type: BundleValueType, value: unknown): void {
    this.entries.set(key, { type, value });
  }
  remove(key: string): void {
    this.entries.delete(key);
  }
  putInt(key: string, value: number): void {
    this.putRaw(key, 'Int', value);
  }
  putLong(key: string, value: number): void {
    this.putRaw(key, 'Long', value);
  }
  putString(key: string, value: string | null): void {
    this.putRaw(key, 'String', value);
  }
  putBoolean(key: string, value: boolean): void {
    this.putRaw(key, 'Boolean', value);
  }
  putIntArray(key: string, value: number[] | null): void {
    this.putRaw(key, 'IntArray', value === null ? null : [...value]);
  }

  containsKey(key: string): boolean {
    return this.entries.has(key);
  }
  keySet(): string[] {
    return [...this.entries.keys()];
  }
  typeOf(key: string): BundleValueType | null {
    return this.entries.get(key)?.type ?? null;
  }
  getInt(key: string, defaultValue = 0): number {
    return (this.read(key, 'Int') as number | undefined) ?? defaultValue;
  }
  getLong(key: string, defaultValue = 0): number {
    return (this.read(key, 'Long') as number | undefined) ?? defaultValue;
  }
  getString(key: string): string | null {
    return (this.read(key, 'String') as string | null | undefined) ?? null;
  }
  getBoolean(key: string, defaultValue = false): boolean {
    return (this.read(key, 'Boolean') as boolean | undefined) ?? defaultValue;
  }
  getIntArray(key: string): number[] | null {
    const v = this.read(key, 'IntArray') as number[] | null | undefined;
    return v ? [...v] : null;
  }
  /** The raw stored value, whatever its type (for assertions). */
  raw(key: string): unknown {
    return this.entries.get(key)?.value;
  }

  private read(key: string, type: BundleValueType): unknown {
    const e = this.entries.get(key);
    return e !== undefined && e.type === type ? e.value : undefined;
  }
}
