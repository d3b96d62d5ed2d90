/**
 * The alerts app through the public API with a bug the vectors see: its get_quote answers a price
 * off by one (every vector that reads a quote compares the price with the expected literal). For
 * the vector forgers here.
 */
import type { ProviderTool } from 'cetp-sim';
import { ALERTS_PROVIDER, defineProvider, isReadTool } from 'cetp-sim';

const tools = ALERTS_PROVIDER.tools.map(
  (tool): ProviderTool =>
    isReadTool(tool) && tool.name === 'get_quote'
      ? {
          ...tool,
          read: async (call) => {
            const quote = (await tool.read(call)) as { price?: number };
            return { ...quote, price: (quote.price ?? 0) + 1 } as never;
          },
        }
      : tool,
);

const MISPRICED = defineProvider({
  packageName: ALERTS_PROVIDER.packageName,
  authority: ALERTS_PROVIDER.authority,
  versions: ALERTS_PROVIDER.versions,
  cert: 'alerts-release',
  descriptor: ALERTS_PROVIDER.descriptor,
  tools,
  authorize: { freeScopes: ['alerts.read'] },
});

export const MISPRICED_ALERTS = MISPRICED.fixture({
  name: 'alerts',
  tools: { get_quote: [{ symbol: 'AAPL' }], list_alerts: [{}] },
});
