/**
 * Reply Bundles of a hostile provider, built by hand (no protocol-layer validation stands between
 * a hostile provider and the wire): v2 success, accepted and error replies (spec §4.2, §4.4, §5),
 * v1 replies (spec/interpretations.md "v1 and dual stack"), and the Bundle-level lies applied after
 * a reply is built — invalid JSON in `data`, protocol_version as a Long, retryable as a String, a
 * different request_id (ReplyTamper).
 */

import { caches } from '../../base/caches.ts';
import type { JsonValue } from '../../base/json.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import type { PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { ReplyTamper } from './behaviour.ts';

export function v2Success(requestId: string | null, data: JsonValue): Bundle {
  return v2SuccessText(requestId, JSON.stringify(data));
}

/** A v2 success whose `data` is the JSON text given (made once for a behaviour's constant data). */
export function v2SuccessText(requestId: string | null, dataJson: string): Bundle {
  const b = new Bundle();
  b.putString('status', 'success');
  if (requestId !== null) {
    b.putInt('protocol_version', 2);
    b.putString('request_id', requestId);
  }
  b.putString('data', dataJson);
  return b;
}

/**
 * JSON texts of replies' data made from a behaviour's constants (its tool list, an inline lie's
 * value, an oversized answer), by the constant: the cases' behaviours are module constants, their
 * data up to a megabyte, and every call serialised them again (issue 37). A behaviour is data that
 * nothing mutates, so its text is the same every time.
 */
const dataTexts = caches.weakMap<object, string>('providers/hostile: reply data JSON by behaviour constant');

/** `JSON.stringify(make())`, remembered by `key` (a behaviour's constant that `make` reads). */
export function constantDataJson(key: object, make: () => JsonValue): string {
  let text = dataTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(make());
    dataTexts.set(key, text);
  }
  return text;
}

export function v2Accepted(requestId: string, operationId: string, pollAfterMs = 1_000): Bundle {
  const b = new Bundle();
  b.putString('status', 'accepted');
  b.putInt('protocol_version', 2);
  b.putString('request_id', requestId);
  b.putString('data', JSON.stringify({ operation_id: operationId, poll_after_ms: pollAfterMs }));
  return b;
}

export interface ErrorFields {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: JsonValue;
  readonly resumeToken?: string;
  readonly resolution?: PendingIntent | null;
}

/** A v2 error reply; `requestId` null for negotiate, which has none to echo (NOTES 20). */
export function v2Error(requestId: string | null, e: ErrorFields): Bundle {
  const b = new Bundle();
  b.putString('status', 'error');
  b.putString('error_code', e.code);
  b.putString('error_message', e.message);
  b.putBoolean('retryable', e.retryable);
  b.putInt('protocol_version', 2);
  if (requestId !== null) b.putString('request_id', requestId);
  if (e.retryAfterMs !== undefined) b.putLong('retry_after_ms', e.retryAfterMs);
  if (e.details !== undefined) b.putString('error_details', JSON.stringify(e.details));
  if (e.resumeToken !== undefined) b.putString('resume_token', e.resumeToken);
  if (e.resolution) b.putPendingIntent('resolution', e.resolution);
  return b;
}

/**
 * `data` without its last character (the closing brace, quote or digit) and with text no JSON can
 * contain outside a string: the value never completes, so it never parses. The size barely changes.
 */
export function corruptJson(json: string): string {
  return `${json.slice(0, -1)}<<not json>>`;
}

/** Applies one Bundle-level lie to a reply; `otherRequestId` is what a different echo says. */
export function applyTamper(reply: Bundle, lie: ReplyTamper['lie'], otherRequestId: string): void {
  switch (lie) {
    case 'invalid_json_data': {
      const data = reply.typeOf('data') === 'String' ? reply.getString('data') : null;
      if (data !== null) reply.putString('data', corruptJson(data));
      return;
    }
    case 'protocol_version_as_long':
      reply.putLong('protocol_version', 2);
      return;
    case 'retryable_as_string':
      if (reply.typeOf('retryable') === 'Boolean')
        reply.putString('retryable', String(reply.getBoolean('retryable')));
      return;
    case 'different_request_id':
      if (reply.typeOf('request_id') === 'String') reply.putString('request_id', otherRequestId);
      return;
  }
}
