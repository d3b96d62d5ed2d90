/**
 * Oracles over what a session negotiated (spec §2.2, §2.3, §4.2, §4.5, §5, §6): the provider agrees
 * only on a version the consumer offered, ends the session at the expiry it announced, grants only
 * capabilities both sides asked for, never uses one the session lacks (no `accepted`, no file result,
 * no served get_operation / cancel_operation), never inlines more than the session's
 * max_inline_result_bytes, refuses args that break the tool's input schema as INVALID_ARGS, and never
 * replays a result past the session's idempotency window.
 *
 * A session is known by the negotiate reply that issued its token (to any caller: a stolen token
 * still carries its session's capabilities). Calls under tokens no negotiate of this run issued are
 * not judged here (session-binding and wire-well-formed judge those).
 */

import { caches } from '../../base/caches.ts';
import { BoundedMemo } from '../../base/memo.ts';
import {
  isJsonText,
  TERMINAL_OPERATION_STATES,
  ToolSchemaCompiler,
  type ToolValueValidator,
  utf8Length,
} from '../../protocol/index.ts';
import { parseInstant } from '../../sim/core/clock.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeEach, judgeRun, PROVIDER_CALLS } from '../checker-kit.ts';
import {
  byAnswer,
  type CallView,
  issuerOf,
  memoOn,
  type Observation,
  sessionHonoured,
  succeeded,
} from '../observation.ts';

interface NegotiatedSession {
  readonly capabilities: readonly string[];
  readonly maxInlineResultBytes: number | null;
  readonly idempotencyWindowSeconds: number | null;
  /** expires_at as epoch ms, or null when the provider announced none. */
  readonly expiresAtMs: number | null;
}

/** What the negotiate call that issued a session granted (read once per negotiate call); null if unreadable. */
function grantedBy(obs: Observation, negotiate: CallView): NegotiatedSession | null {
  const read = memoOn(obs, GRANTED, newGrantedTable);
  let session = read.get(negotiate);
  if (session === undefined) {
    session = readGranted(negotiate);
    read.set(negotiate, session);
  }
  return session;
}

function newGrantedTable(): Map<CallView, NegotiatedSession | null> {
  return new Map();
}

function readGranted(negotiate: CallView): NegotiatedSession | null {
  const d = negotiate.reply.kind === 'bundle' ? negotiate.reply.data : undefined;
  const r = (typeof d === 'object' && d !== null ? d : {}) as {
    capabilities?: unknown;
    expires_at?: unknown;
    limits?: { max_inline_result_bytes?: unknown; idempotency_window_seconds?: unknown };
  };
  const limit = r.limits?.max_inline_result_bytes;
  const window = r.limits?.idempotency_window_seconds;
  const expires = typeof r.expires_at === 'string' ? parseInstant(r.expires_at) : Number.NaN;
  return !Array.isArray(r.capabilities)
    ? null
    : {
        capabilities: r.capabilities.filter((x): x is string => typeof x === 'string'),
        maxInlineResultBytes: typeof limit === 'number' ? limit : null,
        idempotencyWindowSeconds: typeof window === 'number' ? window : null,
        expiresAtMs: Number.isNaN(expires) ? null : expires,
      };
}

const GRANTED: unique symbol = Symbol('cetp.check.granted');

/** The session `c` was sent under, if a negotiate of this run issued its token. */
function sessionOf(obs: Observation, c: CallView): NegotiatedSession | undefined {
  const issuer = issuerOf(obs, c);
  return (issuer && grantedBy(obs, issuer)) ?? undefined;
}

function data(c: CallView): Record<string, unknown> | undefined {
  return c.reply.kind === 'bundle' ? objectOf(c.reply.data) : undefined;
}

function objectOf(d: unknown): Record<string, unknown> | undefined {
  return typeof d === 'object' && d !== null && !Array.isArray(d)
    ? (d as Record<string, unknown>)
    : undefined;
}

function requestedCapabilities(c: CallView): readonly string[] | null {
  if (c.request?.typeOf('consumer_capabilities') !== 'String') return null;
  return capabilitiesIn.get(c.request.getString('consumer_capabilities') ?? '', parseCapabilities);
}

/** The capability strings of a consumer_capabilities JSON text (the texts recur: remembered). */
const capabilitiesIn = caches.memo<string, readonly string[] | null>(
  'check/negotiated: consumer capabilities by request text',
  256,
);

function parseCapabilities(text: string): readonly string[] | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed)
      ? Object.freeze(parsed.filter((x): x is string => typeof x === 'string'))
      : null;
  } catch {
    return null;
  }
}

export const capabilitiesIntersected = judgeEach(PROVIDER_CALLS, {
  id: 'capabilities-intersected',
  ruleIds: ['CETP-2.2-06'],
  description: 'A negotiated session holds only capabilities the consumer asked for.',
  fields: [
    consistency(
      'the capabilities the consumer asked for',
      'json:negotiate_response/capabilities',
      'json:negotiate_response/capabilities[]',
      'req:negotiate:consumer_capabilities',
      'json:consumer_capabilities',
      'json:consumer_capabilities[]',
    ),
  ],
  judge(c) {
    if (c.method !== 'negotiate') return;
    const granted = data(c)?.capabilities;
    const asked = requestedCapabilities(c);
    if (!succeeded(c) || !Array.isArray(granted) || !asked) return;
    const extra = granted.filter((x) => !asked.includes(x as string));
    if (extra.length > 0) return `negotiate granted ${extra.join(', ')}, which the consumer did not ask for`;
  },
});

export const versionAgreed = judgeEach(PROVIDER_CALLS, {
  id: 'version-agreed',
  ruleIds: ['CETP-2.2-15', 'CETP-2.2-16'],
  description:
    'A negotiate succeeds only with a version the consumer offered; with no common version it is UNSUPPORTED_VERSION.',
  fields: [
    consistency(
      'the versions the consumer offered and the manifest declares',
      'json:negotiate_response/selected_version',
      'req:negotiate:consumer_versions',
    ),
  ],
  judge(c) {
    if (!succeeded(c, 'negotiate')) return;
    if (c.request?.typeOf('consumer_versions') !== 'IntArray') return;
    const offered = c.request.getIntArray('consumer_versions') ?? [];
    const selected = data(c)?.selected_version;
    if (!offered.includes(selected as number))
      return `negotiate selected version ${String(selected)}, which the consumer did not offer ([${offered.join(', ')}])`;
  },
});

export const sessionExpiry = judgeEach(PROVIDER_CALLS, {
  id: 'session-expiry',
  ruleIds: ['CETP-2.2-11', 'CETP-2.2-14'],
  description:
    'A session token sent at or after the expires_at its provider announced is refused as NEGOTIATION_REQUIRED, never honoured.',
  fields: [
    consistency(
      'the world clock at each later use of the session',
      'json:negotiate_response/expires_at',
      'req:*:session_token',
    ),
  ],
  judge(c, obs) {
    if (!c.v2 || c.reply.kind !== 'bundle') return;
    const expiresAtMs = sessionOf(obs, c)?.expiresAtMs;
    if (expiresAtMs == null || c.t < expiresAtMs || !sessionHonoured(c)) return;
    const answer = c.reply.errorCode ?? c.reply.status;
    return `${c.method} was answered ${answer} under a session that expired ${Math.round((c.t - expiresAtMs) / 60_000)} min earlier, not NEGOTIATION_REQUIRED`;
  },
});

/** The capability a method needs beyond core (spec §2.3). */
const METHOD_CAPABILITY: Readonly<Record<string, string>> = {
  get_operation: 'async_operations',
  cancel_operation: 'cancellation',
};

export const capabilityGating = judgeRun({
  id: 'capability-gating',
  ruleIds: ['CETP-2.3-02', 'CETP-5-06'],
  description:
    'In a session without a capability the provider never uses it: no accepted, no file result, no served get_operation or cancel_operation.',
  fields: [
    consistency(
      'the capabilities the session negotiated',
      'res:accepted:status',
      'res:fileResult:result_fd',
      'json:execution_result/kind',
      'json:negotiate_response/capabilities[]',
    ),
  ],
  *judge(obs, ctx) {
    // A replay of an async request answers `accepted` again while it runs, in whatever session the
    // retry came (6-07 over 2.3-02; spec/interpretations.md): only a first answer is judged for it.
    // What the provider answered is judged, delivered or not: a first answer whose reply was lost
    // on the way is still the first (and the retry that follows is a replay). "First" is by when the
    // answers came: a send made earlier may be answered later, as a replay of a racing duplicate.
    const accepted = new Set<string>();
    for (const c of [...obs.calls].sort(byAnswer)) {
      if (!ctx.providersUnderTest.includes(c.provider) || !c.v2) continue;
      const answer = c.reply.kind === 'bundle' ? c.reply : c.lostAnswer;
      if (!answer) continue;
      const session = sessionOf(obs, c);
      const key = c.requestKey;
      const replay = accepted.has(key);
      if (answer.status === 'accepted') accepted.add(key);
      if (!session) continue;
      const caps = session.capabilities;
      const needed = METHOD_CAPABILITY[c.method];
      if (needed && !caps.includes(needed) && answer.status === 'success') {
        yield { message: `${c.method} was served in a session without ${needed}`, calls: [c.id] };
      }
      if (c.method !== 'execute_tool') continue;
      if (answer.status === 'accepted' && !caps.includes('async_operations') && !replay) {
        yield {
          message: 'execute_tool answered accepted in a session without async_operations',
          calls: [c.id],
        };
      }
      if (
        answer.status === 'success' &&
        objectOf(answer.data)?.kind === 'file' &&
        !caps.includes('large_results')
      ) {
        yield {
          message: 'execute_tool answered with a file result in a session without large_results',
          calls: [c.id],
        };
      }
    }
  },
});

export const inlineWithinLimit = judgeEach(PROVIDER_CALLS, {
  id: 'inline-within-limit',
  ruleIds: ['CETP-4.5-01', 'CETP-4.5-11'],
  description:
    "An inline result is never larger than the session's max_inline_result_bytes (UTF-8 bytes of the data JSON).",
  fields: [
    consistency(
      "the inline data's UTF-8 size against the session's limit",
      'json:negotiate_response/limits/max_inline_result_bytes',
      'res:success:data',
      'json:execution_result/value',
    ),
  ],
  judge(c, obs) {
    if (!c.v2 || !succeeded(c)) return;
    const limit = sessionOf(obs, c)?.maxInlineResultBytes;
    if (limit === undefined || limit === null) return;
    let bytes: number | null = null;
    if (c.method === 'execute_tool' && data(c)?.kind === 'inline') {
      bytes = utf8Length(c.reply.bundle.getString('data') ?? '');
    } else if (c.method === 'get_operation') {
      const result = data(c)?.result as { kind?: unknown } | undefined;
      if (result?.kind === 'inline') bytes = utf8Length(JSON.stringify(result));
    }
    if (bytes !== null && bytes > limit)
      return `${c.method} inlined ${bytes} bytes, over max_inline_result_bytes=${limit}`;
  },
});

const TERMINAL_STATES: ReadonlySet<unknown> = new Set(TERMINAL_OPERATION_STATES);

export const windowExpiry = judgeRun({
  id: 'window-expiry',
  ruleIds: ['CETP-5-22'],
  description:
    'A same-id retry of a write sent after the idempotency window (counted from when the request was seen terminal) is never answered with a result.',
  fields: [
    consistency(
      'the world clock at a same-id retry after the request ended',
      'json:negotiate_response/limits/idempotency_window_seconds',
    ),
  ],
  *judge(obs, ctx) {
    // When each request was first seen terminal — an execute_tool success, or its operation reported
    // ended by get_operation (whose request_id is the creating execution's, 4.1-11). Its record was
    // terminal by then, so its window (NOTES 11) ends no later than that reply's time plus the window.
    // An operation a read created does not count: a read is never recorded (CETP-6-01), so an async
    // read's operation ending says nothing about a request record.
    const terminalSeen = new Map<string, CallView>();
    const readOperations = new Set<string>();
    for (const c of obs.calls) {
      if (!c.v2 || c.requestId === null || c.reply.kind !== 'bundle') continue;
      if (!ctx.providersUnderTest.includes(c.provider)) continue;
      const key = c.requestKey;
      const seen = terminalSeen.get(key);
      if (c.method === 'get_operation') {
        if (readOperations.has(c.operationKey)) continue;
        if (!seen && c.reply.status === 'success' && TERMINAL_STATES.has(data(c)?.state))
          terminalSeen.set(key, c);
        continue;
      }
      if (c.method !== 'execute_tool') continue;
      // Reads are never recorded: a late retry of one simply reads again.
      if ((ctx.toolEffects.get(c.toolKey) ?? 'read') === 'read') {
        const operation = data(c)?.operation_id;
        if (c.reply.status === 'accepted' && typeof operation === 'string')
          readOperations.add(`${c.provider}|${operation}`);
        continue;
      }
      const window = sessionOf(obs, c)?.idempotencyWindowSeconds;
      const answered = c.reply.status === 'success' || c.reply.status === 'accepted';
      if (seen?.replyT != null && window != null && c.t > seen.replyT + window * 1000 && answered) {
        yield {
          message: `request ${c.requestId} was answered ${c.reply.status} ${Math.round((c.t - seen.replyT) / 3_600_000)} h after it was seen terminal, past its ${window} s window`,
          calls: [seen.id, c.id],
        };
      }
      if (!seen && c.reply.status === 'success') terminalSeen.set(key, c);
    }
  },
});

/** Error codes decided before the args are looked at (envelope, session, method, tool, admission). */
const BEFORE_ARGS = new Set([
  'INVALID_REQUEST',
  'NEGOTIATION_REQUIRED',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_CAPABILITY',
  'METHOD_NOT_FOUND',
  'TOOL_NOT_FOUND',
  'RATE_LIMITED',
]);

const compiler = caches.lazy('check/negotiated: input schema compiler', () => new ToolSchemaCompiler());
const judges = caches.weakMap<object, ArgsJudge | null>('check/negotiated: args judges by input schema');

/** A tool input schema's validator and its verdicts by args text (the args pools recur run after run). */
interface ArgsJudge {
  readonly validate: ToolValueValidator;
  readonly verdicts: BoundedMemo<string, boolean>;
}

function judgeOf(schema: unknown): ArgsJudge | null {
  if (typeof schema !== 'object' || schema === null) return null;
  let judge = judges.get(schema);
  if (judge === undefined) {
    const compiled = compiler.get().compile(schema, 'input');
    judge = compiled.ok ? { validate: compiled.value, verdicts: new BoundedMemo(1024) } : null;
    judges.set(schema, judge);
  }
  return judge;
}

/** Whether args conform to the schema; true when there is no schema or the args are not JSON (judged elsewhere). */
function argsConform(schema: unknown, argsJson: string): boolean {
  const judge = judgeOf(schema);
  if (!judge) return true;
  return judge.verdicts.get(argsJson, (text) => {
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch {
      return true; // not JSON: wire-well-formed and the envelope rules judge it
    }
    return judge.validate(args).length === 0;
  });
}

/** Whether args are JSON that the tool's known input schema accepts (false: no schema, not JSON, or not conforming). */
export function argsFit(schema: unknown, argsJson: string): boolean {
  if (!judgeOf(schema)) return false;
  if (!isJsonText(argsJson)) return false;
  return argsConform(schema, argsJson);
}

export const argsSchema = judgeEach(PROVIDER_CALLS, {
  id: 'args-schema',
  ruleIds: ['CETP-5-14'],
  description: "Args that break the tool's input schema are refused as INVALID_ARGS, never executed.",
  fields: [
    consistency(
      "the tool's input schema",
      'req:execute_tool:args',
      'json:list_tools_response/tools[]/input_schema',
    ),
  ],
  judge(c, _obs, ctx) {
    if (c.method !== 'execute_tool' || !c.v2 || c.args === null || c.reply.kind !== 'bundle') return;
    if (argsConform(ctx.toolInputSchemas?.get(c.toolKey), c.args)) return;
    const code = c.reply.errorCode;
    if (c.reply.status === 'error' && (code === 'INVALID_ARGS' || (code !== null && BEFORE_ARGS.has(code))))
      return;
    return `execute_tool ${c.toolName} with args outside its input schema got ${c.reply.status}${code ? ` ${code}` : ''}, not INVALID_ARGS`;
  },
});

export const NEGOTIATED_CHECKERS: readonly Checker[] = [
  versionAgreed,
  sessionExpiry,
  capabilitiesIntersected,
  capabilityGating,
  inlineWithinLimit,
  argsSchema,
  windowExpiry,
];
