/**
 * consumer-uses-v1-provider (CETP-8-07, CETP-0-02): a v2 consumer keeps speaking v1 to a provider
 * whose manifest declares v1 and not v2. Judged from what the agent asked its consumer and the wire:
 * an execution the agent asked of a tool of such a provider, answered by the consumer, must have
 * reached that provider with at least one call between the ask and the answer. A consumer whose
 * discovery keeps only v2 providers answers "not found" without a call — the v2-only consumer the
 * issue-38 zoo's `v2-only-discovery` mistake builds.
 *
 * Sound where it is used (the consumer-versions property, which has no faults): a correct consumer
 * has no reason to answer such an ask without a call. It skips hostile packages, a provider whose
 * process died or that was removed during the ask, asks the consumer never answered, args that are
 * not JSON, and — when this consumer read the provider's v1 list_tools before answering — a tool that
 * list did not name or args its input_schema refuses (a consumer may refuse those locally).
 * Answering without ever reading the list cannot be such a refusal.
 */
import { caches } from '../../base/caches.ts';
import type { JsonValue } from '../../base/json.ts';
import { META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../../protocol/discovery.ts';
import { ToolSchemaCompiler } from '../../protocol/index.ts';
import type { AgentCallRecord } from '../../sim/ground-truth.ts';
import { AGENT_EXECUTIONS, judgeEach } from '../checker-kit.ts';
import { type Observation, succeeded } from '../observation.ts';
import { packageOf } from '../record.ts';
import { field } from './consumer-view.ts';

const compiler = caches.lazy('check/consumer-v1: input schema compiler', () => new ToolSchemaCompiler());

/**
 * Whether the consumer may have refused the ask locally: args not JSON, or — by the v1 list_tools it
 * last read from the provider before answering — a tool not listed or args its input_schema refuses.
 */
function mayRefuseLocally(obs: Observation, a: AgentCallRecord, end: number): boolean {
  let args: JsonValue;
  try {
    args = JSON.parse(a.args ?? '') as JsonValue;
  } catch {
    return true;
  }
  let tools: JsonValue | undefined;
  for (const c of obs.calls) {
    if (c.caller !== a.consumer || c.provider !== a.provider || c.method !== 'list_tools' || !c.v1) continue;
    if (!succeeded(c) || (c.replyStep ?? end + 1) > end) continue;
    tools = field(c.reply.data, 'tools');
  }
  if (tools === undefined) return false; // never read: nothing it could refuse by
  const listed = Array.isArray(tools) ? tools.find((t) => field(t, 'name') === a.tool) : undefined;
  if (listed === undefined) return true;
  const compiled = compiler.get().compile(field(listed, 'input_schema') ?? { type: 'object' }, 'input');
  return !compiled.ok || compiled.value(args).length > 0;
}

/** The versions `pkg`'s tool-provider service declares: `versions` when present, else `version`. */
function manifestVersions(obs: Observation, pkg: string): number[] | null {
  const info = packageOf(obs.record, pkg);
  const service = info?.manifest.services.find((s) =>
    s.intentFilters.some((f) => f.actions.includes(TOOL_PROVIDER_ACTION)),
  );
  if (!service) return null;
  const raw = service.metaData[META_VERSIONS] ?? service.metaData[META_VERSION];
  if (raw === undefined) return null;
  const parts = raw.split(',').map((p) => p.trim());
  return parts.every((p) => /^[1-9][0-9]{0,3}$/.test(p)) ? parts.map(Number) : null;
}

function disturbed(obs: Observation, pkg: string, from: number, to: number): boolean {
  return obs.events.some(
    (e) =>
      e.step >= from &&
      e.step <= to &&
      e.data.actor === pkg &&
      (e.kind === 'process.kill' || e.kind.startsWith('package.')),
  );
}

export const usesV1Provider = judgeEach(AGENT_EXECUTIONS, {
  id: 'consumer-uses-v1-provider',
  ruleIds: ['CETP-8-07', 'CETP-0-02'],
  description:
    'An execution the agent asks of a v1-only provider (manifest declares 1 and not 2) reaches that provider: a v2 consumer keeps v1.',
  judge(a, obs, ctx) {
    if (a.provider === null || a.endStep === null || (ctx.hostile ?? []).includes(a.provider)) return;
    const versions = manifestVersions(obs, a.provider);
    if (versions === null || versions.length !== 1 || versions[0] !== 1) return;
    const end = a.endStep;
    if (disturbed(obs, a.provider, a.step, end) || mayRefuseLocally(obs, a, end)) return;
    const reached = obs.calls.some(
      (c) => c.caller === a.consumer && c.provider === a.provider && c.step >= a.step && c.step <= end,
    );
    if (!reached)
      return `${a.consumer} answered its agent's ${a.tool ?? '?'} on ${a.provider} (v1 only) without calling it: v1 dropped`;
  },
});
