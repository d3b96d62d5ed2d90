import { describe, expect, it } from 'vitest';
import { groupBy, groupByKeys } from './checker.ts';
import { consistency, schema } from './checker-kit.ts';
import { succeeded } from './observation.ts';
import { callView } from './testing.ts';

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

describe('declaration and guard helpers', () => {
  it('consistency() and schema() declare the fields judged, the aspect and what against', () => {
    expect(consistency('the UID', 'req:*:session_token', 'json:negotiate_response/session_token')).toEqual({
      fields: ['req:*:session_token', 'json:negotiate_response/session_token'],
      aspect: 'consistency',
      against: 'the UID',
    });
    expect(schema('the reader', 'req:*')).toEqual({
      fields: ['req:*'],
      aspect: 'schema',
      against: 'the reader',
    });
  });

  it('succeeded() holds only for a success Bundle, and of the method when one is named', () => {
    const reply = (status: string) => ({ kind: 'bundle', status, errorCode: null, data: {} }) as never;
    const negotiate = callView({ id: 1, provider: 'p', method: 'negotiate', reply: reply('success') });
    expect(succeeded(negotiate)).toBe(true);
    expect(succeeded(negotiate, 'negotiate')).toBe(true);
    expect(succeeded(negotiate, 'list_tools')).toBe(false);
    expect(succeeded(callView({ id: 2, provider: 'p', reply: reply('accepted') }))).toBe(false);
    expect(succeeded(callView({ id: 3, provider: 'p', reply: reply('error') }))).toBe(false);
    expect(succeeded(callView({ id: 4, provider: 'p', reply: { kind: 'none' } as never }))).toBe(false);
  });
});
