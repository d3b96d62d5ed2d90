/**
 * The oracle over admission (§5 CETP-5-17, §2.2 max_concurrent_requests, NOTES 17): a provider that
 * negotiated `max_concurrent_requests = N` for a session refuses, with RATE_LIMITED, an execution
 * that would make more than N of that session's executions in flight at once. The wire alone cannot
 * show it (a caller's answer lags the provider's work); the world can: for every Binder call it
 * records the step the provider's binder thread called ContentProvider.call and the step that call
 * returned (src/sim/content/content.ts, `served`). Executions of one session at one provider process
 * instance whose handlers all ran at one moment (the latest start before the earliest end) were in
 * flight together.
 *
 * Only executions the provider certainly admitted are counted: those answered success or accepted
 * (the work was done or started), whether the answer reached the caller or was lost. Refusals before
 * admission (an invalid envelope, an unknown session) and calls whose handler never returned are
 * left out, so the oracle can only under-count: when more than N admitted executions of one session
 * were served at once, the limit was not enforced. Sessions are told apart by their token and the
 * limit is the one that session's negotiate answer stated; a provider that counts per UID (as the
 * reference does) only refuses earlier. One process instance at a time: a restart starts empty.
 */
import { type Checker, groupBy } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type CallView, type Observation, succeeded } from '../observation.ts';

/** max_concurrent_requests by session token, from the negotiate answers on the wire. */
function sessionLimits(obs: Observation): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of obs.calls) {
    if (!succeeded(c, 'negotiate')) continue;
    const d = c.reply.data as { session_token?: unknown; limits?: { max_concurrent_requests?: unknown } };
    const limit = d?.limits?.max_concurrent_requests;
    if (typeof d?.session_token === 'string' && typeof limit === 'number' && Number.isInteger(limit))
      out.set(`${c.provider}|${d.session_token}`, limit);
  }
  return out;
}

function admitted(c: CallView): boolean {
  return [c.reply, c.lostAnswer].some(
    (r) => r?.kind === 'bundle' && (r.status === 'success' || r.status === 'accepted'),
  );
}

/** The largest set of intervals that share a moment: at each start, those started and not yet ended. */
function mostAtOnce(calls: readonly CallView[]): CallView[] {
  let best: CallView[] = [];
  for (const c of calls) {
    const at = c.served?.fromStep ?? 0;
    const together = calls.filter(
      (o) => o.served !== null && o.served.fromStep <= at && (o.served.untilStep ?? -1) > at,
    );
    if (together.length > best.length) best = together;
  }
  return best;
}

export const admissionLimit = judgeRun({
  id: 'admission-limit',
  ruleIds: ['CETP-5-17'],
  description:
    'No more than the negotiated max_concurrent_requests executions of one session are admitted at once by a provider process: the excess is refused RATE_LIMITED (judged from when the world saw each handler run).',
  fields: [
    consistency(
      'the executions of that session the provider was serving at once (Binder handler intervals)',
      'json:negotiate_response/limits/max_concurrent_requests',
    ),
  ],
  *judge(obs, ctx) {
    let limits: Map<string, number> | null = null;
    const candidates = obs.calls.filter(
      (c) =>
        c.method === 'execute_tool' &&
        c.v2 &&
        c.sessionToken !== null &&
        c.served !== null &&
        c.served.untilStep !== null &&
        c.served.untilStep > c.served.fromStep &&
        ctx.providersUnderTest.includes(c.provider) &&
        admitted(c),
    );
    if (candidates.length < 2) return;
    for (const group of groupBy(
      candidates,
      (c) => `${c.provider}|${c.served?.pid}|${c.sessionToken}`,
    ).values()) {
      limits ??= sessionLimits(obs);
      const first = group[0] as CallView;
      const limit = limits.get(`${first.provider}|${first.sessionToken}`);
      if (limit === undefined || group.length <= limit) continue;
      const together = mostAtOnce(group);
      if (together.length <= limit) continue;
      yield {
        message: `${together.length} executions of one session (${first.caller} → ${first.provider}) were admitted and served at once, over its max_concurrent_requests ${limit}; none was refused RATE_LIMITED`,
        calls: together.map((c) => c.id),
      };
    }
  },
});

export const ADMISSION_CHECKERS: readonly Checker[] = [admissionLimit];
