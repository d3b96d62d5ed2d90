/**
 * Success and accepted response Bundles (spec §2.2, §4.2, §4.4, §4.5): writing them with the right
 * Bundle types after validating `data` against the method's wire shape, and reading any response
 * (success, accepted or error) into a typed value with issues.
 *
 * Reading of NOTES 12c: the inline size that max_inline_result_bytes bounds (CETP-4.5-01) is the
 * UTF-8 length of the whole `data` string, i.e. what actually occupies the Bundle.
 */
import { readKey } from './bundle-read.ts';
import type { BundleReader, BundleWriter } from './bundle-types.ts';
import { utf8Length } from './digest.ts';
import { PROTOCOL_VERSION } from './envelope.ts';
import { type ReceivedError, readErrorBundle } from './error-bundle.ts';
import { fail, issue, ok, type ProtocolIssue, resultOf, type WireResult } from './issues.ts';
import { type KeyRequirement, RESPONSE_KEYS, requirementOf } from './keys.ts';
import { V2_METHODS, type V2MethodName } from './methods.ts';
import { parseWire, validateWire, type WireShape } from './schemas/registry.ts';

export interface ResponseByMethod {
  negotiate: WireShape<'negotiate_response'>;
  get_provider_info: WireShape<'provider_info'>;
  list_tools: WireShape<'list_tools_response'>;
  execute_tool: WireShape<'execution_result'>;
  get_operation: WireShape<'operation_status'>;
  cancel_operation: WireShape<'cancel_response'>;
}

export type ReceivedResponse<M extends V2MethodName> =
  | { status: 'success'; data: ResponseByMethod[M]; hasResultFd: boolean }
  | { status: 'accepted'; data: WireShape<'accepted'> }
  | { status: 'error'; error: ReceivedError };

export interface ReadResponseOptions {
  /** The request's request_id; the echo must equal it (CETP-4.2-01, 4.4-02, 5-03). */
  readonly expectedRequestId?: string;
  /** When given, accepted and file outcomes need async_operations / large_results (CETP-2.3-02). */
  readonly negotiatedCapabilities?: readonly string[];
  /** When given, an inline `data` above it is an issue (CETP-4.5-01). */
  readonly maxInlineResultBytes?: number;
  /** `JSON.parse` of this very Bundle's `data` string, when the caller has done it already. */
  readonly parsedData?: { readonly value: unknown };
  /**
   * A bound the caller has already established on the UTF-8 size of this Bundle's `data` string
   * (it measured it): at or under maxInlineResultBytes, the string is not measured again.
   */
  readonly dataBytesAtMost?: number;
}

/** The UTF-8 size of the `data` string an inline result of `value` would occupy. */
export function inlineResultBytes(value: unknown): number {
  return inlineResultBytesOfJson(JSON.stringify(value));
}

/** `{"kind":"inline","value":` and `}` around the value's JSON. */
const INLINE_WRAPPER_BYTES = utf8Length(JSON.stringify({ kind: 'inline', value: 0 })) - 1;

/**
 * The `data` string of an inline result from the value's JSON text: the very string
 * `JSON.stringify({ kind: 'inline', value })` gives, without serialising the value a second time.
 */
export function inlineDataJson(valueJson: string): string {
  return `{"kind":"inline","value":${valueJson}}`;
}

/** inlineResultBytes from the value's JSON text, when the caller has it already. */
export function inlineResultBytesOfJson(valueJson: string): number {
  return INLINE_WRAPPER_BYTES + utf8Length(valueJson);
}

/** The start of an inline result's `data` string, before the value's JSON. */
const INLINE_PREFIX = '{"kind":"inline","value":';

/**
 * The value's JSON inside the `data` string `JSON.stringify({ kind: 'inline', value })` (a slice:
 * no copy), for a value that turned out too large for inline.
 */
export function valueJsonOf(inlineData: string): string {
  return inlineData.slice(INLINE_PREFIX.length, -1);
}

/**
 * `utf8Length(text) > limit`, counting only when the UTF-16 length does not settle it: a code unit
 * is one to three UTF-8 bytes (a surrogate pair, two units, four). Counting a large data string
 * costs a pass over it on every inline result a consumer reads.
 */
export function utf8Exceeds(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (3 * text.length <= limit) return false;
  return utf8Length(text) > limit;
}

/**
 * Whether the `data` string of an inline result, `JSON.stringify({ kind: 'inline', value })`, fits
 * in `limit` UTF-8 bytes (CETP-4.5-01): fitsInline for the whole string.
 */
export function fitsInlineData(inlineData: string, limit: number): boolean {
  return !utf8Exceeds(inlineData, limit);
}

/**
 * Whether an inline result with this JSON fits in `limit` bytes (CETP-4.5-01). A UTF-16 code unit
 * takes one to three UTF-8 bytes, so most answers need no byte count (which for a large result costs
 * more than serialising it).
 */
export function fitsInline(valueJson: string, limit: number): boolean {
  if (INLINE_WRAPPER_BYTES + valueJson.length > limit) return false;
  if (INLINE_WRAPPER_BYTES + 3 * valueJson.length <= limit) return true;
  return inlineResultBytesOfJson(valueJson) <= limit;
}

/**
 * Writes a status="success" response; refuses (writes nothing) when `data` is not a valid shape.
 * `dataJson`, when given, is `JSON.stringify(data)` already done by the caller (a large inline result
 * is serialised once, for its size check and its Bundle alike).
 */
export function writeSuccessBundle<M extends V2MethodName>(
  bundle: BundleWriter,
  method: M,
  response: { requestId: string; data: ResponseByMethod[M]; dataJson?: string },
): ProtocolIssue[] {
  const checked = validateWire(V2_METHODS[method].successShape, response.data);
  if (!checked.ok) return checked.issues.map((i) => ({ ...i, path: `data${i.path ?? ''}` }));
  bundle.putString('status', 'success');
  if (method !== 'negotiate') {
    bundle.putInt('protocol_version', PROTOCOL_VERSION);
    bundle.putString('request_id', response.requestId);
  }
  bundle.putString('data', response.dataJson ?? JSON.stringify(response.data));
  return [];
}

/** Writes the status="accepted" response of an async execute_tool (CETP-4.4-02). */
export function writeAcceptedBundle(
  bundle: BundleWriter,
  response: { requestId: string; data: WireShape<'accepted'> },
): ProtocolIssue[] {
  const checked = validateWire('accepted', response.data);
  if (!checked.ok) return checked.issues.map((i) => ({ ...i, path: `data${i.path ?? ''}` }));
  bundle.putString('status', 'accepted');
  bundle.putInt('protocol_version', PROTOCOL_VERSION);
  bundle.putString('request_id', response.requestId);
  bundle.putString('data', JSON.stringify(response.data));
  return [];
}

/** Reads any response Bundle of `method`; never throws. */
export function readResponseBundle<M extends V2MethodName>(
  bundle: BundleReader,
  method: M,
  options: ReadResponseOptions = {},
): WireResult<ReceivedResponse<M>> {
  const status = bundle.typeOf('status') === 'String' ? bundle.getString('status') : null;
  if (status === 'error') {
    const error = readErrorBundle(bundle, { method, ...echoOptions(options) });
    return error.ok ? ok({ status: 'error', error: error.value }) : fail(error.issues);
  }
  if (status === 'success') return readSuccess(bundle, method, options);
  if (status === 'accepted' && V2_METHODS[method].acceptedShape !== undefined) {
    return readAccepted(bundle, options) as WireResult<ReceivedResponse<M>>;
  }
  const issues: ProtocolIssue[] = [];
  readKey(bundle, requirementOf(RESPONSE_KEYS.success, 'status'), issues);
  if (issues.length === 0) {
    issues.push(
      issue(
        'unknown_status',
        `status ${JSON.stringify(status)} is not valid for ${method}`,
        ['CETP-4.2-01'],
        'status',
      ),
    );
  }
  return fail(issues);
}

function echoOptions(options: ReadResponseOptions): { expectedRequestId?: string } {
  return options.expectedRequestId === undefined ? {} : { expectedRequestId: options.expectedRequestId };
}

function readSuccess<M extends V2MethodName>(
  bundle: BundleReader,
  method: M,
  options: ReadResponseOptions,
): WireResult<ReceivedResponse<M>> {
  const issues: ProtocolIssue[] = [];
  const reqs = method === 'negotiate' ? RESPONSE_KEYS.negotiateSuccess : RESPONSE_KEYS.success;
  if (method !== 'negotiate') checkEcho(bundle, reqs, options, issues);
  const json = readKey(bundle, requirementOf(reqs, 'data'), issues);
  if (json === undefined) return fail(issues);
  const data = parseWire(V2_METHODS[method].successShape, json, 'data', options.parsedData);
  if (!data.ok) return fail([...issues, ...data.issues]);
  const hasResultFd = bundle.typeOf('result_fd') === 'ParcelFileDescriptor';
  const kind = method === 'execute_tool' ? (data.value as { kind?: string }).kind : undefined;
  if (kind === 'file') {
    readKey(bundle, requirementOf(RESPONSE_KEYS.fileResult, 'result_fd'), issues);
    requireCapability(options, 'large_results', ['CETP-2.3-02', 'CETP-4.5-11'], issues);
  }
  if (
    kind === 'inline' &&
    options.maxInlineResultBytes !== undefined &&
    !(options.dataBytesAtMost !== undefined && options.dataBytesAtMost <= options.maxInlineResultBytes) &&
    utf8Exceeds(json, options.maxInlineResultBytes)
  ) {
    issues.push(
      issue(
        'out_of_range',
        `inline data exceeds max_inline_result_bytes=${options.maxInlineResultBytes}`,
        ['CETP-4.5-01'],
        'data',
      ),
    );
  }
  const value = { status: 'success', data: data.value, hasResultFd } as ReceivedResponse<M>;
  return resultOf(value, issues);
}

function readAccepted(
  bundle: BundleReader,
  options: ReadResponseOptions,
): WireResult<ReceivedResponse<'execute_tool'>> {
  const issues: ProtocolIssue[] = [];
  checkEcho(bundle, RESPONSE_KEYS.accepted, options, issues);
  requireCapability(options, 'async_operations', ['CETP-2.3-03', 'CETP-4.4-01'], issues);
  const json = readKey(bundle, requirementOf(RESPONSE_KEYS.accepted, 'data'), issues);
  if (json === undefined) return fail(issues);
  const data = parseWire('accepted', json, 'data', options.parsedData);
  if (!data.ok) return fail([...issues, ...data.issues]);
  return resultOf({ status: 'accepted', data: data.value }, issues);
}

function checkEcho(
  bundle: BundleReader,
  reqs: readonly KeyRequirement[],
  options: ReadResponseOptions,
  issues: ProtocolIssue[],
): void {
  const versionReq = requirementOf(reqs, 'protocol_version');
  const idReq = requirementOf(reqs, 'request_id');
  const version = readKey(bundle, versionReq, issues);
  if (version !== undefined && version !== PROTOCOL_VERSION) {
    issues.push(
      issue(
        'echo_mismatch',
        `protocol_version is ${version}, expected 2`,
        versionReq.ruleIds,
        'protocol_version',
      ),
    );
  }
  const requestId = readKey(bundle, idReq, issues);
  if (
    requestId !== undefined &&
    options.expectedRequestId !== undefined &&
    requestId !== options.expectedRequestId
  ) {
    issues.push(
      issue('echo_mismatch', 'request_id echo differs from the request', idReq.ruleIds, 'request_id'),
    );
  }
}

function requireCapability(
  options: ReadResponseOptions,
  capability: string,
  ruleIds: Parameters<typeof issue>[2],
  issues: ProtocolIssue[],
): void {
  if (options.negotiatedCapabilities === undefined || options.negotiatedCapabilities.includes(capability))
    return;
  issues.push(
    issue(
      'outcome_not_negotiated',
      `this response needs ${capability}, which was not negotiated`,
      ruleIds,
      'status',
    ),
  );
}
