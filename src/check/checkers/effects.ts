/**
 * Oracles over business effects — declared by the provider through the public effect API and
 * recorded by the world when their transaction committed (src/sim/ground-truth.ts) — against the
 * calls on the wire that asked for them and the screens the user actually answered: at most one
 * effect per request, attributed to the UID that asked, only on that UID's own data, never before
 * the user approved exactly those args on the provider's own screen, never on an expired deadline,
 * never for an operation reported cancelled.
 */
import type { ScreenRecord } from '../../sim/ground-truth.ts';
import { type CheckContext, type Checker, groupBy } from '../checker.ts';
import { ALL_CALLS, callSource, consistency, EFFECTS, judgeEach, judgeRun, source } from '../checker-kit.ts';
import { approvalsInTime, callsOf, maxMatching, neededApproval, unshown } from '../ground.ts';
import { type CallView, type EffectNote, effectEvents, type Observation, succeeded } from '../observation.ts';
import { uidOf } from '../record.ts';
import { incarnationAt } from './lifecycle.ts';

const effectKey = (e: { provider: string; uid: number; requestId: string }) =>
  `${e.provider}|${e.uid}|${e.requestId}`;

export const singleEffect = judgeRun({
  id: 'single-effect',
  ruleIds: ['CETP-6-01', 'CETP-6-06', 'CETP-4.1-09', 'CETP-4.4-17', 'CETP-10-06'],
  description:
    'At most one business effect per (calling UID, provider, request_id) within one incarnation of the provider (a reinstall wipes its request records: a re-send after it is a new request).',
  fields: [
    consistency(
      "the world's committed effects: one per UID, provider, request_id",
      'req:execute_tool:request_id',
    ),
  ],
  *judge(obs) {
    const byRequest = groupBy(
      obs.effects,
      (e) => `${effectKey(e)}|${incarnationAt(obs, e.provider, e.step, e.seq)}`,
    );
    for (const list of byRequest.values()) {
      if (list.length < 2) continue;
      yield {
        message: `request ${list[0]?.requestId} of uid ${list[0]?.uid} had ${list.length} business effects on ${list[0]?.provider}`,
        events: effectEvents(...list),
      };
    }
  },
});

function executeCalls(obs: Observation, providerUid?: number): CallView[] {
  return obs.calls.filter(
    (c) =>
      c.method === 'execute_tool' && c.v2 && (providerUid === undefined || c.providerUid === providerUid),
  );
}

function providerUid(obs: Observation, provider: string): number | undefined {
  return uidOf(obs.record, provider) ?? undefined;
}

export const effectAttribution = judgeEach(EFFECTS, {
  id: 'effect-attribution',
  ruleIds: ['CETP-7.1-01', 'CETP-6-02', 'CETP-10-08'],
  description: 'Every effect is attributed to a UID that actually sent that request_id.',
  fields: [consistency('the UID that sent it, for every committed effect', 'req:execute_tool:request_id')],
  judge(e, obs) {
    const asked = executeCalls(obs).some(
      (c) =>
        c.provider === e.provider && c.callerUid === e.uid && c.requestId === e.requestId && c.step <= e.step,
    );
    if (!asked) return `effect of request ${e.requestId} attributed to uid ${e.uid}, which never sent it`;
  },
});

/** The v2 execute_tool calls of the run. */
const EXECUTIONS = callSource((obs) => executeCalls(obs));

export const noCrossUidResults = judgeEach(EXECUTIONS, {
  id: 'no-cross-uid-results',
  ruleIds: ['CETP-6-02', 'CETP-6-05'],
  description: "A caller never receives success for another UID's effect under the same request_id.",
  fields: [
    consistency(
      "another UID's effect under the same request_id",
      'req:execute_tool:request_id',
      'res:success:data',
    ),
  ],
  judge(c, obs, ctx) {
    if (!succeeded(c)) return;
    if ((ctx.toolEffects.get(c.toolKey) ?? 'read') === 'read') return;
    const mine = obs.effects.some(
      (e) => e.provider === c.provider && e.uid === c.callerUid && e.requestId === c.requestId,
    );
    const others = obs.effects.filter(
      (e) =>
        e.provider === c.provider &&
        e.uid !== c.callerUid &&
        e.requestId === c.requestId &&
        e.tool === c.toolName,
    );
    if (!mine && others.length > 0)
      return {
        message: `uid ${c.callerUid} got success for request ${c.requestId}, whose only effect is uid ${others[0]?.uid}'s`,
        calls: [c.id],
        events: effectEvents(...others),
      };
  },
});

/** The effects in `obs` that needed the user's approval, each with its in-time approvals. */
function approvable(obs: Observation, ctx: CheckContext): { e: EffectNote; screens: ScreenRecord[] }[] {
  return obs.effects
    .filter((e) => ctx.providersUnderTest.includes(e.provider) && neededApproval(obs, ctx, e))
    .map((e) => ({ e, screens: approvalsInTime(obs, e) }));
}

export const approvalBinding = judgeRun({
  id: 'approval-binding',
  ruleIds: [
    'CETP-4.3-08',
    'CETP-4.3-09',
    'CETP-4.3-04',
    'CETP-4.3-05',
    'CETP-4.3-10',
    'CETP-4.3-13',
    'CETP-4.3-14',
    'CETP-4.3-15',
  ],
  description:
    "An effect that needed confirmation follows the user's own approval, on the provider's screen, of exactly the args it acted on — one approval per effect (judged from what the user answered, not from the provider).",
  fields: [
    consistency(
      "the user's approval on the provider's screen, of exactly these args",
      'req:execute_tool:resume_token',
      'req:execute_tool:args',
      'res:resolution:resume_token',
      'json:list_tools_response/tools[]/annotations/confirmation',
    ),
  ],
  *judge(obs, ctx) {
    const list = approvable(obs, ctx);
    // Which approvals each effect could stand on: shown after its request, approved before it, by
    // this very user answer, and showing what the effect acted on. One approval backs one effect.
    const all = [...new Set(list.flatMap((x) => x.screens))];
    const match = maxMatching(list.length, all.length, (l, r) => {
      const x = list[l];
      const s = all[r];
      return !!x && !!s && x.screens.includes(s) && unshown(s, x.e).length === 0;
    });
    for (const [i, { e, screens }] of list.entries()) {
      if ((match[i] ?? -1) >= 0) continue;
      const showing = screens.filter((s) => unshown(s, e).length === 0);
      const why =
        screens.length === 0
          ? 'without the user approving it on a screen of the provider'
          : showing.length === 0
            ? `though the screens the user approved did not show ${describe(unshown(screens[0] as ScreenRecord, e))}`
            : 'on an approval already used by another effect';
      yield {
        message: `effect of ${e.tool} request ${e.requestId} of uid ${e.uid} ${why}`,
        events: [...effectEvents(e), ...screens.map((s) => s.seq)],
        calls: callsOf(obs, e).map((c) => c.id),
      };
    }
  },
});

function describe(values: readonly (string | number)[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

export const confirmationScreenShows = judgeEach(source(approvable), {
  id: 'confirmation-screen-shows',
  ruleIds: ['CETP-7.2-06', 'CETP-4.3-09'],
  description:
    'The screen on which the user approved an effect showed the object and the values of the args the effect acted on (not just the tool description).',
  fields: [consistency('what the approved screen showed', 'req:execute_tool:args')],
  judge({ e, screens }) {
    if (screens.length === 0) return; // no approval at all: approval-binding's finding
    if (screens.some((s) => unshown(s, e).length === 0)) return;
    const s = screens[0] as ScreenRecord;
    return {
      message: `the user approved "${s.title}" for ${e.tool} request ${e.requestId}, but it did not show ${describe(unshown(s, e))}`,
      events: [s.seq, ...effectEvents(e)],
    };
  },
});

export const effectOnOwnData = judgeEach(EFFECTS, {
  id: 'effect-on-own-data',
  ruleIds: ['CETP-7.1-01', 'CETP-7.1-02', 'CETP-6-02'],
  description: "An effect made for a caller touches only that caller's own data (owner UID = caller UID).",
  fields: [consistency('the owner of the data the effect touched', 'req:execute_tool:args')],
  judge(e, obs, ctx) {
    if (!ctx.providersUnderTest.includes(e.provider) || e.ownerUid === e.uid) return;
    return {
      message: `${e.tool} request ${e.requestId} of uid ${e.uid} changed ${e.object ?? 'data'} owned by uid ${e.ownerUid}`,
      events: effectEvents(e),
      calls: callsOf(obs, e).map((c) => c.id),
    };
  },
});

export const deadlineBeforeEffect = judgeEach(EFFECTS, {
  id: 'deadline-before-effect',
  ruleIds: ['CETP-4.1-14', 'CETP-10-03'],
  description: 'No effect is started by a call whose deadline had already passed.',
  fields: [consistency('the world clock when the effect committed', 'req:execute_tool:deadline_at_ms')],
  judge(e, obs) {
    const calls = executeCalls(obs, providerUid(obs, e.provider)).filter(
      (c) => c.callerUid === e.uid && c.requestId === e.requestId && c.step <= e.step,
    );
    if (calls.length > 0 && calls.every((c) => c.deadlineAtMs !== null && c.deadlineAtMs <= c.t))
      return {
        message: `request ${e.requestId} had an effect though every call for it arrived after its deadline`,
        events: effectEvents(e),
        calls: calls.map((c) => c.id),
      };
  },
});

export const cancelledHasNoEffect = judgeEach(ALL_CALLS, {
  id: 'cancelled-has-no-effect',
  ruleIds: ['CETP-4.4-19', 'CETP-4.4-21', 'CETP-5-20'],
  description: 'An operation reported cancelled has no effect; a committed one is never reported cancelled.',
  fields: [
    consistency("the world's committed effects", 'json:operation_status/state', 'json:cancel_response/state'),
  ],
  judge(c, obs) {
    if (c.reply.kind !== 'bundle' || !c.requestId) return;
    const data = c.reply.data as { state?: string } | undefined;
    const cancelled =
      (c.method === 'get_operation' && c.reply.status === 'success' && data?.state === 'cancelled') ||
      (c.method === 'execute_tool' && c.reply.errorCode === 'CANCELLED');
    if (!cancelled) return;
    const effect = obs.effects.find(
      (e) => e.provider === c.provider && e.uid === c.callerUid && e.requestId === c.requestId,
    );
    if (effect)
      return {
        message: `request ${c.requestId} was reported cancelled but its effect was committed`,
        calls: [c.id],
        events: effectEvents(effect),
      };
  },
});

export const authorizedEffect = judgeEach(EFFECTS, {
  id: 'authorized-effect',
  ruleIds: ['CETP-3.4-14', 'CETP-3.4-15', 'CETP-10-01', 'CETP-10-11', 'CETP-7.2-03'],
  description:
    "Every effect of a tool whose scopes need the user's grant follows the user approving, on the provider's own screen, the authorization the provider asked that UID for (AUTH_REQUIRED on the wire).",
  fields: [
    consistency(
      "the user's grant of the tool's scopes on the provider's screen",
      'req:execute_tool:tool_name',
      'json:list_tools_response/tools[]/scopes',
      'json:list_tools_response/tools[]/scopes[]',
      'json:provider_info/scopes[]/name',
    ),
  ],
  judge(e, obs, ctx) {
    const needed = (ctx.toolScopes.get(`${e.provider}|${e.tool}`) ?? []).filter((s) =>
      (ctx.userGrantedScopes.get(e.provider) ?? []).includes(s),
    );
    if (needed.length === 0) return;
    // When the provider asked this UID for authorization (grants outlive requests: any call).
    const asked = obs.calls
      .filter(
        (c) =>
          c.provider === e.provider &&
          c.callerUid === e.uid &&
          c.reply.kind === 'bundle' &&
          c.reply.errorCode === 'AUTH_REQUIRED' &&
          c.replyStep !== null,
      )
      .map((c) => c.replyStep as number);
    const granted = obs.screens.some(
      (s) =>
        s.packageName === e.provider &&
        s.answer === 'approve' &&
        s.delivered &&
        asked.some((step) => step <= s.step) &&
        s.answerStep !== null &&
        s.answerStep < e.step,
    );
    if (!granted) return `uid ${e.uid} ran ${e.tool} without the user granting ${needed.join(', ')}`;
  },
});

export const EFFECT_CHECKERS: readonly Checker[] = [
  singleEffect,
  effectAttribution,
  effectOnOwnData,
  noCrossUidResults,
  approvalBinding,
  confirmationScreenShows,
  deadlineBeforeEffect,
  cancelledHasNoEffect,
  authorizedEffect,
];
