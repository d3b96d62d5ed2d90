import { describe, expect, it } from 'vitest';
import type { BundleValueType } from './bundle-types.ts';
import { classifyProtocolVersion, readEnvelope, writeRequest } from './envelope.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';
import { MapBundle } from './testing/map-bundle.ts';

const REQUEST_ID = '6f9619ff-8b86-4011-b42d-00c04fc964ff';
const ENVELOPE = {
  protocolVersion: 2,
  sessionToken: 'tok',
  requestId: REQUEST_ID,
  deadlineAtMs: 1_700_000_000_000,
} as const;

function executeBundle(): MapBundle {
  const b = new MapBundle();
  writeRequest(b, 'execute_tool', {
    ...ENVELOPE,
    toolName: 'create_alert',
    args: '{"symbol":"X","price":1}',
  });
  return b;
}

describe('writeRequest / readEnvelope round trip', () => {
  it('execute_tool, with the exact args string and an optional resume_token', () => {
    const b = executeBundle();
    expect(b.typeOf('protocol_version')).toBe('Int');
    expect(b.typeOf('deadline_at_ms')).toBe('Long');
    expect(okValue(readEnvelope(b, 'execute_tool'))).toEqual({
      ...ENVELOPE,
      requestKey: REQUEST_ID,
      toolName: 'create_alert',
      args: '{"symbol":"X","price":1}',
      // Parsed once while checking; the provider takes it instead of parsing the bytes again.
      argsValue: { symbol: 'X', price: 1 },
    });
    b.putString('args', '{"symbol":');
    expect(readEnvelope(b, 'execute_tool').ok).toBe(false);
    // Long args (json-text.ts) are checked, not kept: the provider parses them when it executes.
    const long = `{"symbol":"X","price":1,"note":"${'n'.repeat(5_000)}"}`;
    b.putString('args', long);
    const read = okValue(readEnvelope(b, 'execute_tool'));
    expect(read.args).toBe(long);
    expect(read.argsValue).toBeUndefined();
    b.putString('args', `${long.slice(0, -1)}`);
    expect(readEnvelope(b, 'execute_tool').ok).toBe(false);
    b.putString('args', '{"symbol":"X","price":1}');
    b.putString('resume_token', 'rt-1');
    expect(okValue(readEnvelope(b, 'execute_tool')).resumeToken).toBe('rt-1');
  });

  it.each(['get_operation', 'cancel_operation'] as const)('%s carries operation_id', (method) => {
    const b = new MapBundle();
    writeRequest(b, method, { ...ENVELOPE, operationId: 'op_123' });
    expect(okValue(readEnvelope(b, method))).toEqual({
      ...ENVELOPE,
      requestKey: REQUEST_ID,
      operationId: 'op_123',
    });
  });

  it.each(['list_tools', 'get_provider_info'] as const)(
    '%s carries the whole §4.1 envelope (NOTES 4)',
    (method) => {
      const b = new MapBundle();
      writeRequest(b, method, ENVELOPE);
      expect(okValue(readEnvelope(b, method))).toEqual({ ...ENVELOPE, requestKey: REQUEST_ID });
      b.remove('deadline_at_ms');
      expectIssue(issuesOf(readEnvelope(b, method)), { code: 'missing_key', ruleId: 'CETP-4.1-05' });
    },
  );

  it('negotiate', () => {
    const b = new MapBundle();
    writeRequest(b, 'negotiate', {
      consumerVersions: [2, 1],
      consumerCapabilities: ['cancellation', 'future_x'],
    });
    expect(b.typeOf('consumer_versions')).toBe('IntArray');
    expect(okValue(readEnvelope(b, 'negotiate'))).toEqual({
      consumerVersions: [2, 1],
      consumerCapabilities: ['cancellation', 'future_x'],
    });
  });

  it('normalises request_id once into the RequestKey; the raw id stays for the echo', () => {
    const b = executeBundle();
    b.putString('request_id', REQUEST_ID.toUpperCase());
    const read = okValue(readEnvelope(b, 'execute_tool'));
    expect(read.requestId).toBe(REQUEST_ID.toUpperCase());
    expect(read.requestKey).toBe(REQUEST_ID);
    b.putString('request_id', 'not-a-uuid');
    const bad = readEnvelope(b, 'execute_tool');
    expect(bad.ok).toBe(false);
  });

  it('ignores unknown keys, as Android does', () => {
    const b = executeBundle();
    b.putString('confirmed', 'true');
    b.putInt('caller_uid', 0);
    expect(readEnvelope(b, 'execute_tool').ok).toBe(true);
  });
});

describe('readEnvelope issues', () => {
  it.each([
    ['protocol_version', 'CETP-4.1-01'],
    ['session_token', 'CETP-4.1-02'],
    ['request_id', 'CETP-4.1-03'],
    ['deadline_at_ms', 'CETP-4.1-05'],
    ['tool_name', 'CETP-4.1-06'],
    ['args', 'CETP-4.1-06'],
  ])('missing %s is missing_key (%s)', (key, ruleId) => {
    const b = executeBundle();
    b.remove(key);
    expectIssue(issuesOf(readEnvelope(b, 'execute_tool')), { code: 'missing_key', ruleId, path: key });
  });

  it.each<[string, BundleValueType, unknown, string]>([
    ['protocol_version', 'Long', 2, 'CETP-4.1-01'], // getInt would return 0
    ['protocol_version', 'String', '2', 'CETP-4.1-01'],
    ['deadline_at_ms', 'Int', 1000, 'CETP-4.1-05'], // getLong would return 0
    ['request_id', 'IntArray', [1], 'CETP-4.1-03'],
    ['session_token', 'Boolean', true, 'CETP-4.1-02'],
    ['args', 'Bundle', {}, 'CETP-4.1-06'],
  ])('%s stored as %s is wrong_bundle_type (%s)', (key, type, value, ruleId) => {
    const b = executeBundle();
    b.putRaw(key, type, value);
    expectIssue(issuesOf(readEnvelope(b, 'execute_tool')), { code: 'wrong_bundle_type', ruleId, path: key });
  });

  it.each<[string, (b: MapBundle) => void, string, string]>([
    ['protocol_version=1', (b) => b.putInt('protocol_version', 1), 'wrong_protocol_version', 'CETP-4.1-01'],
    ['protocol_version=3', (b) => b.putInt('protocol_version', 3), 'wrong_protocol_version', 'CETP-4.1-01'],
    ['a non-UUID request_id', (b) => b.putString('request_id', 'req-1'), 'invalid_uuid', 'CETP-4.1-03'],
    ['a null request_id', (b) => b.putString('request_id', null), 'missing_key', 'CETP-4.1-03'],
    ['an empty session_token', (b) => b.putString('session_token', ''), 'empty_value', 'CETP-4.1-02'],
    ['deadline 0', (b) => b.putLong('deadline_at_ms', 0), 'invalid_deadline', 'CETP-4.1-05'],
    ['a negative deadline', (b) => b.putLong('deadline_at_ms', -5), 'invalid_deadline', 'CETP-4.1-05'],
    ['a bad tool_name', (b) => b.putString('tool_name', 'Create-Alert'), 'invalid_tool_name', 'CETP-3.1-03'],
    ['args that are not JSON', (b) => b.putString('args', '{symbol:'), 'invalid_json', 'CETP-4.1-06'],
    ['an empty resume_token', (b) => b.putString('resume_token', ''), 'empty_value', 'CETP-4.1-07'],
  ])('%s → %s (%s)', (_name, mutate, code, ruleId) => {
    const b = executeBundle();
    mutate(b);
    expectIssue(issuesOf(readEnvelope(b, 'execute_tool')), { code, ruleId });
  });

  it('args over max_request_bytes, in UTF-8 bytes (CETP-4.1-08)', () => {
    const b = executeBundle();
    const args = JSON.stringify({ note: '价'.repeat(100) }); // 300+ bytes, ~111 chars
    b.putString('args', args);
    expect(readEnvelope(b, 'execute_tool', { maxRequestBytes: 400 }).ok).toBe(true);
    expectIssue(issuesOf(readEnvelope(b, 'execute_tool', { maxRequestBytes: 200 })), {
      code: 'args_too_large',
      ruleId: 'CETP-4.1-08',
    });
  });

  it.each(['get_operation', 'cancel_operation'] as const)(
    '%s without operation_id (CETP-4.1-10)',
    (method) => {
      const b = new MapBundle();
      writeRequest(b, method, { ...ENVELOPE, operationId: 'op_1' });
      b.remove('operation_id');
      expectIssue(issuesOf(readEnvelope(b, method)), { code: 'missing_key', ruleId: 'CETP-4.1-10' });
    },
  );

  it.each<[string, number[] | null, string]>([
    ['ascending', [1, 2], 'invalid_versions'],
    ['repeated', [2, 2], 'invalid_versions'],
    ['empty', [], 'invalid_versions'],
    ['zero', [2, 0], 'invalid_versions'],
    ['null', null, 'missing_key'],
  ])('negotiate consumer_versions %s → %s (CETP-2.2-02)', (_name, versions, code) => {
    const b = MapBundle.of({
      consumer_versions: ['IntArray', versions],
      consumer_capabilities: ['String', '[]'],
    });
    expectIssue(issuesOf(readEnvelope(b, 'negotiate')), {
      code,
      ruleId: 'CETP-2.2-02',
      path: 'consumer_versions',
    });
  });

  it.each([
    ['not JSON', '[async', 'invalid_json'],
    ['not an array', '"cancellation"', 'wrong_type'],
    ['not strings', '[1]', 'wrong_type'],
  ])('negotiate consumer_capabilities %s → %s (CETP-2.2-03)', (_name, json, code) => {
    const b = MapBundle.of({ consumer_versions: ['IntArray', [2]], consumer_capabilities: ['String', json] });
    expectIssue(issuesOf(readEnvelope(b, 'negotiate')), { code, ruleId: 'CETP-2.2-03' });
  });

  it('reports every problem at once', () => {
    const b = MapBundle.of({ protocol_version: ['Long', 2], request_id: ['String', 'x'] });
    const issues = issuesOf(readEnvelope(b, 'execute_tool'));
    expect(issues.map((i) => i.path).sort()).toEqual(
      ['args', 'deadline_at_ms', 'protocol_version', 'request_id', 'session_token', 'tool_name'].sort(),
    );
  });
});

describe('classifyProtocolVersion (CETP-4-08, 4-09)', () => {
  it.each<[string, [BundleValueType, unknown] | null, ReturnType<typeof classifyProtocolVersion>]>([
    ['absent ⇒ v1 on a dual-stack provider', null, { kind: 'absent' }],
    ['Int 2', ['Int', 2], { kind: 'version', version: 2 }],
    ['Int 1', ['Int', 1], { kind: 'version', version: 1 }],
    ['Long 2', ['Long', 2], { kind: 'wrong_type', storedAs: 'Long' }],
  ])('%s', (_name, entry, expected) => {
    const b = entry === null ? new MapBundle() : MapBundle.of({ protocol_version: entry });
    expect(classifyProtocolVersion(b)).toEqual(expected);
  });
});
