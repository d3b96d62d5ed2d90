/**
 * Oracles over the reference consumer's side of the wire (calls made by consumer packages): it
 * retries only what is retryable, after retry_after_ms, with the same request_id; it never loops on
 * a resolution without a user decision; it never uses a capability it did not negotiate; it never
 * falls back to v1 with a provider that declares v2.
 */

import type { JsonValue } from '../../base/json.ts';
import { isKnownErrorCode, sha256Hex } from '../../protocol/index.ts';
import type { Checker } from '../checker.ts';
import {
  AGENT_EXECUTIONS,
  CONSUMER_CALLS,
  consistency,
  consumerCalls,
  judgeEach,
  judgeRun,
} from '../checker-kit.ts';
import { type CallView, declaredVersions, type Observation, succeeded } from '../observation.ts';
import {
  answeredFor,
  consumerRequests,
  field,
  lastAnsweredBefore,
  REQUEST_ID_RULES,
} from './consumer-view.ts';
import { alteredPaths, bytesBehind, fileResultsByTarget } from './files.ts';

const RESOLUTIONS = new Set(['AUTH_REQUIRED', 'USER_ACTION_REQUIRED']);

/** Whether the process `pkg` (a call's `callerProcess ?? caller`) was killed at a step in [from, to]. */
function diedBetween(obs: Observation, pkg: string, from: number, to: number): boolean {
  return obs.events.some(
    (e) => e.kind === 'process.kill' && e.data.actor === pkg && e.step >= from && e.step <= to,
  );
}

export const retryDiscipline = judgeRun({
  id: 'consumer-retry-discipline',
  ruleIds: ['CETP-5-26', 'CETP-5-27', 'CETP-5-28'],
  description:
    'The consumer re-sends a request only after a retryable error (known code), not before retry_after_ms, and never loops on a resolution without a user decision.',
  fields: [
    consistency(
      'when the consumer re-sends (consumer side)',
      'res:error:retryable',
      'res:error:retry_after_ms',
      'res:error:error_code',
    ),
  ],
  *judge(obs, ctx) {
    for (const calls of consumerRequests(obs, ctx, isExecution)) {
      for (let i = 1; i < calls.length; i++) {
        const next = calls[i] as CallView;
        // Judged by the last answer the consumer had when it re-sent: a reply that arrived after the
        // re-send (the consumer timed out and re-sent the same request_id, as 4.1-15 and 6-08 require)
        // cannot have told it anything.
        const p = lastAnsweredBefore(calls, i);
        if (p < 0) continue;
        const prev = calls[p] as CallView;
        if (prev.reply.kind !== 'bundle' || prev.reply.status !== 'error') continue;
        // The consumer died after the answer and a new process re-sent the journaled request under
        // the same id: it never learned the answer, and asking again is what 4.1-15 requires.
        if (diedBetween(obs, next.callerProcess ?? next.caller, prev.replyStep ?? prev.step, next.step))
          continue;
        const code = prev.reply.errorCode ?? '';
        const isResume = RESOLUTIONS.has(code) && next.resumeToken !== null;
        if (RESOLUTIONS.has(code)) {
          // The user decided, or the resolution the consumer launched came back (its Activity result,
          // RESULT_CANCELED when the provider's screen died or the start was blocked): the consumer
          // went through the resolution flow, it did not loop past it (as consumer-no-loop-without-user).
          const from = prev.replyStep ?? prev.step;
          const decided = obs.events.some(
            (e) =>
              e.step > from &&
              e.step < next.step &&
              (e.kind === 'user.decision' ||
                (e.kind === 'activity.result' && e.data.to === next.caller) ||
                (e.kind === 'activity.start.blocked' && e.data.actor === next.caller)),
          );
          if (!decided && next.reply.kind === 'bundle' && next.reply.errorCode === code) {
            yield {
              message: `request ${next.requestId} re-sent after ${code} without any user decision`,
              calls: [prev.id, next.id],
            };
          }
          if (isResume) continue;
        }
        const retryable = prev.reply.retryable === true && isKnownErrorCode(code);
        const renegotiated = code === 'NEGOTIATION_REQUIRED' || code === 'RESULT_TOO_LARGE';
        if (!retryable && !renegotiated && !RESOLUTIONS.has(code) && !isQuery(calls, p, i, code)) {
          yield {
            message: `request ${next.requestId} re-sent after non-retryable ${code}`,
            calls: [prev.id, next.id],
          };
          continue;
        }
        const wait = prev.reply.retryAfterMs;
        if (wait !== null && prev.replyT !== null && next.t < prev.replyT + wait) {
          yield {
            message: `request ${next.requestId} re-sent ${next.t - prev.replyT} ms after retry_after_ms=${wait}`,
            calls: [prev.id, next.id],
          };
        }
      }
    }
  },
});

function isExecution(c: CallView): boolean {
  return c.method === 'execute_tool';
}

/**
 * The two same-request_id queries a non-retryable error allows, each once per request: after
 * DEADLINE_EXCEEDED (5-19 requires it), and — the consumer's reading of NOTES 2 — after an
 * INVALID_REQUEST refusing a re-sent resume token (its reply was lost), a query without the token.
 */
function isQuery(calls: readonly CallView[], p: number, i: number, code: string): boolean {
  const prev = calls[p] as CallView;
  const next = calls[i] as CallView;
  // An earlier call answered the same code and was followed by a re-send: the one query is used up.
  const queriedBefore = calls
    .slice(0, p)
    .some((c) => c.reply.kind === 'bundle' && c.reply.errorCode === code);
  if (code === 'DEADLINE_EXCEEDED') return !queriedBefore;
  if (code !== 'INVALID_REQUEST' || prev.resumeToken === null || next.resumeToken !== null) return false;
  const resent = calls.slice(0, p).some((c) => c.resumeToken === prev.resumeToken);
  return resent && !queriedBefore;
}

export const negotiatedOnly = judgeRun({
  id: 'consumer-negotiated-only',
  ruleIds: ['CETP-2.3-04', 'CETP-4-05', 'CETP-4-06', 'CETP-8-06', 'CETP-2.2-01'],
  description:
    'The consumer calls optional methods only in sessions that negotiated them, and negotiates first.',
  fields: [
    consistency(
      'the optional methods the consumer calls (consumer side)',
      'json:negotiate_response/capabilities[]',
    ),
  ],
  *judge(obs, ctx) {
    const caps = new Map<string, string[]>();
    for (const c of obs.calls) {
      if (succeeded(c, 'negotiate')) {
        const d = c.reply.data as { session_token?: string; capabilities?: string[] } | undefined;
        if (d?.session_token) caps.set(d.session_token, d.capabilities ?? []);
      }
    }
    for (const c of consumerCalls(obs, ctx)) {
      if (!c.v2 || c.method === 'negotiate') continue;
      const session = c.sessionToken ? caps.get(c.sessionToken) : undefined;
      if (session === undefined) {
        yield { message: `${c.method} sent without a negotiated session`, calls: [c.id] };
        continue;
      }
      const needed =
        c.method === 'get_operation'
          ? 'async_operations'
          : c.method === 'cancel_operation'
            ? 'cancellation'
            : null;
      if (needed && !session.includes(needed)) {
        yield { message: `${c.method} called in a session without ${needed}`, calls: [c.id] };
      }
    }
  },
});

export const noDowngrade = judgeEach(CONSUMER_CALLS, {
  id: 'consumer-no-downgrade',
  ruleIds: ['CETP-8-03', 'CETP-8-07', 'CETP-8-08', 'CETP-8-09'],
  description: 'The consumer never makes a v1 call to a provider whose manifest declares v2.',
  judge(c, obs) {
    if (c.v1 && declaredVersions(obs, c.provider).some((v) => v >= 2))
      return `${c.method} sent as v1 to ${c.provider}, which declares v2`;
  },
});

type Audit = { event?: string; execution_id?: string; request_id?: string | null };

export const requestIdStable = judgeRun({
  id: 'consumer-request-id-stable',
  ruleIds: REQUEST_ID_RULES,
  description:
    'Every attempt of one logical execution — across retries and consumer restarts — carries one request_id.',
  fields: [
    consistency('one request_id per logical execution (consumer side)', 'req:execute_tool:request_id'),
  ],
  *judge(obs, ctx) {
    const rids = new Map<string, Set<string>>();
    const seqs = new Map<string, number[]>();
    for (const e of obs.audits) {
      if (!ctx.consumers.includes(String(e.data.actor))) continue;
      const a = e.data as Audit;
      if (!a.execution_id || !a.request_id || !a.event?.startsWith('execution.')) continue;
      const set = rids.get(a.execution_id) ?? new Set<string>();
      set.add(a.request_id);
      rids.set(a.execution_id, set);
      seqs.set(a.execution_id, [...(seqs.get(a.execution_id) ?? []), e.seq]);
    }
    for (const [execution, set] of rids) {
      if (set.size > 1) {
        yield {
          message: `execution ${execution} used ${set.size} request_ids`,
          events: seqs.get(execution) ?? [],
        };
      }
    }
  },
});

export const verifiedResolutions = judgeRun({
  id: 'consumer-verifies-resolution',
  ruleIds: ['CETP-4.3-02', 'CETP-7.2-04', 'CETP-7.2-05', 'CETP-1-01'],
  description:
    'The consumer launches only explicit, immutable PendingIntents created by the provider it was calling.',
  fields: [
    consistency(
      'what the consumer launches: only explicit, immutable, by the provider (consumer side)',
      'res:resolution:resolution',
    ),
  ],
  *judge(obs, ctx) {
    const created = new Map<
      number,
      { creator: string; immutable: boolean; explicit: boolean; seq: number }
    >();
    for (const e of obs.events) {
      if (e.kind !== 'pi.create') continue;
      created.set(Number(e.data.token), {
        creator: String(e.data.actor),
        immutable: e.data.immutable === true,
        explicit: String(e.data.intent).includes('cmp='),
        seq: e.seq,
      });
    }
    for (const e of obs.events) {
      if (e.kind !== 'pi.send' || !ctx.consumers.includes(String(e.data.from))) continue;
      const pi = created.get(Number(e.data.token));
      const calledCreator = obs.calls.some(
        (c) => ctx.consumers.includes(c.caller) && c.provider === pi?.creator && c.step <= e.step,
      );
      const problems = [
        ...(pi?.immutable ? [] : ['mutable']),
        ...(pi?.explicit ? [] : ['implicit']),
        ...(calledCreator ? [] : [`created by ${pi?.creator ?? 'an unknown app'}, not a provider it called`]),
      ];
      if (problems.length > 0) {
        yield {
          message: `the consumer launched a resolution that is ${problems.join(', ')}`,
          events: [...(pi ? [pi.seq] : []), e.seq],
        };
      }
    }
  },
});

/**
 * CETP-0-02 / 2.2-02: a v2 consumer keeps supporting v1, and `consumer_versions` lists the versions
 * it supports, descending — so every negotiate it sends offers 2 and 1, in descending order.
 * Judged from the request on the wire, whatever the provider answered.
 */
export const offersV1 = judgeRun({
  id: 'consumer-offers-v1',
  ruleIds: ['CETP-0-02', 'CETP-2.2-02'],
  description:
    'Every negotiate the consumer sends offers consumer_versions with 2 and 1 (a v2 consumer keeps supporting v1), strictly descending.',
  fields: [
    consistency(
      'the versions a v2 consumer must support: 2 and 1, descending (consumer side)',
      'req:negotiate:consumer_versions',
    ),
  ],
  *judge(obs, ctx) {
    const flagged = new Set<string>();
    for (const c of consumerCalls(obs, ctx)) {
      if (c.method !== 'negotiate' || flagged.has(c.caller)) continue;
      const offered =
        c.request?.typeOf('consumer_versions') === 'IntArray'
          ? c.request.getIntArray('consumer_versions')
          : null;
      if (offered === null) continue; // a malformed request: consumer-requests-well-formed judges it
      const descending = offered.every((v, i) => i === 0 || (offered[i - 1] ?? 0) > v);
      if (offered.includes(2) && offered.includes(1) && descending) continue;
      flagged.add(c.caller);
      yield {
        message: `${c.caller} negotiated with ${c.provider} offering consumer_versions [${offered.join(',')}]`,
        calls: [c.id],
      };
    }
  },
});

/** The file result a successful execute_tool or get_operation reply declares, if any. */
function declaredFile(c: CallView): JsonValue | undefined {
  if (!succeeded(c)) return undefined;
  const data = c.reply.data as JsonValue | undefined;
  if (field(data, 'kind') === 'file') return data;
  const result = field(data, 'result');
  return field(result, 'kind') === 'file' ? result : undefined;
}

/**
 * CETP-4.5-05 / 4.5-06: a file result the agent receives was verified — judged from what the agent
 * got (an answer carrying a `transport: "file"` value) against the bytes the world recorded behind
 * the descriptor of the reply that delivered it: their size must be the declared size_bytes and
 * their SHA-256 the declared lowercase digest. A reply whose bytes are not known is not judged.
 */
export const verifiesFile = judgeEach(AGENT_EXECUTIONS, {
  id: 'consumer-verifies-file',
  ruleIds: ['CETP-4.5-05', 'CETP-4.5-06', 'CETP-4.5-04'],
  description:
    "A file result reaches the agent only when the bytes behind its descriptor have the declared size_bytes and lowercase SHA-256, and the descriptor is read-only — judged from the agent's answer and the world's record of the bytes.",
  fields: [
    consistency(
      'the file results the consumer handed its agent (consumer side)',
      'json:execution_result/size_bytes',
      'json:execution_result/sha256',
    ),
  ],
  judge(a, obs) {
    if (field(field(a.value, 'untrusted'), 'transport') !== 'file') return;
    // The last file result delivered to this consumer for this request before the agent's answer.
    const last = answeredFor(obs, a, field(a.value, 'requestId'), (c) => declaredFile(c) !== undefined).at(
      -1,
    );
    const declared = last ? declaredFile(last) : undefined;
    if (last === undefined || declared === undefined || last.reply.kind !== 'bundle') return;
    const { mode, bytes } = bytesBehind(last.reply, fileResultsByTarget(obs), alteredPaths(obs));
    if (bytes === null) return;
    const problems = [
      ...(mode !== 'r' ? [`a descriptor in mode ${String(mode)}`] : []),
      ...(field(declared, 'size_bytes') !== bytes.length
        ? [`${bytes.length} bytes for size_bytes ${JSON.stringify(field(declared, 'size_bytes'))}`]
        : []),
      ...(field(declared, 'sha256') !== sha256Hex(bytes)
        ? ['bytes whose SHA-256 is not the declared lowercase digest']
        : []),
    ];
    if (problems.length === 0) return;
    return {
      message: `${a.consumer} handed its agent a file result of ${a.tool} on ${a.provider} with ${problems.join(', ')}`,
      calls: [last.id],
    };
  },
});

/**
 * CETP-4.3-07: after a resolution the consumer resumes with THE resume_token that resolution came
 * with — judged from the wire: an execute_tool presenting a token must present the one issued by the
 * latest AUTH_REQUIRED / USER_ACTION_REQUIRED answer to that consumer for that request_id before it
 * was sent (re-sending that same token after a lost reply is a reading of NOTES 2, not a stale one).
 * A token from an earlier resolution — already used, or replaced — is stale.
 */
export const resumesLatestToken = judgeRun({
  id: 'consumer-resumes-latest-token',
  ruleIds: ['CETP-4.3-07'],
  description:
    'A resume presents the resume_token of the latest resolution answered for that request_id, never one from an earlier resolution.',
  fields: [
    consistency(
      "the latest resolution's token for the request (consumer side)",
      'res:resolution:resume_token',
      'req:execute_tool:resume_token',
    ),
  ],
  *judge(obs, ctx) {
    for (const calls of consumerRequests(obs, ctx, isExecution)) {
      for (const c of calls) {
        if (c.resumeToken === null) continue;
        const issued = calls
          .filter((e) => e.reply.kind === 'bundle' && e.replyStep !== null && e.replyStep <= c.step)
          .filter((e) => e.reply.kind === 'bundle' && RESOLUTIONS.has(e.reply.errorCode ?? ''))
          .sort((a, b) => (a.replyStep ?? 0) - (b.replyStep ?? 0))
          .at(-1);
        const latest = issued?.reply.kind === 'bundle' ? issued.reply.bundle.getString('resume_token') : null;
        if (latest === null || latest === c.resumeToken) continue;
        const earlier = calls.some(
          (e) => e.reply.kind === 'bundle' && e.reply.bundle.getString('resume_token') === c.resumeToken,
        );
        if (!earlier) continue; // a token this request never got: not a stale one (other oracles)
        yield {
          message: `${c.caller} resumed request ${c.requestId} (${c.toolName}) with a resume_token of an earlier resolution`,
          calls: [issued?.id ?? c.id, c.id],
        };
        break;
      }
    }
  },
});

export const CONSUMER_CHECKERS: readonly Checker[] = [
  retryDiscipline,
  negotiatedOnly,
  noDowngrade,
  requestIdStable,
  verifiedResolutions,
  offersV1,
  verifiesFile,
  resumesLatestToken,
];
