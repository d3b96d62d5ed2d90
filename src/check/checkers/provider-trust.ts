/**
 * The oracle over whom a consumer trusts (§3.1, CETP-3.1-01 / 3.1-02, judged on the consumer): a
 * provider's identity is its package (the PackageManager's truth, not what it says). A consumer under
 * test that got, in a negotiate answer, a provider_id outside the serving package's namespace (3.1-02),
 * or, in a get_provider_info answer under a session, a provider_id other than the one that session
 * was negotiated with (3.1-01: provider_id is stable), must stop there: it sends no list_tools and no
 * execute_tool under that session afterwards (it does not route an agent's tools to an impersonator).
 * Judged from the wire: the answers the consumer actually received, and the calls it sent after them.
 */
import { isProviderIdInNamespace } from '../../protocol/index.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type CallView, succeeded } from '../observation.ts';

interface Distrust {
  readonly step: number;
  readonly why: string;
  readonly callId: number;
}

function providerIdOf(c: CallView): string | null {
  if (!succeeded(c)) return null;
  const id = (c.reply.data as { provider_id?: unknown } | undefined)?.provider_id;
  return typeof id === 'string' ? id : null;
}

export const consumerTrustsIdentity = judgeRun({
  id: 'consumer-trusts-identity',
  ruleIds: ['CETP-3.1-02', 'CETP-3.1-01'],
  description:
    'A consumer stops using a session whose provider named a provider_id outside its package namespace, or changed it between negotiate and get_provider_info: no list_tools or execute_tool under it afterwards.',
  fields: [
    consistency(
      "the serving package's namespace (PackageManager) and the session's negotiated provider_id, as the consumer under test used them",
      'json:negotiate_response/provider_id',
      'json:provider_info/provider_id',
    ),
  ],
  *judge(obs, ctx) {
    if (ctx.consumers.length === 0) return;
    const negotiated = new Map<string, string>(); // `caller|provider|token` → provider_id
    const distrusted = new Map<string, Distrust>();
    const key = (c: CallView, token: string) => `${c.caller}|${c.provider}|${token}`;
    for (const c of obs.calls) {
      if (!ctx.consumers.includes(c.caller)) continue;
      const token = c.sessionToken;
      if (c.method === 'negotiate') {
        const id = providerIdOf(c);
        const answered = (c.reply.kind === 'bundle' ? c.reply.data : undefined) as
          | { session_token?: unknown }
          | undefined;
        const issued = typeof answered?.session_token === 'string' ? answered.session_token : null;
        if (id === null || issued === null || c.replyStep === null) continue;
        negotiated.set(key(c, issued), id);
        if (!isProviderIdInNamespace(id, c.provider))
          distrusted.set(key(c, issued), {
            step: c.replyStep,
            why: `negotiate named provider_id ${JSON.stringify(id)}, outside package ${c.provider}`,
            callId: c.id,
          });
        continue;
      }
      if (token === null) continue;
      const k = key(c, token);
      if (c.method === 'get_provider_info') {
        const id = providerIdOf(c);
        const first = negotiated.get(k);
        if (id !== null && first !== undefined && id !== first && c.replyStep !== null && !distrusted.has(k))
          distrusted.set(k, {
            step: c.replyStep,
            why: `get_provider_info named provider_id ${JSON.stringify(id)}, the session was negotiated with ${JSON.stringify(first)}`,
            callId: c.id,
          });
        continue;
      }
      if (c.method !== 'list_tools' && c.method !== 'execute_tool') continue;
      const d = distrusted.get(k);
      // A call sent in the step the distrusting answer arrived was sent by that task, after it.
      if (!d || c.step < d.step) continue;
      yield {
        message: `${c.caller} sent ${c.method} to ${c.provider} under a session it should have dropped: ${d.why}`,
        calls: [d.callId, c.id],
      };
      distrusted.delete(k); // one finding per session
    }
  },
});

export const PROVIDER_TRUST_CHECKERS: readonly Checker[] = [consumerTrustsIdentity];
