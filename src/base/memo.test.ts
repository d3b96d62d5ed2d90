import { describe, expect, it } from 'vitest';
import { BoundedMemo } from './memo.ts';

describe('BoundedMemo', () => {
  it('computes an answer once per key and starts afresh when full', () => {
    const memo = new BoundedMemo<number, string>(2);
    const computed: number[] = [];
    const square = (n: number) => {
      computed.push(n);
      return String(n * n);
    };
    expect([memo.get(2, square), memo.get(2, square), memo.get(3, square)]).toEqual(['4', '4', '9']);
    expect(computed).toEqual([2, 3]);
    expect(memo.get(4, square)).toBe('16'); // full: forgets 2 and 3, keeps 4
    expect(memo.get(2, square)).toBe('4');
    expect(memo.get(4, square)).toBe('16');
    expect(computed).toEqual([2, 3, 4, 2]);
  });
});
