import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseSecondsArg, parseShardArg } from './args.ts';
import { shardOf, tailsOf } from './campaign.ts';

describe('argument parsers', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['3/4', { index: 3, count: 4 }],
  ])('--shard %s', (value, shard) => {
    expect(parseShardArg(value)).toEqual(shard);
  });

  it.each(['0/4', '5/4', '1/0', '1', '1/2/3', '-1/2', 'a/b', ' 1/2'])('--shard %s is refused', (value) => {
    expect(() => parseShardArg(value)).toThrow(InvalidArgumentError);
  });

  it('--time takes positive seconds, decimals allowed', () => {
    expect(parseSecondsArg('--time')('2.5')).toBe(2.5);
    for (const bad of ['0', '-1', 'abc', '1e3', ''])
      expect(() => parseSecondsArg('--time')(bad)).toThrow(InvalidArgumentError);
  });
});

describe('campaign helpers', () => {
  it('shard I/N keeps the items whose index i has i % N = I-1; the shards partition the list', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    expect(shardOf(items, { index: 1, count: 2 })).toEqual(['a', 'c', 'e']);
    expect(shardOf(items, { index: 2, count: 2 })).toEqual(['b', 'd']);
    const parts = [1, 2, 3].flatMap((index) => shardOf(items, { index, count: 3 }));
    expect(parts.sort()).toEqual(items);
  });

  it('strategies map to scheduler tails; portfolio mixes all three', () => {
    expect(tailsOf('portfolio')).toEqual(['fifo', 'random', 'pct']);
    expect(tailsOf('pct')).toEqual(['pct']);
  });
});
