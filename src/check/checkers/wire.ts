/**
 * Oracles over the wire conversation (every ContentProvider.call and its reply): replays return the
 * same terminal result, an id is bound to its args, every reply of a provider under test is
 * well-formed with the right retryability, sessions and operations stay with the UID that owns
 * them and a session ends when its UID is re-signed, a finished operation cannot be cancelled, a
 * dual-stack provider serves v1 and its v1 path stays read-only, and no two pending confirmations
 * share a PendingIntent.
 */
import {
  isUuid,
  readErrorBundle,
  readResponseBundle,
  sha256Hex,
  V2_METHODS,
  type V2MethodName,
} from '../../protocol/index.ts';
import { type CheckContext, type Checker, groupBy, groupByKeys } from '../checker.ts';
import { callsUnderTest, consistency, judgeEach, PROVIDER_CALLS, schema, source } from '../checker-kit.ts';
import { byAnswer, type CallView, type Observation } from '../observation.ts';
import { cancelAfterEnd } from './cancel-after-end.ts';
import { incarnationAt } from './lifecycle.ts';
import * as identity from './wire-identity.ts';

const TERMINAL_ERRORS = new Set(['USER_CANCELLED', 'CANCELLED', 'CONFLICT']);

/**
 * A comparable key of a terminal execute_tool reply, or null if it is not terminal. A result is
 * keyed by the SHA-256 of its JSON bytes, so an inline value and the same value sent as a file (in
 * a session with large_results) compare equal.
 */
function terminalOf(c: CallView, cancellationIsTerminal: boolean): string | null {
  if (c.reply.kind !== 'bundle') return null;
  if (c.reply.status === 'success') {
    const d = c.reply.data as { kind?: string; value?: unknown; sha256?: string } | undefined;
    const digest = d?.kind === 'file' ? d.sha256 : sha256Hex(JSON.stringify(d?.value ?? null));
    return `result sha256:${String(digest).slice(0, 16)}`;
  }
  const code = c.reply.errorCode;
  if (c.reply.status !== 'error' || !code || !TERMINAL_ERRORS.has(code)) return null;
  // A refused scope grant is not recorded; a denied confirmation is the request's terminal result.
  if (code === 'USER_CANCELLED' && !cancellationIsTerminal) return null;
  return `error:${code}`;
}

/** The v2 execute_tool calls with a request_id to providers under test, in sending order. */
function executes(obs: Observation, ctx: CheckContext): CallView[] {
  return callsUnderTest(obs, ctx).filter((c) => c.method === 'execute_tool' && c.v2 && c.requestId !== null);
}

/**
 * The answers to one request of a non-read tool, by (UID, provider, request_id, tool, args), within
 * one incarnation of the provider: a reinstall wipes the record of the first answer.
 */
const DEDUPLICATED_REQUESTS = source((obs, ctx) =>
  groupByKeys(
    executes(obs, ctx).filter((c) => identity.deduplicated(ctx, c)),
    (c) => [c.requestKey, c.toolName, c.args, String(incarnationAt(obs, c.provider, c.step))],
  ),
);

/** The calls under one request_id (of one UID, to one provider). */
const REQUESTS = source((obs, ctx) => [...groupBy(executes(obs, ctx), (c) => c.requestKey).values()]);

/**
 * Whether a USER_CANCELLED answer ends a confirmation (the request's terminal result, 4.3-14) rather
 * than a refused scope grant (not recorded: the same request_id may be sent again). Told by the last
 * confirmation event of that caller's request before the answer: a refused grant is the grant's
 * event, a denied confirmation the confirmation's. (A confirmation requested *later* for the same
 * request_id — after the grant was asked again and given — says nothing about this answer.)
 */
function cancelsConfirmation(obs: Observation, c: CallView): boolean {
  if (c.reply.kind !== 'bundle' || c.reply.errorCode !== 'USER_CANCELLED' || c.replyStep === null)
    return false;
  let last: string | null = null;
  for (const n of obs.confirmations) {
    if (n.step > c.replyStep) break;
    if (n.provider === c.provider && n.uid === c.callerUid && n.requestId === c.requestId) last = n.kind;
  }
  return last === 'confirm';
}

export const sameTerminalResult = judgeEach(DEDUPLICATED_REQUESTS, {
  id: 'same-terminal-result',
  ruleIds: ['CETP-6-05', 'CETP-6-07'],
  description:
    'Every terminal answer to the same (UID, provider, request_id, tool, args) of a non-read tool (the deduplicated ones, CETP-6-01) from one incarnation of the provider (no reinstall between) is the same result (compared by digest).',
  fields: [
    consistency(
      'the terminal answers to the same request',
      'json:execution_result/value',
      'json:operation_status/result/value',
      'res:error:error_code',
    ),
  ],
  judge(calls, obs) {
    if (calls.length < 2) return; // one answer cannot disagree with itself
    // In the order the answers came, so "answered X and later Y" says which came first.
    const terminal = [...calls]
      .sort(byAnswer)
      .map((c) => ({ c, t: terminalOf(c, cancelsConfirmation(obs, c)) }))
      .filter((x) => x.t !== null);
    const first = terminal[0];
    const other = terminal.find((x) => x.t !== first?.t);
    if (first && other)
      return {
        message: `request ${first.c.requestId} answered "${first.t}" and later "${other.t}"`,
        calls: [first.c.id, other.c.id],
      };
  },
});

export const argsBinding = judgeEach(REQUESTS, {
  id: 'args-binding',
  ruleIds: ['CETP-6-03', 'CETP-6-04', 'CETP-4.3-14'],
  description:
    'Once a request_id is bound to a write (tool and args), no call with other tool or args gets success or an operation.',
  fields: [
    consistency(
      'the tool and args the request_id was first bound to',
      'req:execute_tool:request_id',
      'req:execute_tool:tool_name',
      'req:execute_tool:args',
    ),
  ],
  judge(calls, _obs, ctx) {
    if (calls.length < 2) return; // one call cannot be bound to other args
    let bound: CallView | null = null;
    // In the order the answers came: a request_id is bound when its first write is answered.
    for (const c of [...calls].sort(byAnswer)) {
      const ok = c.reply.kind === 'bundle' && (c.reply.status === 'success' || c.reply.status === 'accepted');
      if (!ok) continue;
      const write = (ctx.toolEffects.get(c.toolKey) ?? 'read') !== 'read';
      // Two writes under one request_id each reserve it, so any second one is a breach, raced or
      // not. A read is not recorded: one checked before the write was bound may still be answered
      // after it, so only a read sent once the binding had been answered is held to it (one sent in
      // the step that answer arrived was sent by the task that received it, after it).
      const heldToBinding = bound !== null && (write || c.step >= (bound.replyStep ?? Infinity));
      if (bound && heldToBinding && (c.toolName !== bound.toolName || c.args !== bound.args))
        return {
          message: `request ${c.requestId}, bound to ${bound.toolName}, was answered ${c.reply.kind === 'bundle' ? c.reply.status : ''} for other tool/args`,
          calls: [bound.id, c.id],
        };
      if (write && !bound) bound = c;
    }
  },
});

const V1_SHAPE_METHODS = new Set(['list_tools', 'execute_tool']);

export const wireWellFormed = judgeEach(PROVIDER_CALLS, {
  id: 'wire-well-formed',
  ruleIds: [
    'CETP-5-01',
    'CETP-5-02',
    'CETP-5-03',
    'CETP-5-17',
    'CETP-5-25',
    'CETP-4.2-01',
    'CETP-4.2-02',
    'CETP-4.4-02',
    'CETP-4.4-07',
  ],
  description:
    'Every v2 reply of a provider under test is a well-formed response with the right retryability.',
  fields: [
    schema(
      'the response readers and wire schemas (type, range, enum, pattern)',
      'res:*',
      'json:negotiate_response/*',
      'json:provider_info/*',
      'json:list_tools_response/*',
      'json:execution_result/*',
      'json:accepted/*',
      'json:operation_status/*',
      'json:cancel_response/*',
    ),
    consistency(
      'the request_id and version the call asked in',
      'res:success:request_id',
      'res:accepted:request_id',
      'res:error:request_id',
      'res:success:protocol_version',
      'res:accepted:protocol_version',
      'res:error:protocol_version',
    ),
    consistency(
      "the code's retry policy (5-01) and safe text without stack traces (5-25)",
      'res:error:retryable',
      'res:error:error_code',
      'res:negotiateError:retryable',
      'res:error:error_message',
      'res:negotiateError:error_message',
    ),
  ],
  judge(c) {
    if (c.reply.kind !== 'bundle' || (!c.v2 && c.method !== 'negotiate')) return;
    if (!(c.method in V2_METHODS) && !V1_SHAPE_METHODS.has(c.method)) {
      const e = readErrorBundle(c.reply.bundle, { method: 'list_tools' });
      return e.ok ? undefined : `reply to unknown method ${c.method}: ${e.issues[0]?.message}`;
    }
    const method = c.method as V2MethodName;
    // Set field by field: two conditional spreads would take V8's slow path (Node 20) per reply.
    const options: { expectedRequestId?: string; parsedData?: { readonly value: unknown } } = {};
    const expected = expectedEcho(c);
    if (expected !== null && method !== 'negotiate') options.expectedRequestId = expected;
    // The observation parsed `data` already (undefined: absent or not JSON — the reader says which).
    if (c.reply.data !== undefined) options.parsedData = { value: c.reply.data };
    const read = readResponseBundle(c.reply.bundle, method, options);
    if (!read.ok) return `malformed ${method} reply: ${read.issues[0]?.message}`;
  },
});

/**
 * The request_id a reply must echo (5-03): the String as sent — not the observation's lower-cased
 * key, which differs for a request_id that is no UUID — or, for a UUID, the same id in any case.
 */
function expectedEcho(c: CallView): string | null {
  const sent = c.request?.getEntry('request_id');
  const raw = sent?.type === 'String' ? sent.value : null;
  if (raw === null) return c.requestId;
  const echoed = c.reply.kind === 'bundle' ? c.reply.requestId : null;
  if (echoed !== null && isUuid(raw) && echoed.toLowerCase() === raw.toLowerCase()) return echoed;
  return raw;
}

export const WIRE_CHECKERS: readonly Checker[] = [
  sameTerminalResult,
  argsBinding,
  wireWellFormed,
  identity.sessionBinding,
  identity.resignEndsSession,
  identity.operationIsolation,
  identity.operationRequestId,
  cancelAfterEnd,
  identity.dualStackV1,
  identity.v1ReadOnly,
  identity.distinctResolutions,
];
