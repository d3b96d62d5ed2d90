/**
 * A `--provider` module in TypeScript, written against the package's exported types only (the
 * reference alerts app, installed as the user's own): typechecked by the user project's tsconfig.
 */
import {
  ALERTS_AUTHORITY,
  ALERTS_PACKAGE,
  alertsApp,
  alertsPackage,
  type ProviderFixture,
  type Variant,
  World,
} from 'cetp-sim';

export const providers: ProviderFixture[] = [
  {
    name: 'mine',
    packageName: ALERTS_PACKAGE,
    authority: ALERTS_AUTHORITY,
    install: (world: World, variant: Variant) => {
      // One copy of cetp-sim: the world the CLI made is an instance of the World this module imports.
      if (!(world instanceof World)) throw new Error('two copies of cetp-sim are loaded');
      world.install(
        alertsPackage(),
        alertsApp({
          plantedBugs: new Set(variant.providerBugs),
          disabledRules: new Set(variant.disabledRules),
        }),
      );
    },
    effects: { get_quote: 'read', list_alerts: 'read', create_alert: 'create', delete_alert: 'delete' },
    scopes: {
      get_quote: [],
      list_alerts: ['alerts.read'],
      create_alert: ['alerts.write'],
      delete_alert: ['alerts.write'],
    },
    userGrantedScopes: ['alerts.write'],
    tools: {
      get_quote: [{ symbol: 'AAPL' }, { symbol: 'NOPE' }],
      list_alerts: [{}],
      create_alert: [
        { symbol: 'AAPL', price: 190 },
        { symbol: 'MSFT', price: 410 },
      ],
      delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }],
    },
  },
];
