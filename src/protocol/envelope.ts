/**
 * Request Bundles (spec §2.2 negotiate, §4.1 common fields, §4.3 resume): reading a request into a
 * typed value with issues for every missing key, wrong Bundle type or malformed value, and writing
 * one. Unknown keys are ignored, as Android ignores them.
 */
import { readKey } from './bundle-read.ts';
import type { BundleReader, BundleValueType, BundleWriter } from './bundle-types.ts';
import { utf8Length } from './digest.ts';
import { type IssueCode, issue, type ProtocolIssue, resultOf, type WireResult } from './issues.ts';
import { isJsonText, LONG_JSON_TEXT } from './json-text.ts';
import { type BundleKey, type KeyRequirement, REQUEST_KEYS } from './keys.ts';
import type { V2MethodName } from './methods.ts';
import { isToolName, isUuid, normalizeUuid, quoted } from './names.ts';
import { parseWire } from './schemas/registry.ts';

export const PROTOCOL_VERSION = 2;

export interface NegotiateRequest {
  consumerVersions: number[];
  consumerCapabilities: string[];
}

/** The §4.1 envelope. */
export interface V2Envelope {
  protocolVersion: typeof PROTOCOL_VERSION;
  sessionToken: string;
  requestId: string;
  deadlineAtMs: number;
}

declare const REQUEST_KEY: unique symbol;

/**
 * A request_id as the provider compares it: checked as a UUID and lower-cased, once, when the
 * envelope is read (the spec does not say whether ids compare case-sensitively; the reference reads
 * a UUID as one value whatever its case). Dedup keys, operation and confirmation bindings and effect
 * notes all use this form; the raw `requestId` is kept only to echo it back (5-03).
 */
export type RequestKey = string & { readonly [REQUEST_KEY]: 'RequestKey' };

/** The one place a request_id is normalised into a RequestKey. */
export function requestKeyOf(requestId: string): RequestKey {
  return normalizeUuid(requestId) as RequestKey;
}

/**
 * The request_id a reply echoes before the envelope is read (a malformed or refused request): the
 * String under `request_id` as sent, or '' when there is none.
 */
export function echoedRequestId(bundle: BundleReader): string {
  return bundle.typeOf('request_id') === 'String' ? (bundle.getString('request_id') ?? '') : '';
}

export interface ExecuteToolRequest extends V2Envelope {
  toolName: string;
  /** The exact args JSON string: resume tokens and dedup digests bind its bytes (NOTES 6). */
  args: string;
  resumeToken?: string;
  /**
   * `JSON.parse(args)`, when the request was read from a Bundle with valid JSON args shorter than
   * LONG_JSON_TEXT (readEnvelope parses them to check them; the provider takes this value instead of
   * parsing the bytes again; longer args are checked without keeping a value, json-text.ts).
   */
  argsValue?: unknown;
}

export interface OperationRequest extends V2Envelope {
  operationId: string;
}

export interface RequestByMethod {
  negotiate: NegotiateRequest;
  get_provider_info: V2Envelope;
  list_tools: V2Envelope;
  execute_tool: ExecuteToolRequest;
  get_operation: OperationRequest;
  cancel_operation: OperationRequest;
}

/** A request as the provider received it: with its RequestKey when it has an envelope. */
export type Received<T> = T extends V2Envelope ? T & { readonly requestKey: RequestKey } : T;

export type ReceivedByMethod = { [M in keyof RequestByMethod]: Received<RequestByMethod[M]> };

export interface EnvelopeOptions {
  /** The session's negotiated max_request_bytes; args above it are an issue (CETP-4.1-08). */
  readonly maxRequestBytes?: number;
}

/** Reads and checks a request Bundle for `method`; never throws. */
export function readEnvelope<M extends V2MethodName>(
  bundle: BundleReader,
  method: M,
  options: EnvelopeOptions = {},
): WireResult<ReceivedByMethod[M]> {
  const issues: ProtocolIssue[] = [];
  const fields: Partial<Record<BundleKey, unknown>> = {};
  const parsed: ParsedValues = {};
  for (const req of REQUEST_KEYS[method]) {
    const value = readKey(bundle, req, issues);
    if (value === undefined) continue;
    const before = issues.length;
    checkValue(req, value, options, issues, parsed);
    if (issues.length === before) fields[req.key] = value;
  }
  return resultOf(toRequest(method, fields, parsed) as ReceivedByMethod[M], issues);
}

/** JSON values that checking a request parsed already, kept so nothing parses them twice. */
interface ParsedValues {
  args?: { readonly value: unknown };
  consumerCapabilities?: { readonly value: unknown };
}

function checkValue(
  req: KeyRequirement,
  value: unknown,
  options: EnvelopeOptions,
  issues: ProtocolIssue[],
  parsed: ParsedValues,
): void {
  const { key } = req;
  switch (key) {
    case 'protocol_version':
      if (value !== PROTOCOL_VERSION)
        bad(req, issues, 'wrong_protocol_version', `protocol_version must be 2, got ${value}`);
      return;
    case 'request_id':
      if (!isUuid(value as string))
        bad(req, issues, 'invalid_uuid', `request_id ${quoted(value as string)} is not a UUID`);
      return;
    case 'deadline_at_ms':
      if (!Number.isSafeInteger(value) || (value as number) <= 0) {
        bad(
          req,
          issues,
          'invalid_deadline',
          `deadline_at_ms must be a positive epoch millisecond value, got ${value}`,
        );
      }
      return;
    case 'tool_name':
      if (!isToolName(value as string)) {
        issues.push(
          issue(
            'invalid_tool_name',
            `tool_name ${quoted(value as string)} is not a valid tool name`,
            [...req.ruleIds, 'CETP-3.1-03'],
            key,
          ),
        );
      }
      return;
    case 'args':
      checkArgs(value as string, req, options, issues, parsed);
      return;
    case 'consumer_versions':
      checkVersions(value as number[], req, issues);
      return;
    case 'consumer_capabilities': {
      const caps = parseWire('consumer_capabilities', value as string);
      if (caps.ok) parsed.consumerCapabilities = { value: caps.value };
      else issues.push(...caps.issues.map((i) => ({ ...i, path: `${key}${i.path ?? ''}` })));
      return;
    }
    default:
      // session_token, resume_token, operation_id: opaque, but never empty.
      if (value === '') bad(req, issues, 'empty_value', `${key} must not be empty`);
  }
}

function bad(req: KeyRequirement, issues: ProtocolIssue[], code: IssueCode, message: string): void {
  issues.push(issue(code, message, req.ruleIds, req.key));
}

function checkArgs(
  args: string,
  req: KeyRequirement,
  options: EnvelopeOptions,
  issues: ProtocolIssue[],
  parsed: ParsedValues,
): void {
  // Long args are only checked, the verdict remembered (json-text.ts): the provider parses them
  // itself if it gets as far (no argsValue), instead of every reader of the wire parsing them again.
  if (args.length >= LONG_JSON_TEXT) {
    if (!isJsonText(args)) issues.push(issue('invalid_json', 'args is not valid JSON', req.ruleIds, 'args'));
  } else {
    try {
      parsed.args = { value: JSON.parse(args) };
    } catch {
      issues.push(issue('invalid_json', 'args is not valid JSON', req.ruleIds, 'args'));
    }
  }
  const max = options.maxRequestBytes;
  if (max !== undefined && utf8Length(args) > max) {
    issues.push(
      issue(
        'args_too_large',
        `args is ${utf8Length(args)} UTF-8 bytes, over max_request_bytes=${max}`,
        ['CETP-4.1-08'],
        'args',
      ),
    );
  }
}

/** CETP-2.2-02: the consumer's major versions, non-empty, positive, strictly descending. */
function checkVersions(versions: number[], req: KeyRequirement, issues: ProtocolIssue[]): void {
  const descending = versions.every((v, i) => i === 0 || v < (versions[i - 1] as number));
  if (versions.length === 0 || versions.some((v) => v < 1) || !descending) {
    issues.push(
      issue(
        'invalid_versions',
        `consumer_versions must be positive and in descending order, got [${versions.join(',')}]`,
        req.ruleIds,
        'consumer_versions',
      ),
    );
  }
}

function toRequest(
  method: V2MethodName,
  f: Partial<Record<BundleKey, unknown>>,
  parsed: ParsedValues,
): unknown {
  if (method === 'negotiate') {
    return {
      consumerVersions: f.consumer_versions,
      // Parsed exactly when the key was accepted (its only check is that parse).
      consumerCapabilities: parsed.consumerCapabilities?.value ?? [],
    };
  }
  const request: Record<string, unknown> = {
    protocolVersion: f.protocol_version,
    sessionToken: f.session_token,
    requestId: f.request_id,
    deadlineAtMs: f.deadline_at_ms,
  };
  // Normalised here, once; only an accepted (UUID) request_id is in `f`.
  if (typeof f.request_id === 'string') request.requestKey = requestKeyOf(f.request_id);
  if (method === 'execute_tool') {
    request.toolName = f.tool_name;
    request.args = f.args;
    if (f.args !== undefined && parsed.args) request.argsValue = parsed.args.value;
    if (f.resume_token !== undefined) request.resumeToken = f.resume_token;
  }
  if (method === 'get_operation' || method === 'cancel_operation') request.operationId = f.operation_id;
  return request;
}

/** Writes a request Bundle for `method` with the right Bundle types. */
export function writeRequest<M extends V2MethodName>(
  bundle: BundleWriter,
  method: M,
  request: RequestByMethod[M],
): void {
  if (method === 'negotiate') {
    const r = request as NegotiateRequest;
    bundle.putIntArray('consumer_versions', [...r.consumerVersions]);
    bundle.putString('consumer_capabilities', JSON.stringify(r.consumerCapabilities));
    return;
  }
  const r = request as Partial<ExecuteToolRequest & OperationRequest>;
  bundle.putInt('protocol_version', PROTOCOL_VERSION);
  bundle.putString('session_token', r.sessionToken ?? null);
  bundle.putString('request_id', r.requestId ?? null);
  bundle.putLong('deadline_at_ms', r.deadlineAtMs ?? 0);
  if (r.toolName !== undefined) bundle.putString('tool_name', r.toolName);
  if (r.args !== undefined) bundle.putString('args', r.args);
  if (r.resumeToken !== undefined) bundle.putString('resume_token', r.resumeToken);
  if (r.operationId !== undefined) bundle.putString('operation_id', r.operationId);
}

/**
 * How the provider must dispatch a call (CETP-4-08, 4-09): no protocol_version ⇒ v1 on a dual-stack
 * provider; an Int ⇒ that version; any other type ⇒ malformed (Android's getInt would say 0).
 */
export type ProtocolVersionField =
  | { kind: 'absent' }
  | { kind: 'version'; version: number }
  | { kind: 'wrong_type'; storedAs: BundleValueType };

export function classifyProtocolVersion(bundle: BundleReader): ProtocolVersionField {
  const stored = bundle.typeOf('protocol_version');
  if (stored === null) return { kind: 'absent' };
  if (stored !== 'Int') return { kind: 'wrong_type', storedAs: stored };
  return { kind: 'version', version: bundle.getInt('protocol_version') };
}
