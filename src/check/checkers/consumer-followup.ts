/**
 * Oracles over what a consumer does NEXT, after an answer that obliges it to something — judged from
 * the wire (the calls its process made, in order), the trace (Activity results, user decisions,
 * process deaths), the PackageManager's manifests and what the agent was finally told:
 * - consumer-queries-after-deadline (5-19): a DEADLINE_EXCEEDED to an execution is followed by a
 *   same-request_id query before the consumer gives up on it;
 * - consumer-no-loop-without-user (5-28): after an authorization, confirmation or argument error the
 *   same request (same id, same args) is not sent again without a user action in between, whatever
 *   the error's `retryable` claims;
 * - consumer-waits-for-result (4.3-12): a resume token goes back to the provider only after the
 *   launched resolution's Activity result reached the consumer;
 * - agent-cancelled-only-when-cancelled (4.4-11, 4.4-19): the agent is told "cancelled" only for a
 *   request the provider reported cancelled (state=cancelled or CANCELLED) — a cancellation request
 *   taken is not an outcome;
 * - consumer-discovery-verified (2.1-04, 2.1-08): the consumer speaks v2 only to packages whose
 *   discovery meta-data declares 2 as the spec reads it (`versions`, or the one version in
 *   `version`), and an agent's request for provider X reaches only X's package;
 * - consumer-resumes-after-restart (6-08, 4.1-15): a write in flight when the consumer died (its
 *   agent not yet answered) is re-sent or queried under its request_id by the consumer's next process;
 * - consumer-rereads-catalogue (3.3-05): every session the consumer executes in had its tool list
 *   (and revision) read in it first — after every new negotiation, not only the first.
 * A consumer process that died in between is excused: its successor cannot know the answer.
 */

import { META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../../protocol/discovery.ts';
import type { CheckContext, Checker } from '../checker.ts';
import { AGENT_EXECUTIONS, consistency, consumerCalls, judgeEach, judgeRun } from '../checker-kit.ts';
import type { CallView, Observation } from '../observation.ts';
import { packageOf } from '../record.ts';
import { answeredFor, consumerRequests, field, lastAnsweredBefore } from './consumer-view.ts';

/** Whether the calling process of `c` was killed at a step in [from, to]. */
function callerDied(obs: Observation, c: CallView, from: number, to = Number.MAX_SAFE_INTEGER): boolean {
  return obs.events.some(
    (e) =>
      e.kind === 'process.kill' &&
      e.data.actor === (c.callerProcess ?? c.caller) &&
      e.data.pid === c.callerPid &&
      e.step >= from &&
      e.step <= to,
  );
}

/** Consumer v2 calls that carry a request_id, by caller, provider and request_id, in sending order. */
function byRequest(obs: Observation, ctx: CheckContext): CallView[][] {
  return consumerRequests(obs, ctx, (c) => c.v2);
}

function errorOf(c: CallView): string | null {
  return c.reply.kind === 'bundle' && c.reply.status === 'error' ? c.reply.errorCode : null;
}

export const queriesAfterDeadline = judgeRun({
  id: 'consumer-queries-after-deadline',
  ruleIds: ['CETP-5-19'],
  description:
    'After DEADLINE_EXCEEDED to an execution the consumer queries the same request_id (get_operation or the same-id re-send) before it gives up on the request.',
  fields: [
    consistency('the consumer’s next call after DEADLINE_EXCEEDED (consumer side)', 'res:error:error_code'),
  ],
  *judge(obs, ctx) {
    for (const calls of byRequest(obs, ctx)) {
      for (const [i, c] of calls.entries()) {
        if (c.method !== 'execute_tool' || errorOf(c) !== 'DEADLINE_EXCEEDED' || c.replyStep === null)
          continue;
        // This was itself the query (an earlier answer was DEADLINE_EXCEEDED), or the consumer's
        // one query after a refused re-sent token (NOTES 2): the query is used up.
        const earlier = calls.slice(0, i).map(errorOf);
        if (earlier.includes('DEADLINE_EXCEEDED') || earlier.includes('INVALID_REQUEST')) continue;
        const replyStep = c.replyStep;
        // A later same-id call sent after that answer, or one already in flight when it came (the
        // consumer had stopped waiting and re-sent; the late answer is one it no longer awaited).
        const queried = calls
          .slice(i + 1)
          .some((n) => n.step >= replyStep || n.replyStep === null || n.replyStep >= replyStep);
        if (queried || callerDied(obs, c, replyStep)) continue;
        yield {
          message: `${c.caller} got DEADLINE_EXCEEDED for request ${c.requestId} (${c.toolName}) and never queried that request_id`,
          calls: [c.id],
        };
      }
    }
  },
});

/** Errors that need the user or new input (5-28), whatever `retryable` says. */
const NEEDS_USER = new Set(['AUTH_REQUIRED', 'USER_ACTION_REQUIRED', 'INVALID_ARGS', 'PERMISSION_DENIED']);

/**
 * An Activity result for `consumer`: delivered by the Activity, or the system's RESULT_CANCELED for
 * a launch it blocked as a background start (the launcher learns it at once).
 */
function isActivityResult(e: { kind: string; data: Record<string, unknown> }, consumer: string): boolean {
  return (
    (e.kind === 'activity.result' && e.data.to === consumer) ||
    (e.kind === 'activity.start.blocked' && e.data.actor === consumer)
  );
}

/**
 * A user decision, or an Activity result for `consumer`, at a step in [from, to): what happened in
 * step `from` — the step the answer arrived — came after it (the consumer's own launch, a fault).
 */
function userActedBetween(obs: Observation, consumer: string, from: number, to: number): boolean {
  return obs.events.some(
    (e) => e.step >= from && e.step < to && (e.kind === 'user.decision' || isActivityResult(e, consumer)),
  );
}

export const noLoopWithoutUser = judgeRun({
  id: 'consumer-no-loop-without-user',
  ruleIds: ['CETP-5-28'],
  description:
    'After AUTH_REQUIRED, USER_ACTION_REQUIRED, INVALID_ARGS or PERMISSION_DENIED the consumer does not send the same request again (same request_id, same args) without a user action in between — even when the error claims to be retryable.',
  fields: [
    consistency(
      'the consumer’s re-sends: none after a needs-the-user error without a user action (consumer side)',
      'res:error:error_code',
      'res:error:retryable',
    ),
  ],
  *judge(obs, ctx) {
    for (const calls of byRequest(obs, ctx)) {
      const executions = calls.filter((c) => c.method === 'execute_tool');
      for (let i = 1; i < executions.length; i++) {
        const next = executions[i] as CallView;
        const p = lastAnsweredBefore(executions, i);
        if (p < 0) continue;
        const prev = executions[p] as CallView;
        const code = errorOf(prev);
        if (code === null || !NEEDS_USER.has(code) || prev.replyStep === null) continue;
        if (userActedBetween(obs, next.caller, prev.replyStep, next.step)) continue;
        if (callerDied(obs, prev, prev.replyStep, next.step)) continue;
        yield {
          message: `${next.caller} re-sent request ${next.requestId} (${next.toolName}) after ${code} (retryable=${String(prev.reply.kind === 'bundle' ? prev.reply.retryable : null)}) without any user action`,
          calls: [prev.id, next.id],
        };
      }
    }
  },
});

export const waitsForActivityResult = judgeRun({
  id: 'consumer-waits-for-result',
  ruleIds: ['CETP-4.3-12'],
  description:
    'A resume token goes back to the provider only after the Activity result of the launched resolution reached the consumer.',
  fields: [
    consistency(
      'the Activity results the consumer received before it resumed (consumer side)',
      'res:resolution:resume_token',
      'req:execute_tool:resume_token',
    ),
  ],
  *judge(obs, ctx) {
    for (const calls of byRequest(obs, ctx)) {
      for (const [i, c] of calls.entries()) {
        const token = c.resumeToken;
        if (c.method !== 'execute_tool' || token === null) continue;
        // Only the first presentation of a token; later ones re-send it (a lost reply).
        if (calls.slice(0, i).some((e) => e.resumeToken === token)) continue;
        const issuer = calls
          .slice(0, i)
          .find((e) => e.reply.kind === 'bundle' && e.reply.bundle.getString('resume_token') === token);
        if (!issuer || issuer.replyStep === null) continue;
        const from = issuer.replyStep;
        const waited = obs.events.some(
          // In the step the resolution arrived, after it: a launch the system blocked answers at once.
          (e) => isActivityResult(e, c.caller) && e.step >= from && e.step <= c.step,
        );
        if (waited || callerDied(obs, issuer, from, c.step)) continue;
        yield {
          message: `${c.caller} resumed request ${c.requestId} (${c.toolName}) before any Activity result reached it`,
          calls: [issuer.id, c.id],
        };
      }
    }
  },
});

/** The provider said the request ended cancelled: state=cancelled, or the CANCELLED error. */
function reportedCancelled(c: CallView): boolean {
  if (c.reply.kind !== 'bundle') return false;
  if (c.reply.errorCode === 'CANCELLED') return true;
  return c.reply.status === 'success' && field(c.reply.data, 'state') === 'cancelled';
}

export const cancelledOnlyWhenCancelled = judgeEach(AGENT_EXECUTIONS, {
  id: 'agent-cancelled-only-when-cancelled',
  ruleIds: ['CETP-4.4-11', 'CETP-4.4-19'],
  description:
    'The agent is told "cancelled" only for a request its provider reported cancelled (state=cancelled or CANCELLED); a cancellation request taken is not an outcome, the consumer queries on to the terminal state.',
  fields: [
    consistency(
      'what the agent was told: cancelled only after state=cancelled (consumer side)',
      'json:cancel_response/state',
      'json:operation_status/state',
    ),
  ],
  judge(a, obs) {
    if (field(a.value, 'kind') !== 'cancelled') return;
    const requestId = field(a.value, 'requestId');
    if (answeredFor(obs, a, requestId, reportedCancelled).length > 0) return;
    return `the agent was told its ${a.tool} on ${a.provider} (request ${String(requestId)}) was cancelled, but the provider never reported it cancelled`;
  },
});

/** The versions a package's discovery service declares, read as the spec says (2.1-04, 2.1-05). */
function specVersions(obs: Observation, packageName: string): number[] {
  const info = packageOf(obs.record, packageName);
  const out: number[] = [];
  for (const s of info?.manifest.services ?? []) {
    if (!s.intentFilters.some((f) => f.actions.includes(TOOL_PROVIDER_ACTION))) continue;
    const versions = s.metaData[META_VERSIONS];
    const version = s.metaData[META_VERSION]?.trim();
    if (versions !== undefined) {
      for (const v of versions.split(',')) if (/^\s*[1-9][0-9]*\s*$/.test(v)) out.push(Number(v));
    } else if (version !== undefined && /^[1-9][0-9]*$/.test(version)) out.push(Number(version));
  }
  return out;
}

export const discoveryVerified = judgeRun({
  id: 'consumer-discovery-verified',
  ruleIds: ['CETP-2.1-04', 'CETP-2.1-08'],
  description:
    'The consumer speaks v2 (negotiate included) only to packages whose discovery meta-data declares 2 — `versions`, or else `version` read as the sole version — and while it serves only agent executions, it calls only the packages of those executions’ providers (the authority a discovery service names must be its own).',
  *judge(obs, ctx) {
    const versions = new Map<string, number[]>();
    const declared = (pkg: string) => {
      let v = versions.get(pkg);
      if (!v) {
        v = specVersions(obs, pkg);
        versions.set(pkg, v);
      }
      return v;
    };
    const mine = consumerCalls(obs, ctx);
    const flagged = new Set<string>();
    for (const c of mine) {
      const protocol = c.v2 || c.method === 'negotiate' ? 2 : c.v1 ? 1 : null;
      if (protocol === null || declared(c.provider).includes(protocol)) continue;
      const key = `${c.caller}|${c.provider}|${protocol}`;
      if (flagged.has(key)) continue;
      flagged.add(key);
      yield {
        message: `${c.caller} sent ${c.method} as v${protocol} to ${c.provider}, whose discovery meta-data declares [${declared(c.provider).join(',')}]`,
        calls: [c.id],
      };
    }
    // Calls made while the consumer's process was serving only agent executions: each must go to
    // the package of one of those executions' providers (a listing may connect every provider).
    const asked = obs.agentCalls.filter((a) => ctx.consumers.includes(a.consumer));
    const inFlight = (c: CallView) =>
      asked.filter(
        (a) =>
          a.consumer === c.caller &&
          a.pid === c.callerPid &&
          a.step <= c.step &&
          (a.endStep === null || c.step <= a.endStep),
      );
    for (const c of mine) {
      const owners = inFlight(c);
      if (owners.length === 0 || owners.some((a) => a.kind !== 'execute' || a.provider === c.provider))
        continue;
      yield {
        message: `${c.caller} sent ${c.method} to ${c.provider} while serving only agent requests for ${[...new Set(owners.map((a) => a.provider))].join(', ')}`,
        calls: [c.id],
      };
      break;
    }
  },
});

export const rereadsCatalogue = judgeRun({
  id: 'consumer-rereads-catalogue',
  ruleIds: ['CETP-3.3-05'],
  description:
    'After every new negotiation the consumer reads list_tools (and so the revision) in that session before it executes a tool in it.',
  fields: [
    consistency(
      'the sessions the consumer executes in: each one’s tool list read first (consumer side)',
      'json:list_tools_response/revision',
      'json:negotiate_response/session_token',
    ),
  ],
  *judge(obs, ctx) {
    const listed = new Map<string, number>();
    for (const c of consumerCalls(obs, ctx)) {
      if (!c.v2 || c.sessionToken === null) continue;
      const key = `${c.caller}|${c.provider}|${c.sessionToken}`;
      if (c.method === 'list_tools') {
        if (!listed.has(key)) listed.set(key, c.id);
        continue;
      }
      if (c.method !== 'execute_tool' || listed.has(key)) continue;
      listed.set(key, c.id); // one finding per session
      yield {
        message: `${c.caller} executed ${c.toolName} on ${c.provider} in a session it never read list_tools in (a new negotiation whose revision was not checked)`,
        calls: [c.id],
      };
    }
  },
});

const TRANSIENT = new Set(['NEGOTIATION_REQUIRED', 'UNAVAILABLE', 'RATE_LIMITED', 'DEADLINE_EXCEEDED']);

/** Whether a reply told the caller how its request ended (not a transient error, not still running). */
function learnedOutcome(c: CallView): boolean {
  if (c.reply.kind !== 'bundle') return false;
  if (c.reply.status === 'accepted') return false;
  if (c.reply.status === 'error') {
    const code = c.reply.errorCode ?? '';
    // A resolution pending: the execution goes on after the user's answer.
    return !TRANSIENT.has(code) && code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED';
  }
  const state = field(c.reply.data, 'state');
  return c.method === 'execute_tool' || state === 'succeeded' || state === 'failed' || state === 'cancelled';
}

/**
 * Whether every agent request of `first`'s process that was open when `first` was sent — the
 * request it was sent for — had its answer before `deathStep` (the harness's record, not the
 * consumer's own log).
 */
function answeredBefore(obs: Observation, first: CallView, deathStep: number): boolean {
  const open = obs.agentCalls.filter(
    (a) =>
      a.consumer === first.caller &&
      a.pid === first.callerPid &&
      a.kind === 'execute' &&
      a.provider === first.provider &&
      a.tool === first.toolName &&
      a.step <= first.step &&
      (a.endStep === null || a.endStep >= first.step),
  );
  return open.length > 0 && open.every((a) => a.endStep !== null && a.endStep < deathStep);
}

export const resumesAfterRestart = judgeRun({
  id: 'consumer-resumes-after-restart',
  ruleIds: ['CETP-6-08', 'CETP-4.1-15'],
  description:
    'A write the consumer sent and never learned the outcome of before its process died is followed up — re-sent or queried under the same request_id — by the consumer once it runs again.',
  fields: [
    consistency(
      'the calls of the consumer’s next process after a death with a write in flight (consumer side)',
      'req:execute_tool:request_id',
    ),
  ],
  *judge(obs, ctx) {
    if (obs.report.outcome.kind !== 'completed') return;
    const deaths = obs.events.filter(
      // A process event names its package where the process is not named after it (`<pkg>@u10`).
      (e) => e.kind === 'process.kill' && ctx.consumers.includes(String(e.data.package ?? e.data.actor)),
    );
    if (deaths.length === 0) return;
    for (const calls of byRequest(obs, ctx)) {
      const first = calls[0] as CallView;
      if (first.method !== 'execute_tool' || first.toolName === null) continue;
      const effect = ctx.toolEffects.get(`${first.provider}|${first.toolName}`);
      if (effect === undefined || effect === 'read') continue;
      // A death in the very step the call was sent came after it (faults apply after the step's task).
      const death = deaths.find((e) => e.data.pid === first.callerPid && e.step >= first.step);
      if (!death) continue;
      const own = calls.filter((c) => c.callerPid === first.callerPid);
      if (own.some(learnedOutcome)) continue;
      // The consumer had already answered the agent that asked for it (given up: its retry budget
      // spent): the request was no longer in flight in the consumer when it died — the same as if
      // it had not died. What it told the agent is judged by the agent oracles (agent-outcome-truth).
      if (answeredBefore(obs, first, death.step)) continue;
      // A later process of the consumer that became ready after the death and ran to the end.
      const successor = obs.events.find(
        (e) =>
          e.kind === 'process.ready' &&
          e.data.actor === first.caller &&
          e.seq > death.seq &&
          !deaths.some((d) => d.data.pid === e.data.pid),
      );
      if (!successor) continue;
      if (calls.some((c) => c.callerPid !== first.callerPid && c.step > death.step)) continue;
      yield {
        message: `${first.caller} died with ${first.toolName} (request ${first.requestId}) on ${first.provider} in flight and, running again, never re-sent or queried it`,
        calls: [first.id],
        events: [death.seq, successor.seq],
      };
    }
  },
});

export const CONSUMER_FOLLOWUP_CHECKERS: readonly Checker[] = [
  queriesAfterDeadline,
  noLoopWithoutUser,
  waitsForActivityResult,
  cancelledOnlyWhenCancelled,
  discoveryVerified,
  rereadsCatalogue,
  resumesAfterRestart,
];
