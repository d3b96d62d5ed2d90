/**
 * Oracles over the wire conversation (every ContentProvider.call and its reply): replays return the
 * same terminal result, an id is bound to its args, every reply of a provider under test is
 * well-formed with the right retryability, sessions and operations stay with the UID that owns
 * them and a session ends when its UID is re-signed, a finished operation cannot be cancelled, a
 * dual-stack provider serves v1 and its v1 path stays read-only, and no two pending confirmations
 * share a PendingIntent.
 */
import {
  readErrorBundle,
  readResponseBundle,
  sha256Hex,
  V2_METHODS,
  type V2MethodName,
} from '../../protocol/index.ts';
import type { TraceEvent } from '../../sim/trace.ts';
import {
  type CheckContext,
  type Checker,
  groupBy,
  groupByKeys,
  type Violation,
  violation,
} from '../checker.ts';
import {
  byAnswer,
  type CallView,
  declaredVersions,
  effectEvents,
  issuerOf,
  type Observation,
  sessionHonoured,
} from '../observation.ts';

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

function executes(obs: Observation): CallView[] {
  return obs.calls.filter((c) => c.method === 'execute_tool' && c.v2 && c.requestId !== null);
}

/**
 * Whether the spec requires a provider to answer a repeated request_id of this call with the same
 * result: only a tool whose effect is not read is deduplicated (CETP-6-01); a read re-sent under the
 * same request_id is a new read (CETP-4.1-13 asks consumers for a new id, but a provider may answer
 * a reused one afresh), and its answer may legitimately change between calls.
 */
function deduplicated(ctx: CheckContext, c: CallView): boolean {
  return effectOf(ctx, c.provider, c.toolName ?? '') !== 'read';
}

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

export const sameTerminalResult: Checker = {
  id: 'same-terminal-result',
  ruleIds: ['CETP-6-05', 'CETP-6-07'],
  description:
    'Every terminal answer to the same (UID, provider, request_id, tool, args) of a non-read tool (the deduplicated ones, CETP-6-01) is the same result (compared by digest).',
  check(obs, ctx) {
    const out = [];
    const byRequest = groupByKeys(
      executes(obs).filter((c) => ctx.providersUnderTest.includes(c.provider) && deduplicated(ctx, c)),
      (c) => [c.requestKey, c.toolName, c.args],
    );
    for (const calls of byRequest) {
      if (calls.length < 2) continue; // one answer cannot disagree with itself
      // In the order the answers came, so "answered X and later Y" says which came first.
      const terminal = [...calls]
        .sort(byAnswer)
        .map((c) => ({ c, t: terminalOf(c, cancelsConfirmation(obs, c)) }))
        .filter((x) => x.t !== null);
      const first = terminal[0];
      const other = terminal.find((x) => x.t !== first?.t);
      if (first && other) {
        out.push(
          violation(this, `request ${first.c.requestId} answered "${first.t}" and later "${other.t}"`, {
            calls: [first.c.id, other.c.id],
          }),
        );
      }
    }
    return out;
  },
};

export const argsBinding: Checker = {
  id: 'args-binding',
  ruleIds: ['CETP-6-03', 'CETP-6-04', 'CETP-4.3-14'],
  description:
    'Once a request_id is bound to a write (tool and args), no call with other tool or args gets success or an operation.',
  check(obs, ctx) {
    const out = [];
    const byRequest = groupBy(
      executes(obs).filter((c) => ctx.providersUnderTest.includes(c.provider)),
      (c) => c.requestKey,
    );
    for (const calls of byRequest.values()) {
      if (calls.length < 2) continue; // one call cannot be bound to other args
      let bound: CallView | null = null;
      // In the order the answers came: a request_id is bound when its first write is answered.
      for (const c of [...calls].sort(byAnswer)) {
        const ok =
          c.reply.kind === 'bundle' && (c.reply.status === 'success' || c.reply.status === 'accepted');
        if (!ok) continue;
        const write = (ctx.toolEffects.get(c.toolKey) ?? 'read') !== 'read';
        // Two writes under one request_id each reserve it, so any second one is a breach, raced or
        // not. A read is not recorded: one checked before the write was bound may still be answered
        // after it, so only a read sent once the binding had been answered is held to it.
        const heldToBinding = bound !== null && (write || c.step > (bound.replyStep ?? Infinity));
        if (bound && heldToBinding && (c.toolName !== bound.toolName || c.args !== bound.args)) {
          out.push(
            violation(
              this,
              `request ${c.requestId}, bound to ${bound.toolName}, was answered ${c.reply.kind === 'bundle' ? c.reply.status : ''} for other tool/args`,
              {
                calls: [bound.id, c.id],
              },
            ),
          );
          break;
        }
        if (write && !bound) bound = c;
      }
    }
    return out;
  },
};

const V1_SHAPE_METHODS = new Set(['list_tools', 'execute_tool']);

export const wireWellFormed: Checker = {
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
  check(obs, ctx) {
    const out = [];
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      if (!c.v2 && c.method !== 'negotiate') continue;
      if (!(c.method in V2_METHODS) && !V1_SHAPE_METHODS.has(c.method)) {
        const e = readErrorBundle(c.reply.bundle, { method: 'list_tools' });
        if (!e.ok)
          out.push(
            violation(this, `reply to unknown method ${c.method}: ${e.issues[0]?.message}`, {
              calls: [c.id],
            }),
          );
        continue;
      }
      const method = c.method as V2MethodName;
      // Set field by field: two conditional spreads would take V8's slow path (Node 20) per reply.
      const options: { expectedRequestId?: string; parsedData?: { readonly value: unknown } } = {};
      if (c.requestId !== null && method !== 'negotiate') options.expectedRequestId = c.requestId;
      // The observation parsed `data` already (undefined: absent or not JSON — the reader says which).
      if (c.reply.data !== undefined) options.parsedData = { value: c.reply.data };
      const read = readResponseBundle(c.reply.bundle, method, options);
      if (!read.ok) {
        out.push(violation(this, `malformed ${method} reply: ${read.issues[0]?.message}`, { calls: [c.id] }));
      }
    }
    return out;
  },
};

export const sessionBinding: Checker = {
  id: 'session-binding',
  ruleIds: ['CETP-2.2-09', 'CETP-2.2-14'],
  description: 'A session token issued to one UID never works for another.',
  check(obs, ctx) {
    const out = [];
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || !c.sessionToken || c.method === 'negotiate')
        continue;
      const owner = issuerOf(obs, c)?.callerUid;
      if (owner === undefined || owner === c.callerUid) continue;
      if (c.reply.kind === 'bundle' && c.reply.status !== 'error') {
        out.push(
          violation(this, `uid ${c.callerUid} used uid ${owner}'s session token and got ${c.reply.status}`, {
            calls: [c.id],
          }),
        );
      }
    }
    return out;
  },
};

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

export const resignEndsSession: Checker = {
  id: 'resign-ends-session',
  ruleIds: ['CETP-7.1-06', 'CETP-2.2-14'],
  description:
    "A session negotiated before a package of the caller's UID was re-signed is refused after it (NEGOTIATION_REQUIRED): the identity it was bound to changed.",
  check(obs, ctx) {
    const out: Violation[] = [];
    const resigns = signingChanges(obs);
    if (resigns.length === 0) return out;
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || !c.sessionToken || !sessionHonoured(c)) continue;
      const issued = issuerOf(obs, c);
      if (!issued || issued.callerUid !== c.callerUid || issued.replyStep === null) continue;
      // After the negotiate's answer arrived (so after the session was made), before this call.
      const from = issued.replyStep;
      const resign = resigns.find((e) => e.data.uid === c.callerUid && e.step > from && e.step <= c.step);
      if (resign) {
        const answer = c.reply.kind === 'bundle' ? (c.reply.errorCode ?? c.reply.status) : '';
        out.push(
          violation(
            this,
            `uid ${c.callerUid}'s session from before ${String(resign.data.package)} was re-signed was honoured after it (${answer})`,
            { calls: [issued.id, c.id], events: [resign.seq] },
          ),
        );
      }
    }
    return out;
  },
};

export const operationRequestId: Checker = {
  id: 'operation-request-id',
  ruleIds: ['CETP-4.1-11'],
  description:
    'get_operation and cancel_operation are served only under the request_id of the execution that created the operation.',
  check(obs, ctx) {
    const out = [];
    const createdBy = new Map<string, string>(); // provider|operation_id → request_id
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      if (c.method === 'execute_tool' && c.reply.status === 'accepted' && c.requestId !== null) {
        const id = (c.reply.data as { operation_id?: unknown } | undefined)?.operation_id;
        if (typeof id === 'string' && !createdBy.has(`${c.provider}|${id}`))
          createdBy.set(`${c.provider}|${id}`, c.requestId);
        continue;
      }
      if (c.method !== 'get_operation' && c.method !== 'cancel_operation') continue;
      const creator = createdBy.get(c.operationKey);
      if (creator !== undefined && c.requestId !== creator && c.reply.status === 'success') {
        out.push(
          violation(
            this,
            `${c.method} of ${c.operationId} was served under request_id ${c.requestId}, not ${creator}`,
            {
              calls: [c.id],
            },
          ),
        );
      }
    }
    return out;
  },
};

export const operationIsolation: Checker = {
  id: 'operation-isolation',
  ruleIds: ['CETP-4.4-12', 'CETP-4.4-13'],
  description: 'Only the UID that created an operation can read or cancel it.',
  check(obs, ctx) {
    const out = [];
    const creator = new Map<string, number>();
    for (const c of obs.calls) {
      if (c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted') {
        const id = (c.reply.data as { operation_id?: string } | undefined)?.operation_id;
        if (id) creator.set(`${c.provider}|${id}`, c.callerUid);
      }
    }
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider)) continue;
      if (c.method !== 'get_operation' && c.method !== 'cancel_operation') continue;
      const owner = creator.get(c.operationKey);
      if (owner === undefined || owner === c.callerUid) continue;
      if (c.reply.kind === 'bundle' && c.reply.status === 'success') {
        out.push(
          violation(this, `uid ${c.callerUid} could ${c.method} uid ${owner}'s operation ${c.operationId}`, {
            calls: [c.id],
          }),
        );
      }
    }
    return out;
  },
};

const ENDED_WITH_OUTCOME: ReadonlySet<unknown> = new Set(['succeeded', 'failed']);

export const cancelAfterEnd: Checker = {
  id: 'cancel-after-end',
  ruleIds: ['CETP-5-16', 'CETP-4.4-21'],
  description:
    'cancel_operation of an operation already seen succeeded or failed is CONFLICT, never a cancellation accepted.',
  check(obs, ctx) {
    const out: Violation[] = [];
    // NOTES 10a reading cancelFinished=accept: success only says "received" (4.4-10, 4.4-19).
    if (ctx.readings?.provider?.cancelFinished === 'accept') return out;
    // When each operation was seen ended with an outcome: get_operation reporting it (by operation),
    // or a replay's success (by request; only a deduplicated, non-read request's replay speaks for
    // the operation it created — a read re-sent under the same id is a new read, CETP-6-01).
    const endedOperations = new Map<string, CallView>();
    const endedRequests = new Map<string, CallView>();
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || !c.v2 || c.reply.kind !== 'bundle') continue;
      const state = (c.reply.data as { state?: unknown } | undefined)?.state;
      if (c.reply.status === 'success' && c.method === 'get_operation' && ENDED_WITH_OUTCOME.has(state)) {
        if (!endedOperations.has(c.operationKey)) endedOperations.set(c.operationKey, c);
        continue;
      }
      if (c.reply.status === 'success' && c.method === 'execute_tool' && deduplicated(ctx, c)) {
        if (!endedRequests.has(c.requestKey)) endedRequests.set(c.requestKey, c);
        continue;
      }
      if (c.method !== 'cancel_operation') continue;
      const seen = endedOperations.get(c.operationKey) ?? endedRequests.get(c.requestKey);
      // A call sent in the step its predecessor's reply arrived was sent by that task, after it.
      if (!seen || seen.replyStep === null || c.step < seen.replyStep) continue;
      if (c.reply.status === 'success') {
        out.push(
          violation(
            this,
            `cancel_operation of ${c.operationId} was accepted after the operation was seen ended (${seen.method})`,
            { calls: [seen.id, c.id] },
          ),
        );
      }
    }
    return out;
  },
};

export const dualStackV1: Checker = {
  id: 'dual-stack-v1',
  ruleIds: ['CETP-4-09'],
  description:
    'A provider whose manifest declares v1 and v2 answers a call without protocol_version as v1, never UNSUPPORTED_VERSION.',
  check(obs, ctx) {
    const out = [];
    const dualStack = new Map<string, boolean>();
    for (const c of obs.calls) {
      if (!c.v1 || !ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      let dual = dualStack.get(c.provider);
      if (dual === undefined) {
        const versions = declaredVersions(obs, c.provider);
        dual = versions.includes(1) && versions.some((v) => v >= 2);
        dualStack.set(c.provider, dual);
      }
      if (dual && c.reply.errorCode === 'UNSUPPORTED_VERSION') {
        out.push(
          violation(this, `a v1 ${c.method} to dual-stack ${c.provider} was refused as UNSUPPORTED_VERSION`, {
            calls: [c.id],
          }),
        );
      }
    }
    return out;
  },
};

export const v1ReadOnly: Checker = {
  id: 'v1-read-only',
  ruleIds: ['CETP-2.1-06', 'CETP-8-10', 'CETP-8-04'],
  description: 'A dual-stack provider lists and runs only read tools on its v1 path.',
  check(obs, ctx) {
    const out = [];
    for (const c of obs.calls) {
      if (!c.v1 || !ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      if (c.method === 'list_tools') {
        const names = ((c.reply.data as { tools?: { name: string }[] } | undefined)?.tools ?? []).map(
          (t) => t.name,
        );
        const writes = names.filter((n) => effectOf(ctx, c.provider, n) !== 'read');
        if (writes.length > 0)
          out.push(violation(this, `v1 list_tools exposed ${writes.join(', ')}`, { calls: [c.id] }));
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
      out.push(
        violation(this, `a v1 execute_tool changed business state (${e.tool})`, { events: effectEvents(e) }),
      );
    return out;
  },
};

export const distinctResolutions: Checker = {
  id: 'distinct-resolutions',
  ruleIds: ['CETP-7.2-04', 'CETP-4.3-02'],
  description:
    'Two pending confirmations of different requests never share a resolution PendingIntent token.',
  check(obs, ctx) {
    const out = [];
    const owner = new Map<number, CallView>();
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      const pi = c.reply.bundle.getPendingIntent('resolution');
      if (!pi) continue;
      const id = pi.record.id;
      const first = owner.get(id);
      if (first && (first.requestId !== c.requestId || first.callerUid !== c.callerUid)) {
        out.push(
          violation(
            this,
            `requests ${first.requestId} and ${c.requestId} got the same resolution PendingIntent`,
            { calls: [first.id, c.id] },
          ),
        );
      }
      if (!first) owner.set(id, c);
    }
    return out;
  },
};

export const WIRE_CHECKERS: readonly Checker[] = [
  sameTerminalResult,
  argsBinding,
  wireWellFormed,
  sessionBinding,
  resignEndsSession,
  operationIsolation,
  operationRequestId,
  cancelAfterEnd,
  dualStackV1,
  v1ReadOnly,
  distinctResolutions,
];

/** The declared effect of a tool of a provider under test ('read' when unknown). */
function effectOf(ctx: CheckContext, provider: string, tool: string): string {
  return ctx.toolEffects.get(`${provider}|${tool}`) ?? 'read';
}
