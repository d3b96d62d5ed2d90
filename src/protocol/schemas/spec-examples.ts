/**
 * The spec's own JSON examples (cetp-v2.zh.md §2.2, §3.2, §3.3, §4.2, §4.4, §4.5), copied verbatim
 * where the spec gives complete JSON. Where the spec gives a template or prose instead, the example is
 * built from it and marked `verbatim: false` with what was filled in. The schema tests require every
 * schema to accept these; reference providers may reuse them as fixtures.
 */
import type { WireShapeName } from './registry.ts';

export interface SpecExample {
  readonly section: string;
  readonly shape: WireShapeName;
  readonly verbatim: boolean;
  readonly note?: string;
  readonly json: string;
}

export const SPEC_EXAMPLES = {
  negotiate_response: {
    section: '2.2',
    shape: 'negotiate_response',
    verbatim: true,
    json: `{
  "selected_version": 2,
  "provider_id": "com.example.app",
  "provider_name": "Example App",
  "session_token": "opaque-provider-issued-token",
  "expires_at": "2026-09-02T12:00:00Z",
  "capabilities": [
    "async_operations",
    "cancellation",
    "large_results"
  ],
  "limits": {
    "max_request_bytes": 65536,
    "max_inline_result_bytes": 262144,
    "max_concurrent_requests": 4,
    "idempotency_window_seconds": 86400
  }
}`,
  },
  provider_info: {
    section: '3.2',
    shape: 'provider_info',
    verbatim: true,
    json: `{
  "provider_id": "com.example.app",
  "provider_name": "Example App",
  "description": "管理价格提醒和自选列表",
  "schema_dialect": "https://json-schema.org/draft/2020-12/schema",
  "scopes": [
    {
      "name": "alerts.write",
      "title": "管理价格提醒",
      "description": "创建、修改和删除提醒",
      "access": "write",
      "sensitivity": "financial"
    }
  ]
}`,
  },
  list_tools_response: {
    section: '3.3',
    shape: 'list_tools_response',
    verbatim: true,
    json: `{
  "revision": "tools-42",
  "tools": [
    {
      "name": "create_alert",
      "title": "创建价格提醒",
      "description": "为指定证券创建价格提醒",
      "input_schema": {
        "type": "object",
        "properties": {
          "symbol": {"type": "string"},
          "price": {"type": "number", "exclusiveMinimum": 0}
        },
        "required": ["symbol", "price"],
        "additionalProperties": false
      },
      "output_schema": {
        "type": "object",
        "properties": {"alert_id": {"type": "string"}},
        "required": ["alert_id"]
      },
      "scopes": ["alerts.write"],
      "annotations": {
        "effect": "create",
        "risk": "moderate",
        "destructive": false,
        "idempotent": false,
        "open_world": false,
        "confirmation": "provider_policy",
        "execution": "sync_or_async"
      }
    }
  ]
}`,
  },
  inline_result: {
    section: '4.2',
    shape: 'execution_result',
    verbatim: false,
    note: 'the spec writes value as <any JSON conforming to output_schema>; filled with a create_alert output',
    json: `{"kind":"inline","value":{"alert_id":"alert-1"}}`,
  },
  accepted: {
    section: '4.4',
    shape: 'accepted',
    verbatim: true,
    json: `{"operation_id":"op_123","poll_after_ms":1000}`,
  },
  operation_status_running: {
    section: '4.4',
    shape: 'operation_status',
    verbatim: true,
    json: `{
  "operation_id": "op_123",
  "state": "running",
  "progress": {"current": 40, "total": 100, "message": "正在同步"},
  "poll_after_ms": 1000
}`,
  },
  operation_status_succeeded: {
    section: '4.4',
    shape: 'operation_status',
    verbatim: false,
    note: 'prose: "终态 succeeded 包含 result" with the same envelope as a sync call',
    json: `{"operation_id":"op_123","state":"succeeded","result":{"kind":"inline","value":{"alert_id":"alert-1"}}}`,
  },
  operation_status_failed: {
    section: '4.4',
    shape: 'operation_status',
    verbatim: false,
    note: 'prose: "failed 包含与第 5 节字段一致的 error 对象"',
    json: `{"operation_id":"op_123","state":"failed","error":{"error_code":"UNAVAILABLE","error_message":"The app is temporarily unavailable.","retryable":true,"retry_after_ms":2000}}`,
  },
  cancel_response: {
    section: '4.4',
    shape: 'cancel_response',
    verbatim: false,
    note: 'prose: cancel_operation success returns state="cancellation_requested"',
    json: `{"operation_id":"op_123","state":"cancellation_requested"}`,
  },
  file_result: {
    section: '4.5',
    shape: 'execution_result',
    verbatim: false,
    note: 'the spec writes sha256 as "<lowercase hex>"; filled with the SHA-256 of the empty string',
    json: `{
  "kind":"file",
  "media_type":"application/json",
  "size_bytes":1048576,
  "sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}`,
  },
} as const satisfies Record<string, SpecExample>;

export type SpecExampleName = keyof typeof SPEC_EXAMPLES;
