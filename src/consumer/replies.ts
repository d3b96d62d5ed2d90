/**
 * Reading a provider's reply to a v2 method, as untrusted input (spec §4, §5, §7.3).
 *
 * Success and accepted replies are read strictly with the protocol's readers: the request_id echo
 * must match, an `accepted` or a file result needs its capability in the session (2.3-02), and the
 * `data` string is measured against the consumer's caps before it is parsed (2.2-21, 7.3-01).
 * Error replies are read leniently — a malformed error is still an error — but never trusted more
 * than the §5 table allows: an unknown code is UNRECOGNIZED and not retryable (interpretations.md),
 * a code the table marks "no" is not retryable whatever the provider says, and the message is
 * clipped UntrustedText, shown as a quotation at most — or dropped when it leaks internals.
 */

import type { JsonObject } from '../base/json.ts';
import {
  type ErrorCode,
  findMessageLeaks,
  isKnownErrorCode,
  type ResponseByMethod,
  readResponseBundle,
  requestKeyOf,
  retryPolicyOf,
  utf8Exceeds,
  utf8Length,
  type V2MethodName,
} from '../protocol/index.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import type { ConsumerConfig } from './options.ts';
import type { CallOutcome } from './transport.ts';
import { type UntrustedText, untrustedText } from './untrusted.ts';

export interface ReceivedFailure {
  readonly code: ErrorCode | 'UNRECOGNIZED';
  /** What the consumer may act on: false for unknown codes and for codes the §5 table fixes at "no". */
  readonly retryable: boolean;
  /** What the provider claimed (for the planted bug that trusts it). */
  readonly claimedRetryable: boolean;
  readonly retryAfterMs: number | null;
  readonly message: UntrustedText;
  readonly details: JsonObject | null;
  readonly resumeToken: string | null;
  readonly resolution: PendingIntent | null;
}

export type Classified<M extends V2MethodName> =
  | { readonly kind: 'transport'; readonly outcome: Exclude<CallOutcome, { kind: 'reply' }> }
  | { readonly kind: 'invalid'; readonly issues: readonly string[]; readonly oversized: boolean }
  | { readonly kind: 'success'; readonly data: ResponseByMethod[M]; readonly bundle: Bundle }
  | { readonly kind: 'accepted'; readonly operationId: string; readonly pollAfterMs: number }
  | { readonly kind: 'error'; readonly error: ReceivedFailure };

export interface ClassifyOptions {
  readonly requestId: string;
  readonly capabilities: readonly string[];
  /** Cap on the UTF-8 size of `data`. */
  readonly maxDataBytes: number;
  /** For execute_tool: the session's inline limit (capped locally). */
  readonly maxInlineResultBytes?: number;
}

export function classify<M extends V2MethodName>(
  outcome: CallOutcome,
  method: M,
  options: ClassifyOptions,
  config: ConsumerConfig,
): Classified<M> {
  if (outcome.kind !== 'reply') return { kind: 'transport', outcome };
  const bundle = outcome.bundle;
  // An empty reply is what a caller reads when the provider threw a non-Parcel-able exception
  // (ANDROID-FACTS §1): the call may or may not have had its effect — an unknown outcome.
  if (bundle.isEmpty()) return { kind: 'transport', outcome: { kind: 'null' } };
  const status = bundle.typeOf('status') === 'String' ? bundle.getString('status') : null;
  if (status === 'error') return readFailure(bundle, options, config);
  const data = bundle.typeOf('data') === 'String' ? (bundle.getString('data') ?? '') : '';
  // The cap, measured once: the UTF-16 length settles it for most strings (utf8Exceeds), and the
  // protocol reader below is told the bound, so a large inline result is not counted twice.
  const capped = config.gates.on('CETP-7.3-01', 'CETP-2.2-21');
  if (capped && utf8Exceeds(data, options.maxDataBytes)) {
    return { kind: 'invalid', issues: ['oversized_data'], oversized: true };
  }
  if (method === 'list_tools' && status === 'success')
    return readToolListReply(bundle, data, options) as Classified<M>;
  const read = readResponseBundle(bundle, method, {
    expectedRequestId: options.requestId,
    negotiatedCapabilities: options.capabilities,
    ...(options.maxInlineResultBytes !== undefined
      ? { maxInlineResultBytes: options.maxInlineResultBytes }
      : {}),
    ...(capped ? { dataBytesAtMost: options.maxDataBytes } : {}),
  });
  if (!read.ok) {
    const oversized = read.issues.some((i) => i.code === 'out_of_range' && i.path === 'data');
    return { kind: 'invalid', issues: [...new Set(read.issues.map((i) => i.code))], oversized };
  }
  const response = read.value;
  if (response.status === 'accepted') {
    return {
      kind: 'accepted',
      operationId: response.data.operation_id,
      pollAfterMs: response.data.poll_after_ms,
    };
  }
  if (response.status === 'success') return { kind: 'success', data: response.data, bundle };
  return { kind: 'invalid', issues: ['unexpected_status'], oversized: false };
}

/**
 * list_tools is read leniently at the Bundle level and tool by tool afterwards (catalogue.ts): one
 * malformed descriptor disables that tool, not the provider (NOTES 15, CETP-3.2-11, 3.2-12).
 */
function readToolListReply(bundle: Bundle, data: string, options: ClassifyOptions): Classified<'list_tools'> {
  const issues: string[] = [];
  if (bundle.typeOf('protocol_version') !== 'Int' || bundle.getInt('protocol_version') !== 2)
    issues.push('echo_mismatch');
  const echo = bundle.typeOf('request_id') === 'String' ? bundle.getString('request_id') : null;
  if (echo === null || requestKeyOf(echo) !== requestKeyOf(options.requestId)) issues.push('echo_mismatch');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    issues.push('invalid_json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) issues.push('wrong_type');
  if (issues.length > 0) return { kind: 'invalid', issues: [...new Set(issues)], oversized: false };
  return { kind: 'success', data: parsed as ResponseByMethod['list_tools'], bundle };
}

function readFailure<M extends V2MethodName>(
  bundle: Bundle,
  options: ClassifyOptions,
  config: ConsumerConfig,
): Classified<M> {
  const echo = bundle.typeOf('request_id') === 'String' ? bundle.getString('request_id') : null;
  if (echo !== null && requestKeyOf(echo) !== requestKeyOf(options.requestId)) {
    return { kind: 'invalid', issues: ['echo_mismatch'], oversized: false };
  }
  const rawCode = bundle.typeOf('error_code') === 'String' ? (bundle.getString('error_code') ?? '') : '';
  const code = isKnownErrorCode(rawCode) ? rawCode : 'UNRECOGNIZED';
  const claimed = bundle.typeOf('retryable') === 'Boolean' && bundle.getBoolean('retryable');
  let retryable: boolean;
  if (code === 'UNRECOGNIZED') retryable = config.parts.unknownErrorRetryable(claimed);
  else retryable = claimed && retryPolicyOf(code) !== 'no';
  const after = bundle.typeOf('retry_after_ms') === 'Long' ? bundle.getLong('retry_after_ms') : null;
  const message =
    bundle.typeOf('error_message') === 'String' ? (bundle.getString('error_message') ?? '') : '';
  return {
    kind: 'error',
    error: {
      code,
      retryable,
      claimedRetryable: claimed,
      retryAfterMs: after !== null && after >= 0 ? after : null,
      message: providerMessage(message, config),
      details: readDetails(bundle, config),
      resumeToken:
        bundle.typeOf('resume_token') === 'String' ? nonEmpty(bundle.getString('resume_token')) : null,
      resolution:
        bundle.typeOf('resolution') === 'PendingIntent' ? bundle.getPendingIntent('resolution') : null,
    },
  };
}

/**
 * A provider's error message as display data: clipped (7.3-01), and dropped entirely when it leaks
 * internals — a stack trace, paths, credentials (5-25) — which the user should never be shown.
 */
export function providerMessage(raw: string | null, config: ConsumerConfig): UntrustedText {
  const text = raw ?? '';
  const enforce = config.gates.on('CETP-7.3-01');
  const leaks = enforce && findMessageLeaks(text.slice(0, 4 * config.limits.maxMessageChars)).length > 0;
  return untrustedText(leaks ? '' : text, config.limits.maxMessageChars, enforce);
}

function readDetails(bundle: Bundle, config: ConsumerConfig): JsonObject | null {
  if (bundle.typeOf('error_details') !== 'String') return null;
  const raw = bundle.getString('error_details') ?? '';
  if (utf8Length(raw) > config.limits.maxMetadataBytes) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : null;
  } catch {
    return null;
  }
}

function nonEmpty(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}
