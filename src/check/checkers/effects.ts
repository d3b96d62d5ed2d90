/**
 * Oracles over business effects — the provider's commit notes — against the calls that asked for
 * them: at most one effect per request, attributed to the UID that asked, never before the user
 * approved exactly that request with exactly those args, never on an expired deadline, never for an
 * operation reported cancelled.
 */
import { type Checker, groupBy, violation } from '../checker.ts';
import type { CallView, EffectNote, Observation } from '../observation.ts';

const effectKey = (e: { provider: string; uid: number; requestId: string }) =>
  `${e.provider}|${e.uid}|${e.requestId}`;

export const singleEffect: Checker = {
  id: 'single-effect',
  ruleIds: ['CETP-6-01', 'CETP-6-06', 'CETP-4.1-09', 'CETP-4.4-17', 'CETP-10-06'],
  description: 'At most one business effect per (calling UID, provider, request_id).',
  check(obs) {
    return [...groupBy(obs.effects, effectKey).values()]
      .filter((list) => list.length > 1)
      .map((list) =>
        violation(
          this,
          `request ${list[0]?.requestId} of uid ${list[0]?.uid} had ${list.length} business effects on ${list[0]?.provider}`,
          { events: list.map((e) => e.seq) },
        ),
      );
  },
};

function executeCalls(obs: Observation, providerUid?: number): CallView[] {
  return obs.calls.filter(
    (c) =>
      c.method === 'execute_tool' && c.v2 && (providerUid === undefined || c.providerUid === providerUid),
  );
}

function providerUid(obs: Observation, provider: string): number | undefined {
  return obs.world.pm.getPackageUid(provider) ?? undefined;
}

export const effectAttribution: Checker = {
  id: 'effect-attribution',
  ruleIds: ['CETP-7.1-01', 'CETP-6-02', 'CETP-10-08'],
  description: 'Every effect is attributed to a UID that actually sent that request_id.',
  check(obs) {
    const out = [];
    for (const e of obs.effects) {
      const asked = executeCalls(obs).some(
        (c) =>
          c.provider === e.provider &&
          c.callerUid === e.uid &&
          c.requestId === e.requestId &&
          c.step <= e.step,
      );
      if (!asked) {
        out.push(
          violation(
            this,
            `effect of request ${e.requestId} attributed to uid ${e.uid}, which never sent it`,
            {
              events: [e.seq],
            },
          ),
        );
      }
    }
    return out;
  },
};

export const noCrossUidResults: Checker = {
  id: 'no-cross-uid-results',
  ruleIds: ['CETP-6-02', 'CETP-6-05'],
  description: "A caller never receives success for another UID's effect under the same request_id.",
  check(obs, ctx) {
    const out = [];
    for (const c of executeCalls(obs)) {
      if (c.reply.kind !== 'bundle' || c.reply.status !== 'success') continue;
      if ((ctx.toolEffects.get(c.toolKey) ?? 'read') === 'read') continue;
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
      if (!mine && others.length > 0) {
        out.push(
          violation(
            this,
            `uid ${c.callerUid} got success for request ${c.requestId}, whose only effect is uid ${others[0]?.uid}'s`,
            {
              calls: [c.id],
              events: others.map((e) => e.seq),
            },
          ),
        );
      }
    }
    return out;
  },
};

export const approvalBinding: Checker = {
  id: 'approval-binding',
  ruleIds: [
    'CETP-4.3-08',
    'CETP-4.3-04',
    'CETP-4.3-05',
    'CETP-4.3-10',
    'CETP-4.3-13',
    'CETP-4.3-14',
    'CETP-4.3-15',
  ],
  description:
    'An effect that needed confirmation follows an approval of that very request, caller, tool and args, used once.',
  check(obs) {
    const out = [];
    const usedBy = new Map<string, EffectNote>();
    for (const e of obs.effects) {
      const requested = obs.confirmations.some(
        (n) =>
          n.provider === e.provider &&
          n.event === 'requested' &&
          n.kind === 'confirm' &&
          n.uid === e.uid &&
          n.requestId === e.requestId &&
          n.seq < e.seq,
      );
      if (e.declaredConfirmation !== 'always' && !requested) continue;
      if (e.confirmationId === null) {
        out.push(
          violation(this, `effect of ${e.tool} request ${e.requestId} without any confirmation`, {
            events: [e.seq],
          }),
        );
        continue;
      }
      const approval = obs.confirmations.find(
        (n) =>
          n.provider === e.provider && n.id === e.confirmationId && n.event === 'approved' && n.seq < e.seq,
      );
      if (!approval) {
        out.push(
          violation(
            this,
            `effect of request ${e.requestId} used confirmation ${e.confirmationId}, never approved`,
            { events: [e.seq] },
          ),
        );
        continue;
      }
      const mismatch: string[] = [];
      if (approval.uid !== e.uid) mismatch.push('caller');
      if (approval.requestId !== e.requestId) mismatch.push('request_id');
      if (approval.tool !== e.tool) mismatch.push('tool');
      if (approval.argsDigest !== e.argsDigest) mismatch.push('args');
      if (mismatch.length > 0) {
        out.push(
          violation(
            this,
            `effect of request ${e.requestId} used an approval of another ${mismatch.join(', ')}`,
            {
              events: [approval.seq, e.seq],
            },
          ),
        );
      }
      const earlier = usedBy.get(`${e.provider}|${e.confirmationId}`);
      if (earlier) {
        out.push(
          violation(this, `approval ${e.confirmationId} used by two effects`, {
            events: [earlier.seq, e.seq],
          }),
        );
      }
      usedBy.set(`${e.provider}|${e.confirmationId}`, e);
    }
    return out;
  },
};

export const deadlineBeforeEffect: Checker = {
  id: 'deadline-before-effect',
  ruleIds: ['CETP-4.1-14', 'CETP-10-03'],
  description: 'No effect is started by a call whose deadline had already passed.',
  check(obs) {
    const out = [];
    for (const e of obs.effects) {
      const calls = executeCalls(obs, providerUid(obs, e.provider)).filter(
        (c) => c.callerUid === e.uid && c.requestId === e.requestId && c.step <= e.step,
      );
      if (calls.length > 0 && calls.every((c) => c.deadlineAtMs !== null && c.deadlineAtMs <= c.t)) {
        out.push(
          violation(
            this,
            `request ${e.requestId} had an effect though every call for it arrived after its deadline`,
            {
              events: [e.seq],
              calls: calls.map((c) => c.id),
            },
          ),
        );
      }
    }
    return out;
  },
};

export const cancelledHasNoEffect: Checker = {
  id: 'cancelled-has-no-effect',
  ruleIds: ['CETP-4.4-19', 'CETP-4.4-21', 'CETP-5-20'],
  description: 'An operation reported cancelled has no effect; a committed one is never reported cancelled.',
  check(obs) {
    const out = [];
    for (const c of obs.calls) {
      if (c.reply.kind !== 'bundle' || !c.requestId) continue;
      const data = c.reply.data as { state?: string } | undefined;
      const cancelled =
        (c.method === 'get_operation' && c.reply.status === 'success' && data?.state === 'cancelled') ||
        (c.method === 'execute_tool' && c.reply.errorCode === 'CANCELLED');
      if (!cancelled) continue;
      const effect = obs.effects.find(
        (e) => e.provider === c.provider && e.uid === c.callerUid && e.requestId === c.requestId,
      );
      if (effect) {
        out.push(
          violation(this, `request ${c.requestId} was reported cancelled but its effect was committed`, {
            calls: [c.id],
            events: [effect.seq],
          }),
        );
      }
    }
    return out;
  },
};

export const authorizedEffect: Checker = {
  id: 'authorized-effect',
  ruleIds: ['CETP-3.4-14', 'CETP-3.4-15', 'CETP-10-01', 'CETP-10-11', 'CETP-7.2-03'],
  description:
    "Every effect of a tool whose scopes need the user's grant follows an approved grant of them to that UID.",
  check(obs, ctx) {
    const out = [];
    for (const e of obs.effects) {
      const needed = (ctx.toolScopes.get(`${e.provider}|${e.tool}`) ?? []).filter((s) =>
        (ctx.userGrantedScopes.get(e.provider) ?? []).includes(s),
      );
      const missing = needed.filter(
        (scope) =>
          !obs.confirmations.some(
            (n) =>
              n.provider === e.provider &&
              n.kind === 'grant' &&
              n.event === 'approved' &&
              n.uid === e.uid &&
              n.scopes.includes(scope) &&
              n.seq < e.seq,
          ),
      );
      if (missing.length > 0) {
        out.push(
          violation(this, `uid ${e.uid} ran ${e.tool} without the user granting ${missing.join(', ')}`, {
            events: [e.seq],
          }),
        );
      }
    }
    return out;
  },
};

export const EFFECT_CHECKERS: readonly Checker[] = [
  singleEffect,
  effectAttribution,
  noCrossUidResults,
  approvalBinding,
  deadlineBeforeEffect,
  cancelledHasNoEffect,
  authorizedEffect,
];
