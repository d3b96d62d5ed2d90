/**
 * Oracles that close gaps of the wire-field table (src/protocol/fields.ts, `cetp-sim rules --fields`):
 * fields whose type the schema already judged but whose consistency with what the world knows no
 * oracle did.
 *
 * - `resolution-pending-intent`: a provider's resolution PendingIntent is explicit, immutable,
 *   created by the provider and aimed at its own app (CETP-4.3-02, 7.2-04, 7.2-05) — judged from
 *   the system's PendingIntent record (creator UID, flags, resolved components), not the provider's
 *   word.
 * - `provider-identity`: provider_id lies within the provider's package namespace and is the same
 *   in every negotiate and get_provider_info answer of that package (CETP-3.1-01, 3.1-02).
 * - `catalogue-revision`: two list_tools answers of one provider to one UID with the same revision
 *   list the same tools (CETP-3.3-03: the revision changes whenever the tool set changes).
 * - `consumer-requests-well-formed`: every request a consumer under test sends is a well-formed
 *   request of its method (the protocol's own reader, with the session's max_request_bytes) and
 *   carries a session token that provider issued to that very UID (CETP-4.1-01 … 4.1-10, 2.2-13).
 */
import canonicalize from 'canonicalize';
import type { JsonValue } from '../../base/json.ts';
import { readEnvelope, V2_METHOD_NAMES, type V2MethodName } from '../../protocol/index.ts';
import { type Checker, groupByKeys } from '../checker.ts';
import { callsUnderTest, consistency, judgeEach, judgeRun, PROVIDER_CALLS, schema } from '../checker-kit.ts';
import { type CallView, issuerOf, type Observation } from '../observation.ts';

const V2: ReadonlySet<string> = new Set(V2_METHOD_NAMES);

export const resolutionPendingIntent = judgeEach(PROVIDER_CALLS, {
  id: 'resolution-pending-intent',
  ruleIds: ['CETP-4.3-02', 'CETP-7.2-04', 'CETP-7.2-05'],
  description:
    "Every resolution PendingIntent a provider sends is explicit, immutable, created by the provider's own UID and aimed only at its own app (judged from the system's PendingIntent record).",
  fields: [
    consistency(
      "the system's record: creator UID, IMMUTABLE flag, resolved components",
      'res:resolution:resolution',
    ),
  ],
  judge(c) {
    const found: string[] = [];
    for (const reply of [c.reply.kind === 'bundle' ? c.reply : null, c.lostAnswer]) {
      if (reply?.bundle.typeOf('resolution') !== 'PendingIntent') continue;
      const pi = reply.bundle.getPendingIntent('resolution');
      if (!pi) continue;
      const why =
        pi.getCreatorUid() !== c.providerUid
          ? `was created by uid ${pi.getCreatorUid()}, not the provider's ${c.providerUid}`
          : !pi.isImmutable()
            ? 'is mutable'
            : !pi.isTargetedToPackage() || pi.queryIntentComponents().length === 0
              ? 'is not explicit'
              : pi.queryIntentComponents().some((t) => t.packageName !== c.provider)
                ? 'targets a component of another app'
                : null;
      if (why) found.push(`the resolution of ${c.method} ${c.requestId ?? ''} ${why}`);
    }
    return found;
  },
});

/** Whether `id` is `pkg` or a name inside its namespace (`pkg.something`). */
function inNamespace(id: string, pkg: string): boolean {
  return id === pkg || id.startsWith(`${pkg}.`);
}

export const providerIdentity = judgeRun({
  id: 'provider-identity',
  ruleIds: ['CETP-3.1-01', 'CETP-3.1-02'],
  description:
    "provider_id lies within the provider's package namespace and is the same in every negotiate and get_provider_info answer of that package.",
  fields: [
    consistency(
      "the provider's package name (namespace) and its other answers (stable)",
      'json:negotiate_response/provider_id',
      'json:provider_info/provider_id',
    ),
  ],
  *judge(obs, ctx) {
    const seen = new Map<string, { id: string; call: CallView }>();
    for (const c of callsUnderTest(obs, ctx)) {
      if (c.reply.kind !== 'bundle') continue;
      if (c.reply.status !== 'success' || (c.method !== 'negotiate' && c.method !== 'get_provider_info'))
        continue;
      const id = (c.reply.data as { provider_id?: unknown } | undefined)?.provider_id;
      if (typeof id !== 'string') continue; // wire-well-formed's finding
      if (!inNamespace(id, c.provider)) {
        yield {
          message: `${c.method} named provider_id ${JSON.stringify(id)}, outside package ${c.provider}`,
          calls: [c.id],
        };
        continue;
      }
      const first = seen.get(c.provider);
      if (!first) seen.set(c.provider, { id, call: c });
      else if (first.id !== id)
        yield {
          message: `provider_id changed from ${JSON.stringify(first.id)} to ${JSON.stringify(id)}`,
          calls: [first.call.id, c.id],
        };
    }
  },
});

export const catalogueRevision = judgeRun({
  id: 'catalogue-revision',
  ruleIds: ['CETP-3.3-03'],
  description:
    'Two list_tools answers of one provider to one UID with the same revision list the same tools (canonical JSON): a changed catalogue has a new revision.',
  fields: [
    consistency(
      'the tools listed under the same revision in the same provider’s other answers',
      'json:list_tools_response/revision',
      'json:list_tools_response/tools',
    ),
  ],
  *judge(obs, ctx) {
    const answers = obs.calls.filter(
      (c) =>
        c.method === 'list_tools' &&
        c.v2 &&
        ctx.providersUnderTest.includes(c.provider) &&
        c.reply.kind === 'bundle' &&
        c.reply.status === 'success',
    );
    const byRevision = groupByKeys(answers, (c) => [c.provider, c.callerUid, revisionOf(c)]);
    for (const group of byRevision) {
      const [first, ...rest] = group;
      if (!first || revisionOf(first) === null) continue;
      const tools = toolsOf(first);
      const other = rest.find((c) => toolsOf(c) !== tools);
      if (other)
        yield {
          message: `revision ${JSON.stringify(revisionOf(first))} of ${first.provider} listed different tools`,
          calls: [first.id, other.id],
        };
    }
  },
});

function revisionOf(c: CallView): string | null {
  const r = c.reply.kind === 'bundle' ? (c.reply.data as { revision?: unknown } | undefined)?.revision : null;
  return typeof r === 'string' ? r : null;
}

function toolsOf(c: CallView): string {
  const t =
    c.reply.kind === 'bundle' ? (c.reply.data as { tools?: JsonValue } | undefined)?.tools : undefined;
  try {
    return canonicalize(t ?? null) ?? 'null';
  } catch {
    return JSON.stringify(t ?? null); // lone surrogates, which RFC 8785 refuses: still comparable
  }
}

/** Why a consumer's request is not a well-formed request of its method in its session, or null. */
function requestFlaw(obs: Observation, c: CallView): string | null {
  if (!V2.has(c.method)) return c.v1 ? null : `unknown method ${JSON.stringify(c.method)}`;
  if (c.method !== 'negotiate' && c.v1) return null; // a v1 call: consumer-no-downgrade judges it
  const issuer = c.method === 'negotiate' ? undefined : issuerOf(obs, c);
  const limits =
    issuer?.reply.kind === 'bundle'
      ? (issuer.reply.data as { limits?: { max_request_bytes?: unknown } })?.limits
      : undefined;
  const max = limits?.max_request_bytes;
  const read = readEnvelope(
    c.request ?? EMPTY_READER,
    c.method as V2MethodName,
    typeof max === 'number' ? { maxRequestBytes: max } : {},
  );
  if (!read.ok) return read.issues[0]?.message ?? 'malformed';
  if (c.method === 'negotiate') return null;
  if (!issuer) return `its session_token was never issued by ${c.provider} in this run`;
  if (issuer.callerUid !== c.callerUid)
    return `its session_token was issued to uid ${issuer.callerUid}, not the sender's ${c.callerUid}`;
  return null;
}

const EMPTY_READER = {
  containsKey: () => false,
  keySet: () => [],
  typeOf: () => null,
  getInt: (_k: string, d = 0) => d,
  getLong: (_k: string, d = 0) => d,
  getString: () => null,
  getBoolean: (_k: string, d = false) => d,
  getIntArray: () => null,
};

export const consumerRequestsWellFormed = judgeRun({
  id: 'consumer-requests-well-formed',
  ruleIds: [
    'CETP-4.1-01',
    'CETP-4.1-02',
    'CETP-4.1-03',
    'CETP-4.1-05',
    'CETP-4.1-06',
    'CETP-4.1-08',
    'CETP-4.1-10',
    'CETP-2.2-02',
    'CETP-2.2-03',
  ],
  description:
    'Every request a consumer under test sends is a well-formed request of its method (every required key, of its Bundle type and domain; args within the session’s max_request_bytes) and carries a session token that provider issued to the sending UID.',
  fields: [
    schema('the protocol reader (consumer side)', 'req:*', 'json:consumer_capabilities*'),
    consistency(
      'the negotiate answer that issued it, to the sending UID (consumer side)',
      'req:*:session_token',
    ),
    consistency(
      "the session's max_request_bytes (consumer side)",
      'req:execute_tool:args',
      'json:negotiate_response/limits/max_request_bytes',
    ),
  ],
  *judge(obs, ctx) {
    for (const c of obs.calls) {
      if (!ctx.consumers.includes(c.caller)) continue;
      const flaw = requestFlaw(obs, c);
      if (flaw) yield { message: `${c.caller} sent ${c.method} to ${c.provider}: ${flaw}`, calls: [c.id] };
    }
  },
});

export const FIELD_CHECKERS: readonly Checker[] = [
  resolutionPendingIntent,
  providerIdentity,
  catalogueRevision,
  consumerRequestsWellFormed,
];
