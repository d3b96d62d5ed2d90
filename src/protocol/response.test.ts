import { describe, expect, it } from 'vitest';
import { makeWireError, writeErrorBundle } from './error-bundle.ts';
import {
  fitsInline,
  fitsInlineData,
  inlineDataJson,
  inlineResultBytes,
  inlineResultBytesOfJson,
  readResponseBundle,
  utf8Exceeds,
  valueJsonOf,
  writeAcceptedBundle,
  writeSuccessBundle,
} from './response.ts';
import type { WireShape } from './schemas/registry.ts';
import { SPEC_EXAMPLES } from './schemas/spec-examples.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';
import { MapBundle } from './testing/map-bundle.ts';

const REQUEST_ID = '6f9619ff-8b86-4011-b42d-00c04fc964ff';
const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
const inline: WireShape<'execution_result'> = { kind: 'inline', value: { alert_id: 'a-1' } };
const file = JSON.parse(SPEC_EXAMPLES.file_result.json) as WireShape<'execution_result'>;

function success(data: WireShape<'execution_result'>): MapBundle {
  const b = new MapBundle();
  expect(writeSuccessBundle(b, 'execute_tool', { requestId: REQUEST_ID, data })).toEqual([]);
  return b;
}

describe('success responses (CETP-4.2-01, 4.2-02)', () => {
  it('write status, protocol_version, request_id and data with their Bundle types, and read back', () => {
    const b = success(inline);
    expect([
      b.typeOf('status'),
      b.typeOf('protocol_version'),
      b.typeOf('request_id'),
      b.typeOf('data'),
    ]).toEqual(['String', 'Int', 'String', 'String']);
    const read = okValue(readResponseBundle(b, 'execute_tool', { expectedRequestId: REQUEST_ID }));
    expect(read).toEqual({ status: 'success', data: inline, hasResultFd: false });
  });

  it('reads the same with `data` parsed by the caller (parsedData) as parsing it itself', () => {
    for (const data of [
      inline,
      { kind: 'inline' },
      { kind: 'file', size_bytes: -1 },
    ] as WireShape<'execution_result'>[]) {
      const b = new MapBundle();
      b.putString('status', 'success');
      b.putInt('protocol_version', 2);
      b.putString('request_id', REQUEST_ID);
      b.putString('data', JSON.stringify(data));
      const options = { expectedRequestId: REQUEST_ID, negotiatedCapabilities: ALL_CAPS };
      const parsed = { value: JSON.parse(b.getString('data') as string) as unknown };
      expect(readResponseBundle(b, 'execute_tool', { ...options, parsedData: parsed })).toEqual(
        readResponseBundle(b, 'execute_tool', options),
      );
    }
  });

  it('negotiate success carries only status and data (CETP-2.2-04)', () => {
    const b = new MapBundle();
    const data = JSON.parse(SPEC_EXAMPLES.negotiate_response.json);
    expect(writeSuccessBundle(b, 'negotiate', { requestId: '', data })).toEqual([]);
    expect(b.keySet().sort()).toEqual(['data', 'status']);
    expect(okValue(readResponseBundle(b, 'negotiate')).status).toBe('success');
  });

  it('refuses to write data that is not the method shape', () => {
    const b = new MapBundle();
    const bad = { kind: 'inline' } as unknown as WireShape<'execution_result'>;
    expectIssue(writeSuccessBundle(b, 'execute_tool', { requestId: REQUEST_ID, data: bad }), {
      code: 'missing_required',
      path: 'data/value',
    });
    expect(b.keySet()).toEqual([]);
  });

  it.each([
    [
      'a wrong request_id echo',
      (b: MapBundle) => b.putString('request_id', '00000000-0000-0000-0000-000000000000'),
      'echo_mismatch',
    ],
    ['protocol_version=1', (b: MapBundle) => b.putInt('protocol_version', 1), 'echo_mismatch'],
    ['a missing request_id', (b: MapBundle) => b.remove('request_id'), 'missing_key'],
    ['data that is not JSON', (b: MapBundle) => b.putString('data', '{'), 'invalid_json'],
    [
      'data of another shape',
      (b: MapBundle) => b.putString('data', '{"kind":"stream"}'),
      'unknown_enum_value',
    ],
  ])('%s is %s (CETP-4.2-01)', (_name, mutate, code) => {
    const b = success(inline);
    mutate(b);
    expectIssue(issuesOf(readResponseBundle(b, 'execute_tool', { expectedRequestId: REQUEST_ID })), { code });
  });

  it('an inline result over max_inline_result_bytes is an issue (CETP-4.5-01)', () => {
    const value = { blob: 'x'.repeat(500) };
    const b = success({ kind: 'inline', value });
    const bytes = inlineResultBytes(value);
    expect(readResponseBundle(b, 'execute_tool', { maxInlineResultBytes: bytes }).ok).toBe(true);
    expectIssue(issuesOf(readResponseBundle(b, 'execute_tool', { maxInlineResultBytes: bytes - 1 })), {
      code: 'out_of_range',
      ruleId: 'CETP-4.5-01',
    });
  });

  it('a size bound the caller established is trusted only when it settles the limit (CETP-4.5-01)', () => {
    const value = { blob: 'x'.repeat(500) };
    const b = success({ kind: 'inline', value });
    const bytes = inlineResultBytes(value);
    // Measured at most `bytes`, limit `bytes`: no second count, no issue.
    expect(
      readResponseBundle(b, 'execute_tool', { maxInlineResultBytes: bytes, dataBytesAtMost: bytes }).ok,
    ).toBe(true);
    // A bound above the limit settles nothing: the string is counted, and found too large.
    expectIssue(
      issuesOf(
        readResponseBundle(b, 'execute_tool', { maxInlineResultBytes: bytes - 1, dataBytesAtMost: bytes }),
      ),
      { code: 'out_of_range', ruleId: 'CETP-4.5-01' },
    );
  });
});

describe('file results (CETP-4.5-02, 4.5-04, 4.5-11)', () => {
  it('need a result_fd', () => {
    const b = success(file);
    expectIssue(issuesOf(readResponseBundle(b, 'execute_tool')), {
      code: 'missing_key',
      ruleId: 'CETP-4.5-02',
      path: 'result_fd',
    });
    b.putRaw('result_fd', 'ParcelFileDescriptor', { fd: 7 });
    expect(
      okValue(readResponseBundle(b, 'execute_tool', { negotiatedCapabilities: ALL_CAPS })),
    ).toMatchObject({
      hasResultFd: true,
    });
  });

  it('need large_results to have been negotiated', () => {
    const b = success(file);
    b.putRaw('result_fd', 'ParcelFileDescriptor', { fd: 7 });
    expectIssue(
      issuesOf(readResponseBundle(b, 'execute_tool', { negotiatedCapabilities: ['async_operations'] })),
      {
        code: 'outcome_not_negotiated',
        ruleId: 'CETP-4.5-11',
      },
    );
  });
});

describe('accepted responses (CETP-4.4-02)', () => {
  const data = { operation_id: 'op_123', poll_after_ms: 1000 };

  it('round-trip', () => {
    const b = new MapBundle();
    expect(writeAcceptedBundle(b, { requestId: REQUEST_ID, data })).toEqual([]);
    expect(okValue(readResponseBundle(b, 'execute_tool', { negotiatedCapabilities: ALL_CAPS }))).toEqual({
      status: 'accepted',
      data,
    });
  });

  it('need async_operations (CETP-2.3-03, 4.4-01)', () => {
    const b = new MapBundle();
    writeAcceptedBundle(b, { requestId: REQUEST_ID, data });
    expectIssue(issuesOf(readResponseBundle(b, 'execute_tool', { negotiatedCapabilities: [] })), {
      code: 'outcome_not_negotiated',
      ruleId: 'CETP-4.4-01',
    });
  });

  it('are only valid for execute_tool', () => {
    const b = new MapBundle();
    writeAcceptedBundle(b, { requestId: REQUEST_ID, data });
    expectIssue(issuesOf(readResponseBundle(b, 'list_tools')), { code: 'unknown_status' });
  });

  it('refuse data without poll_after_ms', () => {
    expectIssue(
      writeAcceptedBundle(new MapBundle(), { requestId: REQUEST_ID, data: { operation_id: 'op' } as never }),
      {
        code: 'missing_required',
        ruleId: 'CETP-4.4-02',
      },
    );
  });
});

describe('error and malformed responses', () => {
  it('an error response is read as a typed error', () => {
    const b = new MapBundle();
    writeErrorBundle(b, makeWireError('TOOL_NOT_FOUND', { protocolVersion: 2, requestId: REQUEST_ID }));
    const read = okValue(readResponseBundle(b, 'execute_tool', { expectedRequestId: REQUEST_ID }));
    expect(read.status === 'error' && read.error.code).toBe('TOOL_NOT_FOUND');
  });

  it.each([
    ['no status', () => new MapBundle(), 'missing_key'],
    ['status "ok"', () => MapBundle.of({ status: ['String', 'ok'] }), 'unknown_status'],
    ['status stored as Int', () => MapBundle.of({ status: ['Int', 1] }), 'wrong_bundle_type'],
  ])('%s → %s', (_name, make, code) => {
    expectIssue(issuesOf(readResponseBundle(make(), 'execute_tool')), { code });
  });
});

describe('inlineResultBytes (CETP-4.5-01, NOTES 12c)', () => {
  it('is the UTF-8 length of the inline data string, computed from the value or its JSON', () => {
    for (const value of [0, 'x', '价格', { a: [1, 'é', null] }, [], 'emoji 😀']) {
      const expected = Buffer.byteLength(JSON.stringify({ kind: 'inline', value }), 'utf8');
      expect(inlineResultBytes(value)).toBe(expected);
      expect(inlineResultBytesOfJson(JSON.stringify(value))).toBe(expected);
    }
  });

  it('inlineDataJson wraps the JSON of a value into exactly the data string JSON.stringify would write', () => {
    for (const value of [0, null, 'x', '价格', { kind: 'file', a: [1, 'é', null] }, [], 'emoji 😀']) {
      expect(inlineDataJson(JSON.stringify(value))).toBe(JSON.stringify({ kind: 'inline', value }));
    }
  });

  it('valueJsonOf takes the JSON of the value back out of an inline data string', () => {
    for (const value of [0, null, 'x', '价格', { kind: 'file', a: [1, 'é', null] }, [], 'emoji 😀']) {
      expect(valueJsonOf(JSON.stringify({ kind: 'inline', value }))).toBe(JSON.stringify(value));
    }
  });

  it('utf8Exceeds and fitsInlineData decide exactly at the limit, for ASCII and multi-byte text', () => {
    for (const value of ['a'.repeat(300), '价'.repeat(100), `${'😀'.repeat(40)}x`, '']) {
      const data = JSON.stringify({ kind: 'inline', value });
      const bytes = Buffer.byteLength(data, 'utf8');
      for (const limit of [0, bytes - 1, bytes, bytes + 1, 3 * bytes]) {
        expect(utf8Exceeds(data, limit)).toBe(bytes > limit);
        expect(fitsInlineData(data, limit)).toBe(bytes <= limit);
      }
    }
  });

  it('fitsInline decides exactly at the limit, for ASCII and multi-byte JSON', () => {
    for (const value of ['a'.repeat(300), '价'.repeat(100), `${'😀'.repeat(40)}x`]) {
      const json = JSON.stringify(value);
      const bytes = inlineResultBytesOfJson(json);
      for (const limit of [0, bytes - 1, bytes, bytes + 1, 3 * bytes]) {
        expect(fitsInline(json, limit)).toBe(bytes <= limit);
      }
    }
  });
});
