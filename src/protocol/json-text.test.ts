import { describe, expect, it } from 'vitest';
import { caches } from '../base/caches.ts';
import { isJsonText, LONG_JSON_TEXT } from './json-text.ts';
import { lowerCased, quoted } from './names.ts';

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const padded = (bytes: number) => `{"symbol":"${'A'.repeat(bytes - 13)}"}`;

describe('isJsonText: JSON.parse would not throw (issue 37: long texts remembered)', () => {
  const texts = [
    '{"a":1}',
    '{"a":',
    'null',
    '',
    deep(20_000),
    `${deep(20_000)}]`,
    padded(LONG_JSON_TEXT),
    padded(65_537),
    `${padded(65_536)},`,
    'z'.repeat(1 << 20),
  ];
  it.each(texts.map((t, i) => [i, t] as const))('text %i agrees with JSON.parse, asked twice', (_, text) => {
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    expect(isJsonText(text)).toBe(parses);
    // The second answer for a long text comes from the cache: it must be the same.
    expect(isJsonText(text)).toBe(parses);
    // A copy with the same content (another string object) gets the same answer.
    expect(isJsonText(`${text} `.slice(0, -1))).toBe(parses);
  });

  it('a long text that differs only at its end is not taken for the remembered one', () => {
    const good = padded(10_000);
    const bad = `${good.slice(0, -1)}x`;
    expect(isJsonText(good)).toBe(true);
    expect(isJsonText(bad)).toBe(false);
    expect(caches.list().find((c) => c.name.startsWith('protocol/json-text'))?.bound).toBe(64);
  });
});

describe('quoted and lowerCased: JSON.stringify and toLowerCase, long strings remembered', () => {
  it.each(['', 'AbC', '\uD800"\\', 'Q'.repeat(150_000), `${'x'.repeat(5_000)}\u0000Y`])('%#', (s) => {
    expect(quoted(s)).toBe(JSON.stringify(s));
    expect(quoted(s)).toBe(JSON.stringify(s));
    expect(lowerCased(s)).toBe(s.toLowerCase());
    expect(lowerCased(s)).toBe(s.toLowerCase());
  });
});
