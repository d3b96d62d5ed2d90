// A `--provider` module in plain JavaScript (an ES module): the reference alerts app as the user's own.
import { ALERTS_AUTHORITY, ALERTS_PACKAGE, alertsApp, alertsPackage } from 'cetp-sim';

export const providers = [
  {
    name: 'myalerts',
    packageName: ALERTS_PACKAGE,
    authority: ALERTS_AUTHORITY,
    install: (world, variant) =>
      world.install(
        alertsPackage(),
        alertsApp({
          plantedBugs: new Set(variant.providerBugs),
          disabledRules: new Set(variant.disabledRules),
        }),
      ),
    effects: { get_quote: 'read', list_alerts: 'read', create_alert: 'create', delete_alert: 'delete' },
    scopes: {
      get_quote: [],
      list_alerts: ['alerts.read'],
      create_alert: ['alerts.write'],
      delete_alert: ['alerts.write'],
    },
    userGrantedScopes: ['alerts.write'],
    tools: {
      get_quote: [{ symbol: 'AAPL' }],
      list_alerts: [{}],
      create_alert: [{ symbol: 'AAPL', price: 190 }],
      delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }],
    },
  },
];
