/**
 * The oracle over business validation (§7.3, CETP-7.3-04): a provider treats agent-generated args as
 * untrusted and applies its business rules, not only its JSON Schema. Which schema-valid args break
 * an app's business rules only the app's author knows; the fixture says so (`refusedArgs`, e.g. an
 * alert priced at 26 times the quote). Such args are never executed: no call carrying them is
 * answered success or accepted, and no business effect is committed for them (the world's record,
 * whatever the provider answered).
 */
import canonicalize from 'canonicalize';
import type { JsonValue } from '../../base/json.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { effectEvents } from '../observation.ts';

function canonicalArgs(text: string): string | null {
  try {
    return canonicalize(JSON.parse(text) as JsonValue) ?? null;
  } catch {
    return null;
  }
}

export const businessRefusal = judgeRun({
  id: 'business-refusal',
  ruleIds: ['CETP-7.3-04'],
  description:
    'Args that fit the schema but that the fixture says the app’s business rules refuse are never executed: no success or accepted answer, no committed effect.',
  fields: [
    consistency('the args the fixture declares its app must refuse (refusedArgs)', 'req:execute_tool:args'),
  ],
  *judge(obs, ctx) {
    const refused = ctx.toolRefusedArgs;
    if (!refused || refused.size === 0) return;
    for (const c of obs.calls) {
      if (c.method !== 'execute_tool' || !c.v2 || c.args === null) continue;
      if (!ctx.providersUnderTest.includes(c.provider)) continue;
      const set = refused.get(c.toolKey);
      if (!set) continue;
      const answered = [c.reply, c.lostAnswer].find(
        (r) => r?.kind === 'bundle' && (r.status === 'success' || r.status === 'accepted'),
      );
      if (answered?.kind !== 'bundle') continue;
      const args = canonicalArgs(c.args);
      if (args === null || !set.has(args)) continue;
      yield {
        message: `execute_tool ${c.toolName} with args its business rules refuse (${args}) was answered ${answered.status}`,
        calls: [c.id],
      };
    }
    for (const e of obs.effects) {
      if (!ctx.providersUnderTest.includes(e.provider)) continue;
      const set = refused.get(`${e.provider}|${e.tool}`);
      const args = canonicalize(e.args) ?? null;
      if (!set || args === null || !set.has(args)) continue;
      yield {
        message: `an effect of ${e.tool} request ${e.requestId} acted on args its business rules refuse (${args})`,
        events: effectEvents(e),
      };
    }
  },
});

export const BUSINESS_CHECKERS: readonly Checker[] = [businessRefusal];
