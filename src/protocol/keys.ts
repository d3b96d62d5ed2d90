/**
 * Every Bundle key of CETP v2 (spec §2.2, §3.3, §4.1 – §4.5, §5) with its Bundle type, and which
 * keys each method's request and each kind of response carries.
 *
 * Reading of NOTES 4: list_tools and get_provider_info carry all four §4.1 envelope fields
 * (protocol_version, session_token, request_id, deadline_at_ms), like every v2 method except
 * negotiate — the §3.3 table lists only the first two, but §4.1 governs every method. Success
 * responses of those methods echo protocol_version and request_id as §4.2 requires of a sync success.
 *
 * Reading of NOTES 20: negotiate carries no request_id or protocol_version, so a negotiate error has
 * nothing to echo; both keys are optional there.
 */
import type { BundleValueType } from './bundle-types.ts';
import type { V2MethodName } from './methods.ts';
import type { RuleId } from './rule-ids.ts';
import type { WireShapeName } from './schemas/registry.ts';

export type KeyContent =
  | 'protocol_version'
  | 'opaque_token'
  | 'uuid'
  | 'epoch_ms'
  | 'tool_name'
  | 'json'
  | 'identifier'
  | 'versions'
  | 'status'
  | 'error_code'
  | 'text'
  | 'boolean'
  | 'duration_ms'
  | 'system_object';

export interface BundleKeySpec {
  readonly type: BundleValueType;
  readonly content: KeyContent;
  /** For JSON strings whose shape is fixed by the key alone. */
  readonly shape?: WireShapeName;
  readonly ruleIds: readonly RuleId[];
}

export const BUNDLE_KEYS = {
  // negotiate request (§2.2)
  consumer_versions: { type: 'IntArray', content: 'versions', ruleIds: ['CETP-2.2-02'] },
  consumer_capabilities: {
    type: 'String',
    content: 'json',
    shape: 'consumer_capabilities',
    ruleIds: ['CETP-2.2-03'],
  },
  // §4.1 envelope
  protocol_version: { type: 'Int', content: 'protocol_version', ruleIds: ['CETP-4.1-01'] },
  session_token: { type: 'String', content: 'opaque_token', ruleIds: ['CETP-4.1-02', 'CETP-2.2-13'] },
  request_id: { type: 'String', content: 'uuid', ruleIds: ['CETP-4.1-03'] },
  deadline_at_ms: { type: 'Long', content: 'epoch_ms', ruleIds: ['CETP-4.1-05'] },
  // execute_tool, get_operation, cancel_operation (§4.1)
  tool_name: { type: 'String', content: 'tool_name', ruleIds: ['CETP-4.1-06', 'CETP-3.1-03'] },
  args: { type: 'String', content: 'json', ruleIds: ['CETP-4.1-06'] },
  resume_token: { type: 'String', content: 'opaque_token', ruleIds: ['CETP-4.1-07', 'CETP-4.3-03'] },
  operation_id: { type: 'String', content: 'identifier', ruleIds: ['CETP-4.1-10'] },
  // responses (§2.2, §4.2, §4.4, §4.5)
  status: {
    type: 'String',
    content: 'status',
    ruleIds: ['CETP-2.2-04', 'CETP-4.2-01', 'CETP-4.4-02', 'CETP-5-01'],
  },
  data: {
    type: 'String',
    content: 'json',
    ruleIds: ['CETP-2.2-04', 'CETP-4.2-02', 'CETP-4.4-02', 'CETP-4.4-07'],
  },
  result_fd: {
    type: 'ParcelFileDescriptor',
    content: 'system_object',
    ruleIds: ['CETP-4.5-02', 'CETP-4.5-04'],
  },
  // errors (§5, §4.3)
  error_code: { type: 'String', content: 'error_code', ruleIds: ['CETP-5-01'] },
  error_message: { type: 'String', content: 'text', ruleIds: ['CETP-5-02'] },
  retryable: { type: 'Boolean', content: 'boolean', ruleIds: ['CETP-5-01'] },
  error_details: { type: 'String', content: 'json', shape: 'error_details', ruleIds: ['CETP-5-04'] },
  retry_after_ms: { type: 'Long', content: 'duration_ms', ruleIds: ['CETP-5-04'] },
  resolution: { type: 'PendingIntent', content: 'system_object', ruleIds: ['CETP-4.3-02'] },
} as const satisfies Record<string, BundleKeySpec>;

export type BundleKey = keyof typeof BUNDLE_KEYS;

export interface KeyRequirement {
  readonly key: BundleKey;
  readonly required: boolean;
  /** The rules that require (or allow) this key in this position. */
  readonly ruleIds: readonly RuleId[];
}

const need = (key: BundleKey, ...ruleIds: RuleId[]): KeyRequirement => ({ key, required: true, ruleIds });
const may = (key: BundleKey, ...ruleIds: RuleId[]): KeyRequirement => ({ key, required: false, ruleIds });

/** The §4.1 envelope, on every v2 method except negotiate. */
const ENVELOPE: readonly KeyRequirement[] = [
  need('protocol_version', 'CETP-4.1-01'),
  need('session_token', 'CETP-4.1-02', 'CETP-2.2-13'),
  need('request_id', 'CETP-4.1-03'),
  need('deadline_at_ms', 'CETP-4.1-05'),
];

export const REQUEST_KEYS: Readonly<Record<V2MethodName, readonly KeyRequirement[]>> = Object.freeze({
  negotiate: [need('consumer_versions', 'CETP-2.2-02'), need('consumer_capabilities', 'CETP-2.2-03')],
  get_provider_info: ENVELOPE,
  list_tools: [
    need('protocol_version', 'CETP-4.1-01', 'CETP-3.3-01'),
    need('session_token', 'CETP-4.1-02', 'CETP-3.3-02'),
    need('request_id', 'CETP-4.1-03'),
    need('deadline_at_ms', 'CETP-4.1-05'),
  ],
  execute_tool: [
    ...ENVELOPE,
    need('tool_name', 'CETP-4.1-06'),
    need('args', 'CETP-4.1-06'),
    may('resume_token', 'CETP-4.1-07'),
  ],
  get_operation: [...ENVELOPE, need('operation_id', 'CETP-4.1-10')],
  cancel_operation: [...ENVELOPE, need('operation_id', 'CETP-4.1-10')],
});

export const RESPONSE_STATUSES = ['success', 'accepted', 'error'] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

/** Keys of each kind of response Bundle. */
export const RESPONSE_KEYS = Object.freeze({
  /** negotiate success (CETP-2.2-04): no envelope to echo. */
  negotiateSuccess: [need('status', 'CETP-2.2-04'), need('data', 'CETP-2.2-04')],
  /** Success of every other method (CETP-4.2-01, 4.2-02, 4.4-07). */
  success: [
    need('status', 'CETP-4.2-01'),
    need('protocol_version', 'CETP-4.2-01'),
    need('request_id', 'CETP-4.2-01'),
    need('data', 'CETP-4.2-02'),
  ],
  /** Added to a success whose data is a file result (CETP-4.5-02, 4.5-04). */
  fileResult: [need('result_fd', 'CETP-4.5-02', 'CETP-4.5-04')],
  /** execute_tool started an async operation (CETP-4.4-02). */
  accepted: [
    need('status', 'CETP-4.4-02'),
    need('protocol_version', 'CETP-4.4-02'),
    need('request_id', 'CETP-4.4-02'),
    need('data', 'CETP-4.4-02'),
  ],
  /** Every error (CETP-5-01 … 5-04). */
  error: [
    need('status', 'CETP-5-01'),
    need('error_code', 'CETP-5-01'),
    need('error_message', 'CETP-5-02'),
    need('retryable', 'CETP-5-01'),
    need('protocol_version', 'CETP-5-03'),
    need('request_id', 'CETP-5-03'),
    may('error_details', 'CETP-5-04'),
    may('retry_after_ms', 'CETP-5-04'),
  ],
  /** A negotiate error: as `error`, but nothing to echo (NOTES 20). */
  negotiateError: [
    need('status', 'CETP-5-01'),
    need('error_code', 'CETP-5-01'),
    need('error_message', 'CETP-5-02'),
    need('retryable', 'CETP-5-01'),
    may('protocol_version', 'CETP-5-03'),
    may('request_id', 'CETP-5-03'),
    may('error_details', 'CETP-5-04'),
    may('retry_after_ms', 'CETP-5-04'),
  ],
  /** Added to AUTH_REQUIRED and USER_ACTION_REQUIRED errors (CETP-4.3-02, 4.3-03). */
  resolution: [need('resolution', 'CETP-4.3-02'), need('resume_token', 'CETP-4.3-03')],
} satisfies Record<string, readonly KeyRequirement[]>);

/** The requirement for `key` in one of the tables above (a static lookup: the tables are constants). */
export function requirementOf<K extends BundleKey>(
  list: readonly KeyRequirement[],
  key: K,
): KeyRequirement & { readonly key: K } {
  const found = list.find((r) => r.key === key);
  if (found === undefined) throw new Error(`key ${key} is not in this requirement table`);
  return found as KeyRequirement & { readonly key: K };
}
