/**
 * The one holder of module-level caches. Every cache that lives longer than a world — compiled
 * schemas, digests, formatted instants, certificates, verdicts on a constant descriptor — is made
 * here, by name, with its bound declared where it is made; no module keeps a collection or a `let`
 * of its own at top level (src/source-guards.test.ts enforces it, for src/ and properties/).
 *
 * The rules a cache must keep, so that it can never change a verdict or a trace:
 * - it holds answers of a pure function of its key — never anything of a world's state — so a hit
 *   and a miss give the same answer and no run can see another's (the determinism law, docs/design.md);
 * - it is bounded: `memo` and `map` by a count (full ⇒ cleared, then refilled: keys that recur are
 *   learnt again at once), `weakMap` by the lifetime of its keys, `lazy` holds one value;
 * - its name says where it lives and what it holds (`folder/file: what`), as `caches.list()` shows.
 *
 * `caches.clear()` forgets every counted cache and lazy value (a cold start, e.g. for a benchmark);
 * a weakMap's entries go with their keys.
 */
import { BoundedMap, BoundedMemo } from './memo.ts';

export interface CacheInfo {
  readonly name: string;
  readonly kind: 'memo' | 'map' | 'weakMap' | 'lazy';
  /** Entries at most (memo, map), or null: bound by the keys' lifetime (weakMap) or one value (lazy). */
  readonly bound: number | null;
  /** Entries held now; null where it cannot be known (weakMap). */
  readonly size: number | null;
}

/** One value made on first use and kept (e.g. a schema compiler shared by every world). */
export class Lazy<T> {
  private value: T | undefined;

  constructor(private readonly create: () => T) {}

  get(): T {
    this.value ??= this.create();
    return this.value;
  }

  get made(): boolean {
    return this.value !== undefined;
  }

  clear(): void {
    this.value = undefined;
  }
}

interface Entry {
  readonly kind: CacheInfo['kind'];
  readonly bound: number | null;
  size(): number | null;
  clear(): void;
}

class Caches {
  private readonly entries = new Map<string, Entry>();

  /** A pure function's answers by key, at most `limit` (BoundedMemo). */
  memo<K, V>(name: string, limit: number): BoundedMemo<K, V> {
    const memo = new BoundedMemo<K, V>(limit);
    this.entries.set(name, { kind: 'memo', bound: limit, size: () => memo.size, clear: () => memo.clear() });
    return memo;
  }

  /** Derived values looked up and stored separately, at most `limit` (BoundedMap). */
  map<K, V>(name: string, limit: number): BoundedMap<K, V> {
    const map = new BoundedMap<K, V>(limit);
    this.entries.set(name, { kind: 'map', bound: limit, size: () => map.size, clear: () => map.clear() });
    return map;
  }

  /** Values derived from long-lived objects (descriptors, schemas), gone with their keys. */
  weakMap<K extends object, V>(name: string): WeakMap<K, V> {
    const map = new WeakMap<K, V>();
    this.entries.set(name, { kind: 'weakMap', bound: null, size: () => null, clear: () => {} });
    return map;
  }

  /** One value made on first use. */
  lazy<T>(name: string, create: () => T): Lazy<T> {
    const lazy = new Lazy(create);
    this.entries.set(name, {
      kind: 'lazy',
      bound: null,
      size: () => (lazy.made ? 1 : 0),
      clear: () => lazy.clear(),
    });
    return lazy;
  }

  /** Every cache made so far (modules make theirs when first imported), by name. */
  list(): CacheInfo[] {
    return [...this.entries]
      .map(([name, e]) => ({ name, kind: e.kind, bound: e.bound, size: e.size() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Forgets every counted cache's entries and every lazy value. */
  clear(): void {
    for (const e of this.entries.values()) e.clear();
  }
}

/** The holder. */
export const caches = new Caches();
