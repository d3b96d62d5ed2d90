import { describe, expect, it } from 'vitest';
import type { Expect } from './format.ts';
import { match } from './matchers.ts';
import type { Actual } from './typed.ts';

const str = (value: string): Actual => ({ type: 'string', value });
const reply = (value: Record<string, Actual>): Actual => ({ type: 'bundle', value });
const bundle = (value: Record<string, Expect>): Expect => ({ type: 'bundle', value });

/** Each matcher and literal, once accepting and once refusing (a verdict must be able to fail). */
const CASES: readonly [
  name: string,
  expectation: Expect,
  passing: Actual | undefined,
  failing: Actual | undefined,
][] = [
  ['typed literal', { type: 'int', value: 2 }, { type: 'int', value: 2 }, { type: 'long', value: '2' }],
  ['null', { type: 'null' }, { type: 'null' }, str('')],
  ['any', { $match: 'any' }, { type: 'null' }, undefined],
  ['absent', { $match: 'absent' }, undefined, str('x')],
  ['type', { $match: 'type', type: 'long' }, { type: 'long', value: '5' }, { type: 'int', value: 5 }],
  ['regex (whole string)', { $match: 'regex', pattern: 'CHK-[0-9]+' }, str('CHK-10001'), str('xCHK-1')],
  ['uuid', { $match: 'uuid' }, str('0b7f2a52-6c5e-4f3e-9b1a-2d9f0c4e8a11'), str('not-a-uuid')],
  ['range', { $match: 'range', min: 1, max: 3 }, { type: 'long', value: '3' }, { type: 'int', value: 4 }],
  ['oneOf', { $match: 'oneOf', values: ['success', 'accepted'] }, str('accepted'), str('error')],
  ['sha256', { $match: 'sha256' }, str('a'.repeat(64)), str('A'.repeat(64))],
  [
    'jsonSchema',
    { $match: 'jsonSchema', schema: { type: 'object', required: ['a'] } },
    str('{"a":1}'),
    str('{"b":1}'),
  ],
  [
    'anyOf',
    {
      $match: 'anyOf',
      of: [
        { type: 'int', value: 1 },
        { type: 'int', value: 2 },
      ],
    },
    { type: 'int', value: 2 },
    { type: 'int', value: 3 },
  ],
  [
    'bundle subset',
    bundle({ status: { type: 'string', value: 'success' } }),
    reply({ status: str('success'), extra: str('ignored') }),
    reply({ extra: str('x') }),
  ],
  [
    'JSON text: objects are subsets, arrays exact',
    { type: 'string', json: { tools: [{ name: 'a' }] } },
    str('{"tools":[{"name":"a","title":"A"}],"revision":"1"}'),
    str('{"tools":[{"name":"a"},{"name":"b"}]}'),
  ],
  [
    'pending intent',
    { type: 'pending_intent', creator: 'provider', immutable: true },
    { type: 'pending_intent', creator: 'provider', immutable: true },
    { type: 'pending_intent', creator: 'provider', immutable: false },
  ],
];

describe('matchers', () => {
  it.each(CASES)('%s accepts a matching value and refuses another', (_name, e, passing, failing) => {
    expect(match(e, passing, new Map())).toEqual([]);
    expect(match(e, failing, new Map()).length).toBeGreaterThan(0);
  });

  it('a mismatch names its path into the reply and into JSON text', () => {
    const e = bundle({ data: { type: 'string', json: { value: { alert_id: 'ALRT-1' } } } });
    const [m] = match(e, reply({ data: str('{"value":{"alert_id":"ALRT-2"}}') }), new Map());
    expect(m?.path).toBe('$.data<json>.value.alert_id');
  });

  it('capture binds on success, ref compares with the binding', () => {
    const vars = new Map<string, unknown>();
    expect(match(bundle({ t: { $match: 'capture', as: 'tok' } }), reply({ t: str('abc') }), vars)).toEqual(
      [],
    );
    expect(vars.get('tok')).toBe('abc');
    expect(match({ $match: 'ref', name: 'tok' }, str('abc'), vars)).toEqual([]);
    expect(match({ $match: 'ref', name: 'tok' }, str('abd'), vars)).toHaveLength(1);
    expect(match({ $match: 'ref', name: 'unbound' }, str('abc'), vars)[0]?.message).toMatch(/not bound/);
  });

  it('a failed expectation binds nothing, and a failed anyOf branch leaves no capture', () => {
    const vars = new Map<string, unknown>();
    const e = bundle({ t: { $match: 'capture', as: 'tok' }, s: { type: 'string', value: 'success' } });
    expect(match(e, reply({ t: str('abc'), s: str('error') }), vars)).toHaveLength(1);
    expect(vars.has('tok')).toBe(false);
    const either: Expect = {
      $match: 'anyOf',
      of: [
        bundle({ a: { $match: 'capture', as: 'x' }, b: { type: 'int', value: 1 } }),
        bundle({ a: { $match: 'any' } }),
      ],
    };
    expect(match(either, reply({ a: str('v'), b: { type: 'int', value: 2 } }), vars)).toEqual([]);
    expect(vars.has('x')).toBe(false);
  });
});
