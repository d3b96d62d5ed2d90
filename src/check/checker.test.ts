import { describe, expect, it } from 'vitest';
import { groupBy, groupByKeys } from './checker.ts';

describe('grouping helpers', () => {
  const items = [
    { id: 1, r: 'a', tool: 'x', args: '{"n":1}' },
    { id: 2, r: 'b', tool: 'x', args: '{"n":1}' },
    { id: 3, r: 'a', tool: 'x', args: '{"n":2}' },
    { id: 4, r: 'a', tool: 'x', args: '{"n":1}' },
    { id: 5, r: 'b', tool: null, args: 'null' },
    { id: 6, r: 'b', tool: 'null', args: 'null' },
  ];

  it('groupByKeys groups by the whole tuple, in the order groups first appear', () => {
    const groups = groupByKeys(items, (i) => [i.r, i.tool, i.args]);
    expect(groups.map((g) => g.map((i) => i.id))).toEqual([[1, 4], [2], [3], [5], [6]]);
  });

  it('groupByKeys keeps the order a flat key would give, and tells null from "null"', () => {
    const flat = [...groupBy(items, (i) => `${i.r}|${i.tool}|${i.args}`).values()];
    const nested = groupByKeys(items, (i) => [i.r, i.tool, i.args]);
    // Same groups and order, except that a flat string key merges a null tool with one named "null".
    expect(flat.map((g) => g.map((i) => i.id))).toEqual([[1, 4], [2], [3], [5, 6]]);
    expect(nested.slice(0, 3)).toEqual(flat.slice(0, 3));
  });
});
