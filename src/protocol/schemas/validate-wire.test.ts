import { describe, expect, expectTypeOf, it } from 'vitest';
import { expectIssue, issuesOf } from '../testing/expect-issue.ts';
import { patched } from '../testing/json-patch.ts';
import type { Node } from '../testing/schema-walk.ts';
import { parseWire, validateWire, WIRE_SHAPE_NAMES, type WireShape, type WireShapeName } from './registry.ts';
import { SPEC_EXAMPLES } from './spec-examples.ts';

describe('shape-specific rules', () => {
  const negotiate = JSON.parse(SPEC_EXAMPLES.negotiate_response.json);
  const status = JSON.parse(SPEC_EXAMPLES.operation_status_running.json);
  const file = JSON.parse(SPEC_EXAMPLES.file_result.json);

  it.each([
    [
      'uppercase sha256 (CETP-4.5-03)',
      'execution_result',
      file,
      '/sha256',
      file.sha256.toUpperCase(),
      'pattern_mismatch',
      'CETP-4.5-03',
    ],
    ['short sha256', 'execution_result', file, '/sha256', 'abc', 'pattern_mismatch', 'CETP-4.5-03'],
    ['negative size_bytes', 'execution_result', file, '/size_bytes', -1, 'out_of_range', 'CETP-4.5-02'],
    ['fractional size_bytes', 'execution_result', file, '/size_bytes', 1.5, 'wrong_type', 'CETP-4.5-02'],
    [
      'an unknown result kind',
      'execution_result',
      file,
      '/kind',
      'stream',
      'unknown_enum_value',
      'CETP-4.5-02',
    ],
    [
      'cancellation_requested as a get_operation state (NOTES 10b)',
      'operation_status',
      status,
      '/state',
      'cancellation_requested',
      'unknown_enum_value',
      'CETP-4.4-04',
    ],
    [
      'max_request_bytes below 65536',
      'negotiate_response',
      negotiate,
      '/limits/max_request_bytes',
      1024,
      'out_of_range',
      'CETP-2.2-17',
    ],
    [
      'idempotency window below a day',
      'negotiate_response',
      negotiate,
      '/limits/idempotency_window_seconds',
      3600,
      'out_of_range',
      'CETP-2.2-20',
    ],
    [
      'an unknown capability',
      'negotiate_response',
      negotiate,
      '/capabilities/0',
      'streaming',
      'unknown_enum_value',
      'CETP-2.2-06',
    ],
    [
      'a provider_id that is not a package name',
      'negotiate_response',
      negotiate,
      '/provider_id',
      'example',
      'pattern_mismatch',
      'CETP-3.1-02',
    ],
    [
      'a session token over 256 characters',
      'negotiate_response',
      negotiate,
      '/session_token',
      'x'.repeat(257),
      'length_out_of_range',
      'CETP-2.2-08',
    ],
    [
      'expires_at that is not RFC 3339',
      'negotiate_response',
      negotiate,
      '/expires_at',
      'tomorrow',
      'pattern_mismatch',
      'CETP-2.2-11',
    ],
  ] as const)('%s', (_name, shape, example, pointer, replacement, code, ruleId) => {
    expectIssue(issuesOf(validateWire(shape, patched(example, pointer, replacement))), {
      code,
      ruleId,
      path: pointer,
    });
  });

  it('a succeeded operation needs a result, a failed one an error (CETP-4.4-05, 4.4-06)', () => {
    expectIssue(issuesOf(validateWire('operation_status', { ...status, state: 'succeeded' })), {
      code: 'missing_required',
      ruleId: 'CETP-4.4-05',
      path: '/result',
    });
    expectIssue(issuesOf(validateWire('operation_status', { ...status, state: 'failed' })), {
      code: 'missing_required',
      ruleId: 'CETP-4.4-06',
      path: '/error',
    });
  });

  it('a failed operation error uses a known §5 code', () => {
    const failed = JSON.parse(SPEC_EXAMPLES.operation_status_failed.json);
    expectIssue(issuesOf(validateWire('operation_status', patched(failed, '/error/error_code', 'OOPS'))), {
      code: 'unknown_enum_value',
      ruleId: 'CETP-5-01',
      path: '/error/error_code',
    });
  });
});

describe('validateWire never throws', () => {
  const cyclic: Node = { operation_id: 'op', state: 'running' };
  cyclic.progress = cyclic;

  it.each([undefined, null, 0, 'text', [], () => 1, Symbol('s'), cyclic])('on %s', (value) => {
    for (const shape of WIRE_SHAPE_NAMES) expect(() => validateWire(shape, value)).not.toThrow();
  });

  it('an unknown shape name is an issue', () => {
    expectIssue(issuesOf(validateWire('no_such_shape' as WireShapeName, {})), { code: 'unknown_shape' });
  });

  it('parseWire reports invalid JSON with the shape rule ids and prefixes paths', () => {
    expectIssue(issuesOf(parseWire('accepted', '{"operation_id":', 'data')), {
      code: 'invalid_json',
      ruleId: 'CETP-4.4-02',
      path: 'data',
    });
    expectIssue(issuesOf(parseWire('accepted', '{"operation_id":"op"}', 'data')), {
      code: 'missing_required',
      path: 'data/poll_after_ms',
    });
  });
});

describe('types derived from the schemas (compile-time: checked by tsc)', () => {
  it('match the wire', () => {
    expectTypeOf<WireShape<'file_result'>>().toEqualTypeOf<{
      kind: 'file';
      media_type: string;
      size_bytes: number;
      sha256: string;
    }>();
    expectTypeOf<WireShape<'inline_result'>>().toEqualTypeOf<{ kind: 'inline'; value: unknown }>();
    expectTypeOf<WireShape<'execution_result'>>().toEqualTypeOf<
      WireShape<'inline_result'> | WireShape<'file_result'>
    >();
    expectTypeOf<WireShape<'accepted'>>().toEqualTypeOf<{ operation_id: string; poll_after_ms: number }>();
    expectTypeOf<WireShape<'cancel_response'>>().toEqualTypeOf<{
      operation_id: string;
      state: 'cancellation_requested';
    }>();
    expectTypeOf<WireShape<'operation_progress'>>().toEqualTypeOf<{
      current: number;
      total: number;
      message?: string;
    }>();
    expectTypeOf<WireShape<'tool_annotations'>>().toEqualTypeOf<{
      effect: 'read' | 'create' | 'update' | 'delete' | 'transaction';
      risk: 'low' | 'moderate' | 'high';
      destructive: boolean;
      idempotent: boolean;
      open_world: boolean;
      confirmation: 'never' | 'provider_policy' | 'always';
      execution: 'sync' | 'sync_or_async';
    }>();
    expectTypeOf<WireShape<'operation_status'>['state']>().toEqualTypeOf<
      'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
    >();
    expectTypeOf<WireShape<'operation_status'>>().toHaveProperty('result');
    expectTypeOf<WireShape<'negotiate_response'>['capabilities']>().toEqualTypeOf<
      ('async_operations' | 'cancellation' | 'large_results')[]
    >();
    expectTypeOf<WireShape<'provider_info'>['scopes'][number]['sensitivity']>().toEqualTypeOf<
      'public' | 'personal' | 'financial' | 'health' | 'device' | 'other'
    >();
    expectTypeOf<WireShape<'error_details'>>().toEqualTypeOf<{ [field: string]: unknown }>();
  });
});
