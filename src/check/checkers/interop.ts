/**
 * Oracles over what the agent was finally told, against the world's record — the verdicts the
 * interpretation matrix (`cetp-sim matrix`) needs to see two readings of the spec fail to work
 * together, and that hold for any conforming consumer and provider:
 * - agent-outcome-truth: an agent told that its execution definitively did not happen (refused,
 *   cancelled, declined, …) must not find its business effect committed — the retry discipline of
 *   6-08 / 4.1-15 exists so that a same-id retry reaches the true outcome (6-05);
 * - agent-not-refused-as-misuse: a consumer that follows the spec, talking to a provider that
 *   follows it, never ends an agent's execution with INVALID_REQUEST (5-15 is for misuse of the
 *   envelope, a token or a request id; a legitimate resume or retry refused as misuse is the two
 *   sides reading the spec differently).
 * Hostile providers are not judged (they refuse and lie by design).
 */
import type { AgentCallRecord } from '../../sim/ground-truth.ts';
import type { CheckContext } from '../checker.ts';
import { judgeEach, judgeRun, source } from '../checker-kit.ts';
import { effectEvents, type Observation } from '../observation.ts';
import { uidOf } from '../record.ts';
import { field } from './consumer-view.ts';

/** Failure kinds that tell the agent "this did not happen" (not "unknown", not "committed"). */
const DEFINITIVE_NOTHING = new Set([
  'rejected',
  'user_cancelled',
  'cancelled',
  'invalid_args',
  'tool_not_found',
  'declined_locally',
  'refused_resolution',
  'user_action_loop',
]);

/** Codes that say nothing about the outcome (the agent must not conclude nothing happened). */
const UNKNOWN_CODES = new Set(['DEADLINE_EXCEEDED', 'UNAVAILABLE', 'RATE_LIMITED', 'NEGOTIATION_REQUIRED']);

interface Told {
  readonly call: AgentCallRecord;
  readonly kind: string;
  readonly code: string | null;
  readonly requestId: string;
}

/** The agent executions of consumers under test against providers under test, with what they were told. */
function toldOutcomes(obs: Observation, ctx: CheckContext): Told[] {
  const hostile = new Set(ctx.hostile ?? []);
  const out: Told[] = [];
  for (const call of obs.agentCalls) {
    if (call.kind !== 'execute' || !ctx.consumers.includes(call.consumer)) continue;
    if (call.provider === null || hostile.has(call.provider)) continue;
    if (!ctx.providersUnderTest.includes(call.provider) || call.endStep === null) continue;
    const kind = field(call.value, 'kind');
    const requestId = field(call.value, 'requestId');
    if (typeof kind !== 'string' || typeof requestId !== 'string') continue;
    const code = field(call.value, 'code');
    out.push({ call, kind, code: typeof code === 'string' ? code : null, requestId });
  }
  return out;
}

export const agentOutcomeTruth = judgeEach(source(toldOutcomes), {
  id: 'agent-outcome-truth',
  ruleIds: ['CETP-6-05', 'CETP-6-08', 'CETP-4.1-15'],
  description:
    'An agent told that its execution definitively did not happen finds no business effect of it committed (a same-id retry reaches the true outcome).',
  judge(told, obs) {
    if (!DEFINITIVE_NOTHING.has(told.kind)) return;
    if (told.kind === 'rejected' && told.code !== null && UNKNOWN_CODES.has(told.code)) return;
    const uid = uidOf(obs.record, told.call.consumer);
    const effects = obs.effects.filter(
      (e) =>
        e.provider === told.call.provider &&
        e.requestId === told.requestId &&
        e.uid === uid &&
        e.step <= (told.call.endStep ?? Number.MAX_SAFE_INTEGER),
    );
    if (effects.length === 0) return;
    return {
      message: `the agent was told ${told.kind}${told.code ? ` ${told.code}` : ''} for ${told.call.tool} on ${told.call.provider} (request ${told.requestId}), but its business effect was committed`,
      events: effectEvents(...effects),
    };
  },
});

/**
 * Whether the execution presented a resume token later than the provider's resume-token lifetime
 * after the agent asked (CETP-4.3-06: an expired token is refused; no reply states the lifetime, so a
 * conforming consumer cannot know it). The token was issued after the agent asked, so a resume that
 * late may carry an expired one: its refusal is not misuse. Lifetime unknown: the reference's 10 min.
 */
function resumedLate(obs: Observation, ctx: CheckContext, told: Told): boolean {
  const provider = told.call.provider;
  if (provider === null) return false;
  const ttl = ctx.resumeTokenTtlMs?.get(provider) ?? REFERENCE_RESUME_TOKEN_TTL_MS;
  const uid = uidOf(obs.record, told.call.consumer);
  return obs.calls.some(
    (c) =>
      c.provider === provider &&
      c.callerUid === uid &&
      c.requestId === told.requestId &&
      c.resumeToken !== null &&
      c.t - told.call.t > ttl,
  );
}

const REFERENCE_RESUME_TOKEN_TTL_MS = 600_000;

export const agentNotRefusedAsMisuse = judgeRun({
  id: 'agent-not-refused-as-misuse',
  ruleIds: ['CETP-5-15', 'CETP-4.3-07', 'CETP-6-04', 'CETP-6-08'],
  description:
    'A conforming consumer talking to a conforming provider never ends an execution with INVALID_REQUEST (misuse of the envelope, a token or a request id).',
  *judge(obs, ctx) {
    for (const t of toldOutcomes(obs, ctx)) {
      if (t.kind !== 'rejected' || t.code !== 'INVALID_REQUEST' || resumedLate(obs, ctx, t)) continue;
      yield `the agent's ${t.call.tool} on ${t.call.provider} (request ${t.requestId}) ended with INVALID_REQUEST: the provider refused what the consumer sent as misuse`;
    }
  },
});
