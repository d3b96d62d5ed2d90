/**
 * A user's provider module, as a user writes one against the public API only (`cetp-sim`): the
 * price-alert app shipped with cetp-sim, installed as the user's own provider `quotes`. It is what
 * `npx cetp-sim fuzz --provider ./quotes.provider.ts` loads, and what the test files import.
 */
import {
  ALERTS_AUTHORITY,
  ALERTS_PACKAGE,
  alertsApp,
  alertsPackage,
  type ProviderFixture,
  type Variant,
} from 'cetp-sim';

/** Extra planted bugs this module always installs with (none: the app as shipped). */
export function quotes(extraBugs: readonly string[] = []): ProviderFixture {
  return {
    name: 'quotes',
    packageName: ALERTS_PACKAGE,
    authority: ALERTS_AUTHORITY,
    install: (world, variant: Variant) =>
      world.install(
        alertsPackage(),
        alertsApp({
          plantedBugs: new Set([...variant.providerBugs, ...extraBugs]),
          disabledRules: new Set(variant.disabledRules),
        }),
      ),
    tools: {
      get_quote: [{ symbol: 'AAPL' }, { symbol: 'NOPE' }],
      list_alerts: [{}],
      create_alert: [
        { symbol: 'AAPL', price: 190 },
        { symbol: 'AAPL', price: 400 },
        { symbol: 'MSFT', price: 410 },
      ],
    },
    effects: { get_quote: 'read', list_alerts: 'read', create_alert: 'create' },
    scopes: { get_quote: [], list_alerts: ['alerts.read'], create_alert: ['alerts.write'] },
    userGrantedScopes: ['alerts.write'],
  };
}

export const providers = [quotes()];
