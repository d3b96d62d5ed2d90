/**
 * The provider fixtures vectors drive, by the name a vector gives in `provider`: the reference apps
 * (the same fixtures the property suites fuzz, plus the v1-only legacy app). A device suite installs
 * its own build of each fixture app; `--provider MODULE` replaces them by name in the simulation.
 */
import { ALERTS, PAYMENTS, type ProviderFixture } from '../fuzz/scenario/fixtures.ts';
import { LEGACY_AUTHORITY, LEGACY_PACKAGE, legacyApp, legacyPackage } from '../providers/apps/legacy.ts';
import { DEFAULTS } from './defaults-app.ts';
import type { FixtureInfo } from './format.ts';
import { OUTAGE } from './outage-app.ts';

const LEGACY: ProviderFixture = {
  name: 'legacy',
  packageName: LEGACY_PACKAGE,
  authority: LEGACY_AUTHORITY,
  install: (world) => world.install(legacyPackage(), legacyApp()),
  tools: { list_cities: [{}] },
  effects: { list_cities: 'read' },
  scopes: { list_cities: [] },
  userGrantedScopes: [],
};

export const REFERENCE_FIXTURES: readonly ProviderFixture[] = [ALERTS, PAYMENTS, LEGACY, DEFAULTS, OUTAGE];

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  alerts:
    "the spec's price-alert provider (src/providers/apps/alerts.ts): get_quote, list_alerts, create_alert (user confirmation), delete_alert",
  payments:
    'a payments provider (src/providers/apps/payments.ts): get_balance, transfer (high risk, async), export_statement (large results), reconcile_accounts (async)',
  legacy: 'a v1-only provider (src/providers/apps/legacy.ts): manifest version=1, read-only tools',
  defaults:
    'a v2-only provider keeping every SDK default (src/vectors/defaults-app.ts): no authorization policy, no mutation executor; tools echo (read) and add_note (write)',
  outage:
    'a v2-only provider whose backend is down (src/vectors/outage-app.ts): sync_inbox always fails UNAVAILABLE',
};

/** The manifest's description of each fixture a device suite must build. */
export function fixtureInfo(): Record<string, FixtureInfo> {
  return Object.fromEntries(
    REFERENCE_FIXTURES.map((f) => [
      f.name,
      { package: f.packageName, authority: f.authority, description: DESCRIPTIONS[f.name] ?? f.name },
    ]),
  );
}
