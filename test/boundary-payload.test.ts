/**
 * The boundary benchmark's results (bench/boundary/payload.ts): exactly the inline size asked for,
 * measured as CETP-4.5-01 measures it (NOTES 12c), valid under their schema, and the streamed file
 * bytes identical to the value's JSON.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  KIB,
  MIN_STATEMENT_BYTES,
  STATEMENT_SCHEMA,
  statementJsonBytes,
  statementOfSize,
} from '../bench/boundary/payload.ts';
import { fitsInline, inlineResultBytes } from '../src/protocol/index.ts';

const SIZES = [MIN_STATEMENT_BYTES, MIN_STATEMENT_BYTES + 1, 100, 1 * KIB, 255 * KIB, 256 * KIB, 257 * KIB];

describe('statementOfSize', () => {
  it('has exactly the inline data size asked for, on both sides of the 256 KiB limit', () => {
    for (const size of SIZES) expect(inlineResultBytes(statementOfSize(size))).toBe(size);
    expect(fitsInline(JSON.stringify(statementOfSize(256 * KIB)), 256 * KIB)).toBe(true);
    expect(fitsInline(JSON.stringify(statementOfSize(256 * KIB + 1)), 256 * KIB)).toBe(false);
  });

  it('is mostly rows (the schema walks them), with less padding than one row', () => {
    const value = statementOfSize(64 * KIB);
    expect(value.rows.length).toBeGreaterThan(500);
    expect(value.pad.length).toBeLessThan(JSON.stringify(value.rows.at(-1)).length + 1);
  });

  it('conforms to STATEMENT_SCHEMA, which refuses a row with a field of the wrong type', () => {
    const validate = new Ajv2020({ strict: false }).compile(STATEMENT_SCHEMA);
    expect(validate(statementOfSize(4 * KIB))).toBe(true);
    const broken = statementOfSize(4 * KIB);
    broken.rows[3] = { ...broken.rows[3], amount: 'ten' };
    expect(validate(broken)).toBe(false);
  });

  it('refuses a size no statement can have', () => {
    expect(() => statementOfSize(MIN_STATEMENT_BYTES - 1)).toThrow(RangeError);
    expect(() => statementOfSize(1.5 * KIB + 0.5)).toThrow(RangeError);
  });
});

describe('statementJsonBytes', () => {
  it('is byte for byte the UTF-8 JSON of statementOfSize', () => {
    for (const size of SIZES) {
      expect(statementJsonBytes(size).equals(Buffer.from(JSON.stringify(statementOfSize(size))))).toBe(true);
    }
  });
});
