import type { TraceEvent } from '../../sim/core/trace.ts';
import type { CheckContext } from '../checker.ts';
import { callsUnderTest, consistency, judgeEach, judgeRun, PROVIDER_CALLS } from '../checker-kit.ts';
import {
  type CallView,
  declaredVersions,
  effectEvents,
  issuerOf,
  memoOn,
  type Observation,
  sessionHonoured,
} from '../observation.ts';

export const sessionBinding = judgeEach(PROVIDER_CALLS, {
  id: 'session-binding',
  ruleIds: ['CETP-2.2-09', 'CETP-2.2-14'],
  description: 'A session token issued to one UID never works for another.',
  fields: [
    consistency(
      'the UID the session was issued to',
      'req:*:session_token',
      'json:negotiate_response/session_token',
    ),
  ],
  judge(c, obs) {
    if (!c.sessionToken || c.method === 'negotiate') return;
    const owner = issuerOf(obs, c)?.callerUid;
    if (owner === undefined || owner === c.callerUid) return;
    if (c.reply.kind === 'bundle' && c.reply.status !== 'error')
      return `uid ${c.callerUid} used uid ${owner}'s session token and got ${c.reply.status}`;
  },
});

/** Trace events where a package's signing changed (re-signed, or updated under another key). */
function signingChanges(obs: Observation): TraceEvent[] {
  // The signing record of each package's latest install/update; serialised only to compare.
  const current = new Map<string, unknown>();
  const changes: TraceEvent[] = [];
  for (const e of obs.events) {
    if (e.kind !== 'pm.install' && e.kind !== 'pm.update' && e.kind !== 'pm.resign') continue;
    const pkg = String(e.data.package);
    const signing = e.data.signing ?? null;
    const before = current.get(pkg);
    if (e.kind !== 'pm.install' && before !== undefined && JSON.stringify(before) !== JSON.stringify(signing))
      changes.push(e);
    current.set(pkg, signing);
  }
  return changes;
}

export const resignEndsSession = judgeRun({
  id: 'resign-ends-session',
  ruleIds: ['CETP-7.1-06', 'CETP-2.2-14'],
  description:
    "A session negotiated before a package of the caller's UID was re-signed is refused after it (NEGOTIATION_REQUIRED): the identity it was bound to changed.",
  fields: [consistency("the caller's signing identity when the session was issued", 'req:*:session_token')],
  *judge(obs, ctx) {
    const resigns = signingChanges(obs);
    if (resigns.length === 0) return;
    for (const c of callsUnderTest(obs, ctx)) {
      if (!c.sessionToken || !sessionHonoured(c)) continue;
      const issued = issuerOf(obs, c);
      if (!issued || issued.callerUid !== c.callerUid || issued.replyStep === null) continue;
      // After the negotiate's answer arrived (so after the session was made; a re-sign in that very
      // step came after it: faults apply after the step's task ran), before this call.
      const from = issued.replyStep;
      const resign = resigns.find((e) => e.data.uid === c.callerUid && e.step >= from && e.step <= c.step);
      if (resign) {
        const answer = c.reply.kind === 'bundle' ? (c.reply.errorCode ?? c.reply.status) : '';
        yield {
          message: `uid ${c.callerUid}'s session from before ${String(resign.data.package)} was re-signed was honoured after it (${answer})`,
          calls: [issued.id, c.id],
          events: [resign.seq],
        };
      }
    }
  },
});

export const operationRequestId = judgeRun({
  id: 'operation-request-id',
  ruleIds: ['CETP-4.1-11'],
  description:
    'get_operation and cancel_operation are served only under the request_id of the execution that created the operation.',
  fields: [
    consistency(
      'the request_id of the execution that created the operation',
      'req:get_operation:request_id',
      'req:cancel_operation:request_id',
    ),
  ],
  *judge(obs, ctx) {
    const createdBy = new Map<string, string>(); // provider|operation_id → request_id
    for (const c of callsUnderTest(obs, ctx)) {
      if (c.reply.kind !== 'bundle') continue;
      if (c.method === 'execute_tool' && c.reply.status === 'accepted' && c.requestId !== null) {
        const id = (c.reply.data as { operation_id?: unknown } | undefined)?.operation_id;
        if (typeof id === 'string' && !createdBy.has(`${c.provider}|${id}`))
          createdBy.set(`${c.provider}|${id}`, c.requestId);
        continue;
      }
      if (c.method !== 'get_operation' && c.method !== 'cancel_operation') continue;
      const creator = createdBy.get(c.operationKey);
      if (creator !== undefined && c.requestId !== creator && c.reply.status === 'success') {
        yield {
          message: `${c.method} of ${c.operationId} was served under request_id ${c.requestId}, not ${creator}`,
          calls: [c.id],
        };
      }
    }
  },
});

export const operationIsolation = judgeEach(PROVIDER_CALLS, {
  id: 'operation-isolation',
  ruleIds: ['CETP-4.4-12', 'CETP-4.4-13'],
  description: 'Only the UID that created an operation can read or cancel it.',
  fields: [
    consistency(
      'the UID that created the operation',
      'req:get_operation:operation_id',
      'req:cancel_operation:operation_id',
      'json:accepted/operation_id',
    ),
  ],
  judge(c, obs) {
    if (c.method !== 'get_operation' && c.method !== 'cancel_operation') return;
    const owner = creators(obs).get(c.operationKey);
    if (owner === undefined || owner === c.callerUid) return;
    if (c.reply.kind === 'bundle' && c.reply.status === 'success')
      return `uid ${c.callerUid} could ${c.method} uid ${owner}'s operation ${c.operationId}`;
  },
});

/** The UID that created each operation, by `provider|operation_id` (the last accept of that id wins). */
function creators(obs: Observation): ReadonlyMap<string, number> {
  return memoOn(obs, CREATORS, () => {
    const creator = new Map<string, number>();
    for (const c of obs.calls) {
      if (c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted') {
        const id = (c.reply.data as { operation_id?: string } | undefined)?.operation_id;
        if (id) creator.set(`${c.provider}|${id}`, c.callerUid);
      }
    }
    return creator;
  });
}
const CREATORS: unique symbol = Symbol('cetp.check.operationCreators');

export const dualStackV1 = judgeEach(PROVIDER_CALLS, {
  id: 'dual-stack-v1',
  ruleIds: ['CETP-4-09'],
  description:
    'A provider whose manifest declares v1 and v2 answers a call without protocol_version as v1, never UNSUPPORTED_VERSION.',
  judge(c, obs) {
    if (!c.v1 || c.reply.kind !== 'bundle' || c.reply.errorCode !== 'UNSUPPORTED_VERSION') return;
    const versions = declaredVersions(obs, c.provider);
    if (versions.includes(1) && versions.some((v) => v >= 2))
      return `a v1 ${c.method} to dual-stack ${c.provider} was refused as UNSUPPORTED_VERSION`;
  },
});

export const v1ReadOnly = judgeRun({
  id: 'v1-read-only',
  ruleIds: ['CETP-2.1-06', 'CETP-8-10', 'CETP-8-04'],
  description: 'A dual-stack provider lists and runs only read tools on its v1 path.',
  *judge(obs, ctx) {
    for (const c of callsUnderTest(obs, ctx)) {
      if (!c.v1 || c.reply.kind !== 'bundle') continue;
      if (c.method === 'list_tools') {
        const names = ((c.reply.data as { tools?: { name: string }[] } | undefined)?.tools ?? []).map(
          (t) => t.name,
        );
        const writes = names.filter((n) => effectOf(ctx, c.provider, n) !== 'read');
        if (writes.length > 0) yield { message: `v1 list_tools exposed ${writes.join(', ')}`, calls: [c.id] };
      }
    }
    const v1Effects = obs.effects.filter((e) =>
      obs.calls.some(
        (c) =>
          c.v1 &&
          c.method === 'execute_tool' &&
          c.provider === e.provider &&
          c.step <= e.step &&
          c.replyStep !== null &&
          c.replyStep >= e.step,
      ),
    );
    for (const e of v1Effects)
      yield { message: `a v1 execute_tool changed business state (${e.tool})`, events: effectEvents(e) };
  },
});

export const distinctResolutions = judgeRun({
  id: 'distinct-resolutions',
  ruleIds: ['CETP-7.2-04', 'CETP-4.3-02'],
  description:
    'Two pending confirmations of different requests never share a resolution PendingIntent token.',
  fields: [
    consistency(
      "the system's PendingIntent tokens of other pending confirmations",
      'res:resolution:resolution',
    ),
  ],
  *judge(obs, ctx) {
    const owner = new Map<number, CallView>();
    for (const c of callsUnderTest(obs, ctx)) {
      if (c.reply.kind !== 'bundle') continue;
      const pi = c.reply.bundle.getPendingIntent('resolution');
      if (!pi) continue;
      const id = pi.record.id;
      const first = owner.get(id);
      if (first && (first.requestId !== c.requestId || first.callerUid !== c.callerUid)) {
        yield {
          message: `requests ${first.requestId} and ${c.requestId} got the same resolution PendingIntent`,
          calls: [first.id, c.id],
        };
      }
      if (!first) owner.set(id, c);
    }
  },
});

/** The declared effect of a tool of a provider under test ('read' when unknown). */
function effectOf(ctx: CheckContext, provider: string, tool: string): string {
  return ctx.toolEffects.get(`${provider}|${tool}`) ?? 'read';
}

/**
 * Whether the spec requires a provider to answer a repeated request_id of this call with the same
 * result: only a tool whose effect is not read is deduplicated (CETP-6-01); a read re-sent under the
 * same request_id is a new read (CETP-4.1-13 asks consumers for a new id, but a provider may answer
 * a reused one afresh), and its answer may legitimately change between calls.
 */
export function deduplicated(ctx: CheckContext, c: CallView): boolean {
  return effectOf(ctx, c.provider, c.toolName ?? '') !== 'read';
}
