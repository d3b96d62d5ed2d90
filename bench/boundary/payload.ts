/**
 * The results the boundary benchmark sends: a statement-like JSON value (rows of small objects and a
 * padding string) whose inline `data` — `{"kind":"inline","value":V}`, the string CETP-4.5-01 bounds
 * (NOTES 12c, interpretations.md) — is exactly the size asked for, so 256 KiB lands on the limit and
 * 257 KiB just over it. ASCII only: a byte is a character. The output schema types every field, so
 * validating a result walks all of it, as a real tool's schema would.
 */

import type { JsonObject } from '../../src/base/json.ts';
import { inlineResultBytes } from '../../src/protocol/response.ts';

export const KIB = 1024;
export const MIB = 1024 * KIB;

/** The tool's output schema (and the floor's Ajv schema: the same object). */
export const STATEMENT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    rows: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', minimum: 1 },
          account: { type: 'string', maxLength: 32 },
          amount: { type: 'number' },
          currency: { type: 'string', enum: ['EUR', 'USD'] },
          memo: { type: 'string' },
        },
        required: ['id', 'account', 'amount', 'currency', 'memo'],
        additionalProperties: false,
      },
    },
    pad: { type: 'string' },
  },
  required: ['rows', 'pad'],
  additionalProperties: false,
};

function row(i: number): JsonObject {
  return {
    id: i,
    account: `CHK-${String(i % 100_000).padStart(6, '0')}`,
    amount: ((i * 7919) % 1_000_000) / 100,
    currency: i % 3 === 0 ? 'USD' : 'EUR',
    memo: `transfer ${i} for invoice ${(i * 31) % 9973}`,
  };
}

/** The smallest inline size a statement can have: no rows, empty padding. */
export const MIN_STATEMENT_BYTES = inlineResultBytes({ rows: [], pad: '' });

/** The rows of a statement of `sizeBytes`, one at a time; returns the padding's length. */
function* statementRows(sizeBytes: number): Generator<JsonObject, number> {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < MIN_STATEMENT_BYTES)
    throw new RangeError(`a statement takes at least ${MIN_STATEMENT_BYTES} bytes, asked for ${sizeBytes}`);
  let used = MIN_STATEMENT_BYTES;
  for (let i = 1; ; i++) {
    const next = row(i);
    // A row costs its JSON plus a comma after the first.
    const cost = JSON.stringify(next).length + (i > 1 ? 1 : 0);
    if (used + cost > sizeBytes) return sizeBytes - used;
    yield next;
    used += cost;
  }
}

/**
 * A statement whose inline `data` is exactly `sizeBytes` UTF-8 bytes: as many rows as fit, the rest
 * padding. Deterministic: the same size gives the same value.
 */
export function statementOfSize(sizeBytes: number): { rows: JsonObject[]; pad: string } {
  const rows: JsonObject[] = [];
  const iterator = statementRows(sizeBytes);
  for (let step = iterator.next(); ; step = iterator.next()) {
    if (step.done) return { rows, pad: 'x'.repeat(step.value) };
    rows.push(step.value);
  }
}

/**
 * `JSON.stringify(statementOfSize(sizeBytes))` as UTF-8 bytes, written row by row without building
 * the value: a file result's content, made without the memory peak of the object tree (the memory
 * benchmark measures the consumer's verification, not the making of its input).
 */
export function statementJsonBytes(sizeBytes: number): Buffer {
  const bytes = Buffer.alloc(sizeBytes - (MIN_STATEMENT_BYTES - EMPTY_STATEMENT_JSON.length));
  let at = bytes.write('{"rows":[');
  const iterator = statementRows(sizeBytes);
  for (let step = iterator.next(), first = true; ; step = iterator.next(), first = false) {
    if (step.done) {
      at += bytes.write('],"pad":"', at);
      bytes.fill('x', at, at + step.value);
      at += step.value;
      break;
    }
    at += bytes.write(`${first ? '' : ','}${JSON.stringify(step.value)}`, at);
  }
  bytes.write('"}', at);
  return bytes;
}

const EMPTY_STATEMENT_JSON = JSON.stringify({ rows: [], pad: '' });
