import { describe, expect, it } from 'vitest';
import { DEFAULT_START_MS, isoInstant, parseInstant } from './clock.ts';

describe('isoInstant', () => {
  it('formats like Date.prototype.toISOString, remembered or not', () => {
    for (const ms of [0, DEFAULT_START_MS, DEFAULT_START_MS + 3_600_000, 1_767_225_601_234]) {
      expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
      expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('throws for an instant outside the Date range, as toISOString does', () => {
    expect(() => isoInstant(8.64e15 + 1)).toThrow(RangeError);
  });

  it('parseInstant parses like Date.parse, NaN included', () => {
    for (const text of ['2026-01-01T01:00:00.000Z', '2026-01-01T01:00:00Z', 'not a date', '']) {
      expect(parseInstant(text)).toBe(Date.parse(text));
      expect(parseInstant(text)).toBe(Date.parse(text));
    }
  });
});
