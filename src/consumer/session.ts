/**
 * `negotiate` from the consumer's side (spec §2.2, §8; NOTES "transient negotiate failures").
 *
 * The request offers consumer_versions [2, 1] (an int[], descending, CETP-2.2-02) and the enabled
 * capabilities as a JSON array string (2.2-03). The answer is untrusted: its shape, the selected
 * version (one we offered, and 2 — this path is only taken for v2), capabilities we offered, a
 * session token of at most 256 bytes, the limits' minimums, and provider_id under the package
 * namespace (3.1-02) are all checked. The session's limits are the negotiated ones capped by the
 * consumer's own (2.2-21, 2.2-22).
 *
 * Failures are classified: Binder death, a null reply, a timeout, UNAVAILABLE, RATE_LIMITED and a
 * retryable INTERNAL_ERROR leave the provider temporarily unavailable; anything else — a refusal,
 * an invalid answer, a failed security check — disables it. Neither ever leads to v1 (8-03, 8-08).
 */
import {
  type Capability,
  checkNegotiateResponse,
  isProviderIdInNamespace,
  type NegotiateRequest,
  readResponseBundle,
  utf8Length,
  writeRequest,
} from '../protocol/index.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { ConsumerConfig } from './options.ts';
import { type CallOutcome, closeFds, type ProviderChannel } from './transport.ts';

export const CONSUMER_VERSIONS: readonly number[] = [2, 1];

export interface SessionLimits {
  readonly maxRequestBytes: number;
  /** min(negotiated max_inline_result_bytes, the consumer's local cap). */
  readonly maxInlineResultBytes: number;
  readonly maxConcurrentRequests: number;
  readonly idempotencyWindowSeconds: number;
}

export interface Session {
  readonly token: string;
  readonly providerId: string;
  readonly capabilities: readonly Capability[];
  readonly limits: SessionLimits;
  /** Wall-clock expiry the provider announced, if any (2.2-11). */
  readonly expiresAtMs: number | null;
  /** Counts negotiations with this provider: a stale session is recognised by it. */
  readonly generation: number;
}

export type NegotiationFailure = {
  readonly ok: false;
  readonly temporary: boolean;
  readonly reason: string;
  readonly retryAfterMs?: number;
};

export type NegotiationResult = { readonly ok: true; readonly session: Session } | NegotiationFailure;

const TRANSIENT_CODES: readonly string[] = ['UNAVAILABLE', 'RATE_LIMITED'];

export function transportFailure(outcome: Exclude<CallOutcome, { kind: 'reply' }>): NegotiationFailure {
  if (outcome.kind === 'refused') {
    // Acquisition denied by a permission is a security refusal; an unknown authority may come back.
    return {
      ok: false,
      temporary: outcome.reason === 'unknown_authority',
      reason: `acquire_${outcome.reason}`,
    };
  }
  return { ok: false, temporary: true, reason: `transport_${outcome.kind}` };
}

export async function negotiate(
  channel: ProviderChannel,
  packageName: string,
  config: ConsumerConfig,
  generation: number,
): Promise<NegotiationResult> {
  const request: NegotiateRequest = {
    consumerVersions: [...CONSUMER_VERSIONS],
    consumerCapabilities: [...config.capabilities],
  };
  const extras = new Bundle();
  writeRequest(extras, 'negotiate', request);
  const outcome = await channel.call('negotiate', extras);
  if (outcome.kind !== 'reply') return transportFailure(outcome);
  const bundle = outcome.bundle;
  try {
    return readNegotiation(bundle, request, packageName, config, generation);
  } finally {
    closeFds(bundle);
  }
}

function readNegotiation(
  bundle: Bundle,
  request: NegotiateRequest,
  packageName: string,
  config: ConsumerConfig,
  generation: number,
): NegotiationResult {
  const { gates, limits: local } = config;
  const data = bundle.typeOf('data') === 'String' ? bundle.getString('data') : null;
  if (data !== null && gates.on('CETP-7.3-01') && utf8Length(data) > local.maxMetadataBytes) {
    return { ok: false, temporary: false, reason: 'oversized_response' };
  }
  const read = readResponseBundle(bundle, 'negotiate');
  if (!read.ok) return { ok: false, temporary: false, reason: 'invalid_response' };
  const response = read.value;
  if (response.status === 'error') {
    const e = response.error;
    const transient =
      TRANSIENT_CODES.includes(e.code) || (e.code === 'INTERNAL_ERROR' && e.retryable === true);
    return {
      ok: false,
      temporary: transient,
      reason: `negotiate_${e.code}`,
      ...(transient && e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
    };
  }
  if (response.status !== 'success') return { ok: false, temporary: false, reason: 'invalid_response' };
  const answer = response.data;
  if (checkNegotiateResponse(answer, request).length > 0 || answer.selected_version !== 2) {
    return { ok: false, temporary: false, reason: 'invalid_negotiation' };
  }
  if (gates.on('CETP-3.1-02') && !isProviderIdInNamespace(answer.provider_id, packageName)) {
    return { ok: false, temporary: false, reason: 'provider_id_outside_package' };
  }
  const expires = answer.expires_at === undefined ? Number.NaN : Date.parse(answer.expires_at);
  const cap = gates.on('CETP-2.2-21') ? local.maxInlineResultBytes : Number.POSITIVE_INFINITY;
  return {
    ok: true,
    session: {
      token: answer.session_token,
      providerId: answer.provider_id,
      capabilities: [...answer.capabilities],
      limits: {
        maxRequestBytes: answer.limits.max_request_bytes,
        maxInlineResultBytes: Math.min(answer.limits.max_inline_result_bytes, cap),
        maxConcurrentRequests: answer.limits.max_concurrent_requests,
        idempotencyWindowSeconds: answer.limits.idempotency_window_seconds,
      },
      expiresAtMs: Number.isFinite(expires) ? expires : null,
      generation,
    },
  };
}

/** May `method` be used in `session`? (2.3-04, 4-05, 4-06, 8-06) */
export function sessionAllows(session: Session, capability: Capability): boolean {
  return session.capabilities.includes(capability);
}
