/**
 * Oracles over malformed requests (spec §9 CETP-9-03; §5 CETP-5-13, 5-14, 5-15) and over what an
 * error answer promises: nothing happened.
 *
 * Which calls are malformed is decided here, from the request as it travelled (the world's wire
 * log), with the protocol's own reader (src/protocol/envelope.ts readEnvelope) — never from what the
 * generator meant to send: a v2 call is malformed when its method does not exist, or when its
 * request Bundle misses a required key, holds one with the wrong Bundle type or a value out of its
 * domain (request_id not a UUID, deadline not positive, args not JSON or over the session's
 * max_request_bytes, consumer_versions not descending, …). Unknown keys do not make a call
 * malformed. A request larger than the Binder buffer is malformed whatever it holds; it never
 * reaches the provider (the caller's TransactionTooLargeException is Android's refusal, not the
 * provider's). A call without protocol_version is a v1 (or version-less) call, judged by the v1
 * oracles.
 *
 * - `malformed-refused`: every malformed call a provider under test answered got a structured CETP
 *   error — a well-formed error Bundle, not success or accepted, not INTERNAL_ERROR (the provider
 *   choked on the input instead of refusing it), never an exception or a null reply (a crash).
 * - `error-means-no-effect`: no business effect (world.truth, committed) belongs to a request every
 *   answer of which was an error: an error answer tells the caller nothing happened, and a caller
 *   that believes it never retries or reconciles.
 */
import {
  type BundleReader,
  readEnvelope,
  readErrorBundle,
  V2_METHOD_NAMES,
  type V2MethodName,
} from '../../protocol/index.ts';
import { TTLE_REQUEST_THRESHOLD_BYTES } from '../../sim/binder/binder-types.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { bundleParcelSize } from '../../sim/binder/parcel.ts';
import { BINDER_BUFFER_BYTES } from '../../sim/process/process.ts';
import { type Checker, groupBy } from '../checker.ts';
import { consistency, judgeRun, schema } from '../checker-kit.ts';
import { type CallView, effectEvents, issuerOf, memoOn, type Observation } from '../observation.ts';

const V2_METHODS_SET: ReadonlySet<string> = new Set(V2_METHOD_NAMES);
const EMPTY = new Bundle();

/** Why a call's request is malformed, or null when it is a well-formed v2 (or v1) request. */
export function malformedReason(obs: Observation, c: CallView): string | null {
  const request: BundleReader = c.request ?? EMPTY;
  // Over the Binder buffer: no provider can receive it, whatever its keys say.
  const bytes = bundleParcelSize(c.request);
  if (bytes > BINDER_BUFFER_BYTES)
    return `a ${bytes}-byte request, over the Binder buffer (${BINDER_BUFFER_BYTES})`;
  // No protocol_version: a v1 call (CETP-4-08, 4-09), or a version-less one. The v1 wire is not the
  // spec's, and an SDK may serve v1 whatever its manifest says: dual-stack-v1 and v1-read-only judge it.
  if (c.method !== 'negotiate' && !request.containsKey('protocol_version')) return null;
  if (!V2_METHODS_SET.has(c.method))
    return `unknown method ${JSON.stringify(c.method.length > 40 ? `${c.method.slice(0, 40)}…` : c.method)}`;
  const method = c.method as V2MethodName;
  const maxRequestBytes = negotiatedMaxRequestBytes(obs, c);
  const read = readEnvelope(
    request,
    method,
    maxRequestBytes === undefined ? {} : { maxRequestBytes: maxRequestBytes },
  );
  if (read.ok) return null;
  const first = read.issues[0];
  return `${first?.path ?? ''}: ${first?.message ?? 'malformed'}`;
}

/** max_request_bytes of the session the call names, if this run negotiated it. */
function negotiatedMaxRequestBytes(obs: Observation, c: CallView): number | undefined {
  const issuer = issuerOf(obs, c);
  if (issuer?.reply.kind !== 'bundle') return undefined;
  const limits = (issuer.reply.data as { limits?: { max_request_bytes?: unknown } } | undefined)?.limits;
  const max = limits?.max_request_bytes;
  return typeof max === 'number' ? max : undefined;
}

export interface MalformedCall {
  readonly call: CallView;
  readonly reason: string;
}

/** The malformed calls to providers under test, computed once per observation. */
export function malformedCalls(obs: Observation, providers: readonly string[]): readonly MalformedCall[] {
  const all = memoOn(obs, MALFORMED, () => {
    const out: MalformedCall[] = [];
    for (const call of obs.calls) {
      const reason = malformedReason(obs, call);
      if (reason !== null) out.push({ call, reason });
    }
    return out;
  });
  return all.filter((m) => providers.includes(m.call.provider));
}
const MALFORMED: unique symbol = Symbol('cetp.check.malformed');

/** How a malformed call was answered: refused properly, or how it was not. */
export type Refusal =
  | { readonly ok: true; readonly by: 'provider' | 'binder' }
  | { readonly ok: false; readonly why: string }
  | null; // not answered (the run ended first: run-progress judges that)

export function refusalOf(c: CallView): Refusal {
  const r = c.reply;
  switch (r.kind) {
    case 'none':
      return null;
    case 'null':
      return { ok: false, why: 'a null reply (the provider threw, or answered nothing)' };
    case 'exception':
      // The Binder failed the transaction (a request too large, or the callee's buffer full with
      // other calls): Android's refusal, the provider never answered. A provider process that died
      // on the input is no-crash's finding (its crash is recorded), not an answer to judge here.
      if (
        r.name === 'TransactionTooLargeException' &&
        bundleParcelSize(c.request) > TTLE_REQUEST_THRESHOLD_BYTES
      )
        return { ok: true, by: 'binder' };
      if (r.name === 'DeadObjectException') return { ok: true, by: 'binder' };
      return { ok: false, why: `the exception ${r.name} (the provider threw on it)` };
    case 'bundle': {
      if (r.status !== 'error') return { ok: false, why: `status ${JSON.stringify(r.status)}, not an error` };
      if (r.errorCode === 'INTERNAL_ERROR')
        return { ok: false, why: 'INTERNAL_ERROR (the provider failed on the input instead of refusing it)' };
      const method = V2_METHODS_SET.has(c.method) ? (c.method as V2MethodName) : 'list_tools';
      const read = readErrorBundle(r.bundle, { method });
      if (!read.ok) return { ok: false, why: `a malformed error Bundle (${read.issues[0]?.message})` };
      return { ok: true, by: 'provider' };
    }
  }
}

export const malformedRefused = judgeRun({
  id: 'malformed-refused',
  ruleIds: ['CETP-5-15', 'CETP-5-13', 'CETP-5-14', 'CETP-5-01', 'CETP-9-03', 'CETP-7.3-04'],
  description:
    'Every malformed request (judged from the wire by the protocol reader: unknown method, missing key, wrong Bundle type, value out of its domain) is answered with a well-formed CETP error other than INTERNAL_ERROR — never success, a crash, an exception or a null reply.',
  fields: [
    schema(
      'the protocol reader: a request with a bad field is refused with a structured error (provider side)',
      'req:*',
      'json:consumer_capabilities*',
    ),
    consistency(
      "args over the session's max_request_bytes are refused",
      'req:execute_tool:args',
      'json:negotiate_response/limits/max_request_bytes',
    ),
  ],
  *judge(obs, ctx) {
    for (const { call, reason } of malformedCalls(obs, ctx.providersUnderTest)) {
      const refusal = refusalOf(call);
      if (refusal === null || refusal.ok) continue;
      yield {
        message: `${call.method} with ${short(reason)} was answered with ${refusal.why}`,
        calls: [call.id],
        class: call.reply.kind === 'bundle' ? 'correctness' : 'crash',
      };
    }
  },
});

/** How a call was answered, for the effect rule: an error, or something that may stand for the effect. */
function answeredError(c: CallView): boolean {
  return c.reply.kind === 'bundle' && c.reply.status === 'error';
}

export const errorMeansNoEffect = judgeRun({
  id: 'error-means-no-effect',
  ruleIds: ['CETP-5-15', 'CETP-5-14', 'CETP-5-18', 'CETP-4.1-14', 'CETP-7.3-04', 'CETP-9-03'],
  description:
    'No committed business effect belongs to a request (calling UID, provider, request_id) every call of which was answered with an error: an error answer means nothing happened (judged from the world’s committed effects).',
  fields: [
    consistency(
      "the world's committed effects: an error answer means no effect",
      'res:error:status',
      'res:error:error_code',
    ),
  ],
  *judge(obs, ctx) {
    const executions = groupBy(
      obs.calls.filter((c) => c.method === 'execute_tool' && ctx.providersUnderTest.includes(c.provider)),
      (c) => c.requestKey,
    );
    for (const e of obs.effects) {
      if (!ctx.providersUnderTest.includes(e.provider)) continue;
      const calls = executions.get(`${e.provider}|${e.uid}|${e.requestId.toLowerCase()}`) ?? [];
      // No call at all is effect-attribution's finding; any answer that was not an error (success,
      // accepted, a lost or missing reply) may be the one that stands for this effect.
      if (calls.length === 0 || !calls.every(answeredError)) continue;
      const codes = [...new Set(calls.map((c) => (c.reply.kind === 'bundle' ? c.reply.errorCode : '')))];
      yield {
        message: `${e.tool} request ${e.requestId} of uid ${e.uid} committed an effect, but every answer to it was an error (${codes.join(', ')})`,
        events: effectEvents(e),
        calls: calls.map((c) => c.id),
      };
    }
  },
});

function short(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

export const MALFORMED_CHECKERS: readonly Checker[] = [malformedRefused, errorMeansNoEffect];
