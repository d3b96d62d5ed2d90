/**
 * Oracles over the durations a provider keeps without stating them on the wire (issue 22, item 1):
 * they judge only providers whose configuration names the duration (CheckContext.resumeTokenTtlMs).
 */
import type { Checker } from '../checker.ts';
import { judgeRun } from '../checker-kit.ts';
import type { CallView } from '../observation.ts';

/** An answer that went on to the request (it executed, or holds its operation). */
function executed(c: CallView): boolean {
  const r = c.reply.kind === 'bundle' ? c.reply : c.lostAnswer;
  return r !== null && (r.status === 'success' || r.status === 'accepted');
}

export const resumeTokenExpiry = judgeRun({
  id: 'resume-token-expiry',
  ruleIds: ['CETP-4.3-06'],
  description:
    "A confirmation's resume token presented after its lifetime (counted from the reply that issued it) never executes the request: the resume is refused or asks again.",
  *judge(obs, ctx) {
    const ttls = ctx.resumeTokenTtlMs;
    if (!ttls || ttls.size === 0) return;
    /** `provider|token` → the USER_ACTION_REQUIRED reply that issued it (delivered to its caller). */
    const issued = new Map<string, CallView>();
    /** requestKey of requests already executed (a later resume may replay their result, NOTES 2). */
    const done = new Set<string>();
    for (const c of obs.calls) {
      if (c.method !== 'execute_tool' || !ctx.providersUnderTest.includes(c.provider)) continue;
      const ttl = ttls.get(c.provider);
      const from = c.resumeToken === null ? undefined : issued.get(`${c.provider}|${c.resumeToken}`);
      if (
        ttl !== undefined &&
        from?.replyT != null &&
        c.t > from.replyT + ttl &&
        executed(c) &&
        !done.has(c.requestKey)
      ) {
        yield {
          message: `resume token of request ${from.requestId} executed request ${c.requestId} ${Math.round((c.t - from.replyT) / 1000)} s after it was issued, past its ${ttl / 1000} s lifetime`,
          calls: [from.id, c.id],
        };
      }
      if (executed(c)) done.add(c.requestKey);
      if (c.reply.kind === 'bundle' && c.reply.errorCode === 'USER_ACTION_REQUIRED') {
        const token = c.reply.bundle.getString('resume_token');
        if (token !== null) issued.set(`${c.provider}|${token}`, c);
      }
    }
  },
});

export const CLOCK_CHECKERS: readonly Checker[] = [resumeTokenExpiry];
