/**
 * The app's own failures, judged from the wire: a request whose args fit the tool's published
 * input schema answered INTERNAL_ERROR (or an operation it started that ended `failed` with
 * INTERNAL_ERROR). The protocol lets a provider report an internal error (5-24), and the SDK does so
 * correctly when the app's code throws or returns output that breaks the tool's own output_schema
 * (4.2-03: never sent as a success) — but then the app under test cannot serve a valid request:
 * its tool does not do what its descriptor publishes (4.2-02). No fault the simulation injects
 * (kills, lost replies, failed transactions, restarts, clock jumps) makes a correct app answer
 * INTERNAL_ERROR: a kill leaves no answer, a lost reply is no answer to the caller, a restart
 * resumes.
 *
 * Judged: the execution of a request — its first call, or a call after every earlier call of the
 * same (caller, provider, request_id) was answered USER_ACTION_REQUIRED or AUTH_REQUIRED (the resume
 * after the user agreed) — never a replay of a recorded outcome or a duplicate sent while another
 * was in flight; v1 calls (no request_id) each. Args are judged against the fixture's input schema
 * (resolved from list_tools); a tool without one is not judged. Hostile providers are not judged.
 * Args the fixture lists in `internalFailures` (a backend that fails by design) are not judged.
 */
import canonicalize from 'canonicalize';
import { type CheckContext, groupBy } from '../checker.ts';
import { consistency, type Finding, judgeRun } from '../checker-kit.ts';
import type { BundleReplyView, CallView, Observation } from '../observation.ts';
import { argsFit } from './negotiated.ts';

const FOLLOW_UP_CODES: ReadonlySet<string> = new Set(['USER_ACTION_REQUIRED', 'AUTH_REQUIRED']);

function answerOf(c: CallView): BundleReplyView | null {
  return c.reply.kind === 'bundle' ? c.reply : c.lostAnswer;
}

/** Whether `c` is an execution of its request: every earlier call of it was answered a follow-up first. */
function executes(c: CallView, earlier: readonly CallView[]): boolean {
  return earlier.every((e) => {
    const a = answerOf(e);
    return (
      e.replyStep !== null &&
      e.replyStep < c.step &&
      a?.status === 'error' &&
      FOLLOW_UP_CODES.has(a.errorCode ?? '')
    );
  });
}

/** Whether the fixture declares these args of the call's tool a failure of the app by design. */
function declaredFailure(c: CallView, ctx: CheckContext): boolean {
  const declared = ctx.toolInternalFailures?.get(c.toolKey);
  if (!declared || declared.size === 0 || c.args === null) return false;
  let args: string;
  try {
    args = canonicalize(JSON.parse(c.args) as unknown) ?? '';
  } catch {
    return false; // e.g. a lone surrogate: no declared entry is such args
  }
  for (const d of declared) if (d.replaceAll('$UID', String(c.callerUid)) === args) return true;
  return false;
}

export const appInternalError = judgeRun({
  id: 'app-internal-error',
  ruleIds: ['CETP-4.2-02', 'CETP-4.2-03', 'CETP-5-24'],
  description:
    "A request whose args fit the tool's published input_schema is not answered INTERNAL_ERROR, and an operation it started does not end failed with INTERNAL_ERROR: the app's own code threw, or returned output that breaks the tool's output_schema (which the provider rightly never sends).",
  fields: [
    consistency(
      "the tool's input_schema and the request's args",
      'res:error:error_code',
      'req:execute_tool:args',
    ),
  ],
  *judge(obs: Observation, ctx) {
    const judged = (c: CallView) =>
      ctx.providersUnderTest.includes(c.provider) && !(ctx.hostile ?? []).includes(c.provider);
    const executions = obs.calls.filter(
      (c) =>
        c.method === 'execute_tool' &&
        c.toolName !== null &&
        c.args !== null &&
        judged(c) &&
        argsFit(ctx.toolInputSchemas?.get(c.toolKey), c.args) &&
        !declaredFailure(c, ctx),
    );
    const byRequest = groupBy(
      executions.filter((c) => c.v2 && c.requestId !== null),
      (c) => c.requestKey,
    );
    const operations = new Map<string, CallView>();
    const failed = (c: CallView, what: string): Finding => ({
      message: `${c.toolName} with args that fit its input schema (${c.args}) ${what}: the app's code failed — an exception, or output that breaks the tool's own output_schema (see the provider's log)`,
      calls: [c.id],
    });
    for (const c of executions) {
      const earlier = c.v2
        ? (byRequest.get(c.requestKey) ?? []).filter((e) => e.id !== c.id && e.step < c.step)
        : [];
      if (c.v2 && (c.requestId === null || !executes(c, earlier))) continue;
      if (!c.v2 && !c.v1) continue;
      const a = answerOf(c);
      if (a?.status === 'error' && a.errorCode === 'INTERNAL_ERROR')
        yield failed(c, `was answered INTERNAL_ERROR (call #${c.id})`);
      const op = (a?.status === 'accepted' ? (a.data as { operation_id?: unknown }) : undefined)
        ?.operation_id;
      if (typeof op === 'string' && c.v2) operations.set(`${c.provider}|${op}`, c);
    }
    const seen = new Set<string>();
    for (const p of obs.calls) {
      if (p.method !== 'get_operation' || seen.has(p.operationKey)) continue;
      const started = operations.get(p.operationKey);
      const data = answerOf(p)?.data as { state?: unknown; error?: { error_code?: unknown } } | undefined;
      if (!started || data?.state !== 'failed' || data.error?.error_code !== 'INTERNAL_ERROR') continue;
      seen.add(p.operationKey);
      yield failed(
        started,
        `started an operation that ended failed with INTERNAL_ERROR (call #${started.id}, poll #${p.id})`,
      );
    }
  },
});
