import { describe, expect, it } from 'vitest';
import { BUNDLE_KEYS, type BundleKey, REQUEST_KEYS, RESPONSE_KEYS, requirementOf } from './keys.ts';
import type { V2_METHOD_NAMES } from './methods.ts';

describe('Bundle key types (§2.2, §4.1, §4.3, §4.5, §5)', () => {
  it.each([
    ['protocol_version', 'Int'],
    ['session_token', 'String'],
    ['request_id', 'String'],
    ['deadline_at_ms', 'Long'],
    ['tool_name', 'String'],
    ['args', 'String'],
    ['resume_token', 'String'],
    ['operation_id', 'String'],
    ['consumer_versions', 'IntArray'],
    ['consumer_capabilities', 'String'],
    ['status', 'String'],
    ['data', 'String'],
    ['error_code', 'String'],
    ['error_message', 'String'],
    ['retryable', 'Boolean'],
    ['error_details', 'String'],
    ['retry_after_ms', 'Long'],
    ['resolution', 'PendingIntent'],
    ['result_fd', 'ParcelFileDescriptor'],
  ] as const)('%s is %s', (key, type) => {
    expect(BUNDLE_KEYS[key].type).toBe(type);
  });

  it('every key names at least one rule', () => {
    for (const [key, spec] of Object.entries(BUNDLE_KEYS))
      expect(spec.ruleIds.length, key).toBeGreaterThan(0);
  });
});

describe('request keys per method', () => {
  const required = (m: (typeof V2_METHOD_NAMES)[number]) =>
    REQUEST_KEYS[m].filter((r) => r.required).map((r) => r.key);
  const ENVELOPE: BundleKey[] = ['protocol_version', 'session_token', 'request_id', 'deadline_at_ms'];

  it('negotiate carries consumer_versions and consumer_capabilities only (CETP-2.2-02, 2.2-03)', () => {
    expect(required('negotiate')).toEqual(['consumer_versions', 'consumer_capabilities']);
  });

  it.each(['get_provider_info', 'list_tools', 'execute_tool', 'get_operation', 'cancel_operation'] as const)(
    '%s carries the full §4.1 envelope (NOTES 4 reading for list_tools/get_provider_info)',
    (m) => {
      expect(required(m).slice(0, 4)).toEqual(ENVELOPE);
    },
  );

  it('list_tools also cites the §3.3 table (CETP-3.3-01, 3.3-02)', () => {
    expect(requirementOf(REQUEST_KEYS.list_tools, 'protocol_version').ruleIds).toContain('CETP-3.3-01');
    expect(requirementOf(REQUEST_KEYS.list_tools, 'session_token').ruleIds).toContain('CETP-3.3-02');
  });

  it('execute_tool adds tool_name, args and an optional resume_token (CETP-4.1-06, 4.1-07)', () => {
    expect(required('execute_tool').slice(4)).toEqual(['tool_name', 'args']);
    expect(requirementOf(REQUEST_KEYS.execute_tool, 'resume_token').required).toBe(false);
  });

  it.each(['get_operation', 'cancel_operation'] as const)('%s adds operation_id (CETP-4.1-10)', (m) => {
    expect(required(m).slice(4)).toEqual(['operation_id']);
  });
});

describe('response keys', () => {
  const keys = (list: readonly { key: string; required: boolean }[], req = true) =>
    list.filter((r) => r.required === req).map((r) => r.key);

  it('an error carries the §5 fields and echoes the envelope (CETP-5-01 … 5-04)', () => {
    expect(keys(RESPONSE_KEYS.error)).toEqual([
      'status',
      'error_code',
      'error_message',
      'retryable',
      'protocol_version',
      'request_id',
    ]);
    expect(keys(RESPONSE_KEYS.error, false)).toEqual(['error_details', 'retry_after_ms']);
  });

  it('a negotiate error has nothing to echo (NOTES 20)', () => {
    expect(keys(RESPONSE_KEYS.negotiateError, false)).toContain('request_id');
    expect(keys(RESPONSE_KEYS.negotiateError, false)).toContain('protocol_version');
  });

  it('success and accepted echo protocol_version and request_id (CETP-4.2-01, 4.4-02)', () => {
    expect(keys(RESPONSE_KEYS.success)).toEqual(['status', 'protocol_version', 'request_id', 'data']);
    expect(keys(RESPONSE_KEYS.accepted)).toEqual(['status', 'protocol_version', 'request_id', 'data']);
    expect(keys(RESPONSE_KEYS.negotiateSuccess)).toEqual(['status', 'data']);
  });

  it('resolution errors and file results add their system objects (CETP-4.3-02, 4.5-02)', () => {
    expect(keys(RESPONSE_KEYS.resolution)).toEqual(['resolution', 'resume_token']);
    expect(keys(RESPONSE_KEYS.fileResult)).toEqual(['result_fd']);
  });

  it('requirementOf refuses a key the table lacks', () => {
    expect(() => requirementOf(RESPONSE_KEYS.success, 'error_code')).toThrow();
  });
});
