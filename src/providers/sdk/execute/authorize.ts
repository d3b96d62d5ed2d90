/**
 * The `scopes` and `grant` steps (spec §3.4, §4.3, §7.2): the app's policy decides every call
 * (3.4-15, 3.4-16, 7.2-03, 10-01) — allowed, PERMISSION_DENIED, or AUTH_REQUIRED with a scope
 * grant the user can approve; a resume after a grant carries the grant's token, consumed once
 * authorization passes, and the call goes on as a fresh request (which may still need a confirmation).
 */
import { consumeConfirmation } from '../confirmations.ts';
import { WireFailure } from '../responses.ts';
import { audit } from '../runtime.ts';
import { openResolution, resumeUnrecorded } from './resolution.ts';
import { answer, atomically, binding, go, refuse, toolOf, who, withExecution } from './support.ts';
import type { Execution, Next } from './types.ts';

export async function authorizeCall(ex: Execution): Promise<Next> {
  const { rt, caller, req } = ex;
  if (!rt.gates.on('CETP-3.4-15', 'CETP-10-01')) return go(ex);
  const tool = toolOf(ex).tool;
  const decision = await rt.authorize({ caller, tool, scopes: tool.scopes, context: rt.context });
  if (decision.kind === 'allow') return go(ex);
  if (decision.kind === 'deny') {
    audit(rt, who(ex), { authorization: 'denied', outcome: 'PERMISSION_DENIED' });
    return refuse(ex, new WireFailure('PERMISSION_DENIED', { message: decision.reason }));
  }
  // The user can grant the missing scopes in the provider's UI (AUTH_REQUIRED, 4.3-01).
  if (req.resumeToken !== undefined) {
    const resumed = await resumeUnrecorded(ex, 'grant');
    if (resumed === 'approved') {
      const again = await rt.authorize({ caller, tool, scopes: tool.scopes, context: rt.context });
      if (again.kind === 'allow') return go(ex);
    } else if (resumed !== 'expired') {
      return answer(resumed);
    }
  }
  audit(rt, who(ex), { authorization: 'auth_required', outcome: 'AUTH_REQUIRED' });
  return answer(await openResolution(ex, 'grant', decision.scopes, null));
}

export function settleGrantToken(ex: Execution): Next | Promise<Next> {
  const token = ex.req.resumeToken;
  if (token === undefined) return go(ex);
  return settle(ex, token);
}

async function settle(ex: Execution, token: string): Promise<Next> {
  const isGrant = await atomically(ex.rt, 'settle grant token', async (tx) => {
    // A retried resume after a lost reply re-sends the grant token, already used (NOTES 2): that is
    // fine for a grant, which authorises nothing by itself — authorization was just re-checked. An
    // EXPIRED one is refused (CETP-4.3-06: rejected once expired; vector conf-token-expired), even
    // when it expired in flight (a device asleep with the call pending): the consumer then cannot
    // tell that refusal from its own misuse — a spec finding (docs/notes/fidelity-campaigns.md).
    const check = await ex.rt.parts.checkResumeToken(tx, token, binding(ex), ex.rt.gates, true);
    if (!check.ok || check.record.kind !== 'grant') return false;
    await consumeConfirmation(tx, check.record);
    return true;
  });
  if (!isGrant) return go(ex);
  const { resumeToken: _used, ...req } = ex.req;
  return go(withExecution(ex, { req }));
}
