/**
 * The reference alerts app as a user's module gets it — through cetp-sim's public API only (this
 * directory stands for a user's code: src/cli/worker/boundary.mjs) — and `brokenTools`, the same
 * tools with every handler replaced by a misbehaviour. For the hostile modules here.
 */
import type { ProviderTool, ToolCall } from 'cetp-sim';
import { ALERTS_PROVIDER, defineProvider, isReadTool } from 'cetp-sim';

const TOOLS = {
  get_quote: [{ symbol: 'AAPL' }, { symbol: 'NOPE' }],
  list_alerts: [{}],
  create_alert: [
    { symbol: 'AAPL', price: 190 },
    { symbol: 'MSFT', price: 410 },
  ],
  delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }],
};

export const ALERTS = ALERTS_PROVIDER.fixture({ name: 'alerts', tools: TOOLS });

/** The alerts tools, each handler replaced by `misbehave`, as a provider named `broken`. */
export function brokenTools(misbehave: (call: ToolCall) => Promise<unknown> | unknown) {
  const tools = ALERTS_PROVIDER.tools.map(
    (tool): ProviderTool =>
      isReadTool(tool)
        ? { ...tool, read: async (call) => (await misbehave(call)) as never }
        : { ...tool, mutate: async (call) => (await misbehave(call)) as never },
  );
  const provider = defineProvider({
    packageName: 'com.example.broken',
    descriptor: {
      providerName: 'Broken App',
      description: 'A provider whose tools misbehave',
      scopes: ALERTS_PROVIDER.descriptor.scopes,
    },
    tools,
    authorize: { freeScopes: ['alerts.read'] },
  });
  return provider.fixture({ name: 'broken', tools: TOOLS });
}
