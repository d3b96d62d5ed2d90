import { describe, expect, it } from 'vitest';
import { caches } from './caches.ts';
import { BoundedMap } from './memo.ts';

describe('caches (the one holder of module-level caches)', () => {
  it('lists every cache by name with its kind, bound and size', () => {
    const memo = caches.memo<string, number>('test/caches: lengths', 2);
    const weak = caches.weakMap<object, string>('test/caches: labels');
    const lazy = caches.lazy('test/caches: one value', () => ({ made: true }));
    memo.get('ab', (k) => k.length);
    weak.set({}, 'x');
    const mine = caches.list().filter((c) => c.name.startsWith('test/caches:'));
    expect(mine).toEqual([
      { name: 'test/caches: labels', kind: 'weakMap', bound: null, size: null },
      { name: 'test/caches: lengths', kind: 'memo', bound: 2, size: 1 },
      { name: 'test/caches: one value', kind: 'lazy', bound: null, size: 0 },
    ]);
    expect(lazy.get()).toBe(lazy.get());
    expect(caches.list().find((c) => c.name === 'test/caches: one value')?.size).toBe(1);
  });

  it('bounds a memo and a map: full, they start afresh', () => {
    const memo = caches.memo<number, number>('test/caches: squares', 3);
    let computed = 0;
    const square = (n: number) => {
      computed++;
      return n * n;
    };
    for (const n of [1, 2, 3, 1]) memo.get(n, square);
    expect(computed).toBe(3);
    memo.get(4, square);
    expect(memo.size).toBe(1);
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('b', 3);
    expect(map.size).toBe(2);
    map.set('c', 4);
    expect([map.size, map.get('a'), map.get('c')]).toEqual([1, undefined, 4]);
  });

  it('clear() forgets every counted cache and lazy value', () => {
    const memo = caches.memo<string, string>('test/caches: echoes', 8);
    const lazy = caches.lazy('test/caches: counter', () => ({ n: 0 }));
    memo.get('x', (k) => k);
    const first = lazy.get();
    caches.clear();
    expect(memo.size).toBe(0);
    expect(lazy.get()).not.toBe(first);
  });
});
