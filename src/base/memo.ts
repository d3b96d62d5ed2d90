/**
 * A Map of derived values with a bound: a `set` that would go over `limit` entries first clears it
 * (a clear, not an LRU — keys that recur are learnt again at once), for callers that look up and
 * store separately; BoundedMemo below computes a missing value itself.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): this {
    if (this.entries.size >= this.limit && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
    return this;
  }

  /** How many entries are held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * A pure function's answers, remembered by key and bounded: once `limit` answers are held the memo
 * starts afresh (BoundedMap's policy). For values that recur run after run (formatted instants,
 * digests of short strings, schema verdicts); never for anything that depends on a world's state. A
 * module-level one is made through `caches.memo` (caches.ts), the one holder of module-level caches.
 */
export class BoundedMemo<K, V> extends BoundedMap<K, V> {
  /** The remembered answer for `key`, computing it with `compute` the first time. */
  override get(key: K): V | undefined;
  override get(key: K, compute: (key: K) => V): V;
  override get(key: K, compute?: (key: K) => V): V | undefined {
    let value = super.get(key);
    if (value === undefined && compute !== undefined) {
      value = compute(key);
      this.set(key, value);
    }
    return value;
  }
}
