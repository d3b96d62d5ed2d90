/**
 * CETP-3.4-14: a tool's `scopes` list is the complete set of permissions it needs. What a tool
 * truly needs cannot be read from the app's own list_tools (the very thing under judgement), so a
 * fixture may state it (ProviderFixture.requiredScopes); this oracle then judges the app against
 * that truth, from the wire and the world's record:
 * - a list_tools answer declaring the tool with fewer scopes than it needs (the scope is named);
 * - a success or a business effect of the tool for a UID not granted a scope it needs. A scope is
 *   granted to everyone when the provider's policy gives it without asking (not a user-granted
 *   scope); otherwise the UID was granted it when the provider asked that UID for authorization
 *   (AUTH_REQUIRED) on a tool declaring or needing the scope and the user then approved a screen of
 *   the provider — grants outlive requests, so any earlier such approval counts.
 * Without `requiredScopes` in the fixture it judges nothing.
 */
import type { CheckContext } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { effectEvents, type Observation, succeeded } from '../observation.ts';

interface ListedTool {
  readonly name?: unknown;
  readonly scopes?: unknown;
}

/** Scopes needing the user's grant that uid `uid` of `provider` was granted before `step`. */
function grantedBefore(
  obs: Observation,
  ctx: CheckContext,
  provider: string,
  uid: number,
  step: number,
): Set<string> {
  const granted = new Set<string>();
  for (const c of obs.calls) {
    if (c.provider !== provider || c.callerUid !== uid || c.replyStep === null || c.replyStep >= step)
      continue;
    if (c.reply.kind !== 'bundle' || c.reply.errorCode !== 'AUTH_REQUIRED') continue;
    const asked = c.replyStep;
    const approved = obs.screens.some(
      (s) =>
        s.packageName === provider &&
        s.answer === 'approve' &&
        s.delivered &&
        s.step >= asked &&
        s.answerStep !== null &&
        s.answerStep < step,
    );
    if (!approved) continue;
    for (const s of ctx.toolScopes.get(c.toolKey) ?? []) granted.add(s);
    for (const s of ctx.toolRequiredScopes?.get(c.toolKey) ?? []) granted.add(s);
  }
  return granted;
}

export const requiredScopes = judgeRun({
  id: 'required-scopes',
  ruleIds: ['CETP-3.4-14'],
  description:
    "A tool's declared scopes include every scope it truly needs (the fixture's requiredScopes), and it never succeeds or takes effect for a caller not granted one of them.",
  fields: [
    consistency(
      'the scopes the fixture says the tool truly needs (requiredScopes)',
      'json:list_tools_response/tools[]/scopes',
      'json:list_tools_response/tools[]/scopes[]',
    ),
  ],
  *judge(obs, ctx) {
    const required = ctx.toolRequiredScopes;
    if (!required || required.size === 0) return;
    const reported = new Set<string>();
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || c.reply.kind !== 'bundle') continue;
      if (c.method !== 'list_tools' || c.reply.status !== 'success') continue;
      const tools = (c.reply.data as { tools?: unknown } | undefined)?.tools;
      for (const t of Array.isArray(tools) ? (tools as ListedTool[]) : []) {
        const key = `${c.provider}|${String(t.name)}`;
        const declared = Array.isArray(t.scopes) ? (t.scopes as unknown[]) : [];
        const missing = (required.get(key) ?? []).filter((s) => !declared.includes(s));
        if (missing.length === 0 || reported.has(key)) continue;
        reported.add(key);
        yield {
          message: `list_tools declares ${String(t.name)} with scopes [${declared.join(', ')}], but it needs ${missing.join(', ')} (CETP-3.4-14: the scopes list is the complete set)`,
          calls: [c.id],
        };
      }
    }
    const userGranted = (provider: string) => ctx.userGrantedScopes.get(provider) ?? [];
    const ungranted = (provider: string, uid: number, step: number, tool: string): string[] => {
      const needs = (required.get(`${provider}|${tool}`) ?? []).filter((s) =>
        userGranted(provider).includes(s),
      );
      if (needs.length === 0) return [];
      const granted = grantedBefore(obs, ctx, provider, uid, step);
      return needs.filter((s) => !granted.has(s));
    };
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider) || c.method !== 'execute_tool' || c.toolName === null)
        continue;
      if (!succeeded(c)) continue;
      const missing = ungranted(c.provider, c.callerUid, c.replyStep ?? c.step, c.toolName);
      if (missing.length === 0) continue;
      yield {
        message: `uid ${c.callerUid} got a success of ${c.toolName} without being granted ${missing.join(', ')}, which it needs (CETP-3.4-14)`,
        calls: [c.id],
      };
    }
    for (const e of obs.effects) {
      if (!ctx.providersUnderTest.includes(e.provider)) continue;
      const missing = ungranted(e.provider, e.uid, e.step, e.tool);
      if (missing.length === 0) continue;
      yield {
        message: `uid ${e.uid} ran ${e.tool} (request ${e.requestId}) without being granted ${missing.join(', ')}, which it needs (CETP-3.4-14)`,
        events: effectEvents(e),
      };
    }
  },
});
