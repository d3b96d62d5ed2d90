/**
 * A pure function's answers, remembered by key and bounded: once `limit` answers are held the memo
 * starts afresh (a clear, not an LRU — keys that recur are learnt again at once). For values that
 * recur run after run (formatted instants, digests of short strings, schema verdicts); never for
 * anything that depends on a world's state.
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly limit: number) {}

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
}
