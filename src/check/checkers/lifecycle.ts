/**
 * Oracles over what a caller held before a lifecycle event of the provider — a restart (a kill, a
 * reboot) or a wipe (a reinstall, a re-sign under an unrelated key: an uninstall and an install, the
 * provider's data gone) — and used after it, as an app with a journal does (issue 22 item 7):
 * - its own session: honoured, or refused as NEGOTIATION_REQUIRED — never as a malformed or
 *   forbidden request (2.2-12's test, 2.2-14, 5-07);
 * - its operation, after a restart: still known, since operation state is persisted (4.4-16, 10-13);
 * - its operation or resume token, after a wipe: unknown to the new incarnation, which never
 *   accepted it — no state reported for it, no confirmation honoured by it (4.4-04, 4.4-21, 4.3-08,
 *   10-12).
 * What a caller held after its *own* package was re-signed or reinstalled (a new UID) belongs to
 * another UID, which the identity oracles judge (session-binding, operation-isolation,
 * no-cross-uid-results, approval-binding). A provider incarnation (incarnationAt) is also how
 * single-effect and same-terminal-result count: a request sent again after a wipe is a new request.
 */
import type { Checker } from '../checker.ts';
import { callsUnderTest, consistency, judgeEach, judgeRun, PROVIDER_CALLS } from '../checker-kit.ts';
import { type CallView, callsWithRequestKey, issuerOf, memoOn, type Observation } from '../observation.ts';

/** Per package, its uninstalls (a reinstall, a re-sign under another key): their steps and trace events. */
function wipes(obs: Observation): ReadonlyMap<string, readonly { step: number; seq: number }[]> {
  return memoOn(obs, WIPES, () => {
    const out = new Map<string, { step: number; seq: number }[]>();
    for (const e of obs.events) {
      if (e.kind !== 'pm.uninstall') continue;
      const pkg = String(e.data.package);
      out.set(pkg, [...(out.get(pkg) ?? []), { step: e.step, seq: e.seq }]);
    }
    return out;
  });
}
const WIPES: unique symbol = Symbol('cetp.check.lifecycle.wipes');

/**
 * Which incarnation of `pkg` made something that happened at `step` (its trace event `seq`, when it
 * has one): 0 until its first uninstall, then one more per uninstall (the package manager's trace).
 * Its data — request records, operations, tokens — belongs to one incarnation: a reinstall wipes it.
 *
 * Ordered by trace event when there is one: a commit and the uninstall that follows it can share a
 * step (a re-sign fault applies at the end of the step whose task committed, issue 30). Without one,
 * a wipe at the same step counts as later: faults apply after the step's task ran, and no task
 * uninstalls a package.
 */
export function incarnationAt(
  obs: Observation,
  pkg: string,
  step: number,
  seq: number | null = null,
): number {
  let n = 0;
  for (const w of wipes(obs).get(pkg) ?? []) if (seq === null ? w.step < step : w.seq < seq) n++;
  return n;
}

/** Whether `pkg` was wiped after step `from` and at or before step `to`. */
function wipedBetween(obs: Observation, pkg: string, from: number, to: number): boolean {
  return incarnationAt(obs, pkg, to) > incarnationAt(obs, pkg, from);
}

/**
 * The first death of the process `pkg` (a call's `providerProcess ?? provider`) at or after step `from` (when the caller received what it held),
 * at or before step `to` (its trace event). A death at step `from` came after the answer: faults
 * apply after the step's task ran (issue 30, the same edge as incarnationAt).
 */
function restartBetween(obs: Observation, pkg: string, from: number, to: number): number | null {
  for (const e of obs.events)
    if (e.kind === 'process.kill' && e.data.actor === pkg && e.step >= from && e.step <= to) return e.seq;
  return null;
}

/** Answers that refuse a call as malformed or forbidden rather than ask for a new session. */
const REFUSALS: ReadonlySet<string> = new Set(['INVALID_REQUEST', 'PERMISSION_DENIED']);

function errorCode(c: CallView): string | null {
  return c.reply.kind === 'bundle' && c.reply.status === 'error' ? (c.reply.errorCode ?? null) : null;
}

/** Accepted operations: `provider|operation_id` → the accepting call (its UID, request_id, answer). */
function accepted(obs: Observation): ReadonlyMap<string, CallView> {
  return memoOn(obs, ACCEPTED, () => {
    const out = new Map<string, CallView>();
    for (const c of obs.calls) {
      if (c.method !== 'execute_tool' || c.reply.kind !== 'bundle' || c.reply.status !== 'accepted') continue;
      const id = (c.reply.data as { operation_id?: unknown } | undefined)?.operation_id;
      if (typeof id === 'string' && !out.has(`${c.provider}|${id}`)) out.set(`${c.provider}|${id}`, c);
    }
    return out;
  });
}
const ACCEPTED: unique symbol = Symbol('cetp.check.lifecycle.accepted');

/** Whether this UID sent `c`'s request_id before with another tool or other args (6-04's case). */
function reusedOtherwise(obs: Observation, c: CallView): boolean {
  return callsWithRequestKey(obs, c.requestKey).some(
    (p) =>
      p.step < c.step &&
      p.method === 'execute_tool' &&
      p.requestKey === c.requestKey &&
      (p.toolName !== c.toolName || p.args !== c.args),
  );
}

export const restartSessionOutcome = judgeEach(PROVIDER_CALLS, {
  id: 'restart-session-outcome',
  ruleIds: ['CETP-2.2-12', 'CETP-2.2-14', 'CETP-5-07'],
  description:
    "A caller's own unexpired session from before the provider's process died (a kill, a reboot, a reinstall) is, after it, either honoured or refused as NEGOTIATION_REQUIRED — never INVALID_REQUEST or PERMISSION_DENIED.",
  fields: [
    consistency(
      "the provider's restarts since the session was issued to this UID",
      'req:*:session_token',
      'res:error:error_code',
    ),
  ],
  judge(c, obs) {
    if (!c.v2 || c.method === 'negotiate') return;
    const code = errorCode(c);
    if (code === null || !REFUSALS.has(code)) return;
    const issued = issuerOf(obs, c);
    if (!issued || issued.callerUid !== c.callerUid || issued.replyStep === null) return;
    const expires = expiresAt(issued);
    if (Number.isFinite(expires) && c.t >= expires) return;
    const death = restartBetween(obs, c.providerProcess ?? c.provider, issued.replyStep, c.step);
    if (death === null || !wellFormedFollowUp(obs, c)) return;
    return {
      message: `uid ${c.callerUid}'s session from before ${c.provider} restarted was refused with ${code} on ${c.method}, not NEGOTIATION_REQUIRED`,
      calls: [issued.id, c.id],
      events: [death],
    };
  },
});

/** The expires_at a negotiate answered, as epoch ms (NaN when it named none). */
function expiresAt(negotiate: CallView): number {
  const data =
    negotiate.reply.kind === 'bundle' ? (negotiate.reply.data as { expires_at?: unknown }) : undefined;
  return typeof data?.expires_at === 'string' ? Date.parse(data.expires_at) : Number.NaN;
}

/**
 * Whether `c` is a call only its session could make wrong: a re-send of a request under its own
 * tool and args (no resume token), or a poll or cancel of this UID's own operation under its request
 * id with no wipe since it was accepted. (After a wipe an unknown operation may be INVALID_REQUEST
 * on an honoured session; a reused id with other args is INVALID_REQUEST, 6-04.)
 */
function wellFormedFollowUp(obs: Observation, c: CallView): boolean {
  if (c.method === 'execute_tool')
    return c.resumeToken === null && c.requestId !== null && !reusedOtherwise(obs, c);
  if (c.method !== 'get_operation' && c.method !== 'cancel_operation') return false;
  const op = accepted(obs).get(c.operationKey);
  return (
    op !== undefined &&
    op.callerUid === c.callerUid &&
    op.requestId === c.requestId &&
    !wipedBetween(obs, c.provider, op.step, c.step)
  );
}

export const restartKeepsOperation = judgeEach(PROVIDER_CALLS, {
  id: 'restart-keeps-operation',
  ruleIds: ['CETP-4.4-16', 'CETP-10-13', 'CETP-4.4-14'],
  description:
    'An operation accepted before the provider restarted (a kill, a reboot; no reinstall) is still known after it, within the window: its creator polling or cancelling it under its request_id, on a live session negotiated after the restart, is never told it does not exist (INVALID_REQUEST).',
  fields: [
    consistency(
      'the operations the same incarnation of the provider accepted before its restart',
      'req:get_operation:operation_id',
      'req:cancel_operation:operation_id',
      'json:accepted/operation_id',
    ),
  ],
  judge(c, obs) {
    if (c.method !== 'get_operation' && c.method !== 'cancel_operation') return;
    if (errorCode(c) !== 'INVALID_REQUEST' || !liveSession(obs, c)) return;
    const op = accepted(obs).get(c.operationKey);
    if (!op || op.callerUid !== c.callerUid || op.requestId !== c.requestId || op.replyStep === null) return;
    if (wipedBetween(obs, c.provider, op.step, c.step)) return;
    const window = windowMs(obs, op);
    if (window !== null && c.t >= (op.replyT ?? op.t) + window) return;
    const death = restartBetween(obs, c.providerProcess ?? c.provider, op.replyStep, c.step);
    if (death === null) return;
    return {
      message: `operation ${c.operationId} of uid ${c.callerUid}, accepted before ${c.provider} restarted, was unknown to ${c.method} after it`,
      calls: [op.id, c.id],
      events: [death],
    };
  },
});

/**
 * Whether `c` carried a session its provider must honour: issued to this UID after the provider's
 * last restart before `c`, not expired (an INVALID_REQUEST to it is then about the request itself).
 */
function liveSession(obs: Observation, c: CallView): boolean {
  const issued = issuerOf(obs, c);
  if (!issued || issued.callerUid !== c.callerUid || issued.replyStep === null) return false;
  if (c.caller !== issued.caller) return false;
  const expires = expiresAt(issued);
  if (!Number.isFinite(expires) || c.t >= expires) return false;
  return restartBetween(obs, c.providerProcess ?? c.provider, issued.step, c.step) === null;
}

/** The idempotency window (ms) of the session `c` was sent on, if this run negotiated it. */
function windowMs(obs: Observation, c: CallView): number | null {
  const issued = issuerOf(obs, c);
  const data = issued?.reply.kind === 'bundle' ? issued.reply.data : undefined;
  const s = (data as { limits?: { idempotency_window_seconds?: unknown } } | undefined)?.limits
    ?.idempotency_window_seconds;
  return typeof s === 'number' ? s * 1000 : null;
}

export const wipedStateUnknown = judgeRun({
  id: 'wiped-state-unknown',
  ruleIds: ['CETP-4.4-04', 'CETP-4.4-21', 'CETP-4.3-08', 'CETP-10-12'],
  description:
    "After the provider's data was wiped (a reinstall, a re-sign under an unrelated key), what its earlier incarnation issued is unknown to it: no state is reported for an operation accepted before (get_ or cancel_operation answered success), and no resume token issued before is honoured (success or accepted).",
  fields: [
    consistency(
      'the incarnation of the provider that issued it (the package manager’s uninstalls)',
      'req:get_operation:operation_id',
      'req:cancel_operation:operation_id',
      'req:execute_tool:resume_token',
    ),
  ],
  *judge(obs, ctx) {
    const tokens = new Map<string, CallView>();
    for (const c of callsUnderTest(obs, ctx)) {
      if (c.reply.kind !== 'bundle') continue;
      const ok = c.reply.status === 'success' || c.reply.status === 'accepted';
      if (c.method === 'get_operation' || c.method === 'cancel_operation') {
        const op = accepted(obs).get(c.operationKey);
        if (ok && op && wipedBetween(obs, c.provider, op.step, c.step))
          yield {
            message: `${c.method} of ${c.operationId}, accepted by ${c.provider} before its data was wiped, answered ${c.reply.status} by the new incarnation`,
            calls: [op.id, c.id],
          };
      }
      if (c.method !== 'execute_tool') continue;
      const issued = c.resumeToken === null ? undefined : tokens.get(`${c.provider}|${c.resumeToken}`);
      if (ok && issued && wipedBetween(obs, c.provider, issued.step, c.step))
        yield {
          message: `a resume token ${c.provider} issued before its data was wiped was honoured (${c.reply.status}) by the new incarnation`,
          calls: [issued.id, c.id],
        };
      // The latest issue of a token counts: an incarnation may issue a string an earlier one did.
      const token = c.reply.bundle.getString('resume_token');
      if (token !== null) tokens.set(`${c.provider}|${token}`, c);
    }
  },
});

export const LIFECYCLE_CHECKERS: readonly Checker[] = [
  restartSessionOutcome,
  restartKeepsOperation,
  wipedStateUnknown,
];
