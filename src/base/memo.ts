/**
 * A pure function's answers, remembered by key and bounded: once `limit` answers are held the memo
 * starts afresh (a clear, not an LRU — keys that recur are learnt again at once). For values that
 * recur run after run (formatted instants, digests of short strings, schema verdicts); never for
 * anything that depends on a world's state. A module-level one is made through `caches.memo`
 * (caches.ts), the one holder of module-level caches.
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(readonly limit: number) {}

  /** The remembered answer for `key`, computing it with `compute` the first time. */
  get(key: K, compute: (key: K) => V): V {
    let value = this.answers.get(key);
    if (value === undefined) {
      value = compute(key);
      if (this.answers.size >= this.limit) this.answers.clear();
      this.answers.set(key, value);
    }
    return value;
  }

  /** How many answers are held now. */
  get size(): number {
    return this.answers.size;
  }

  /** Forgets every answer. */
  clear(): void {
    this.answers.clear();
  }
}

/**
 * A Map of derived values with a bound: a `set` that would go over `limit` entries first clears it
 * (the same policy as BoundedMemo, for callers that look up and store separately).
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

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
