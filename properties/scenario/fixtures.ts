/**
 * The worlds scenarios run in: which reference provider apps are installed (with the variant's
 * planted bugs and ablated rules), the argument pools their tools are called with, and the actor
 * apps (two UIDs, plus two packages sharing a third UID).
 */

import { caches } from '../../src/base/caches.ts';
import type { CheckContext } from '../../src/check/checker.ts';
import type { ProviderFixture } from '../../src/check/subjects.ts';
import { readingOptions } from '../../src/protocol/readings.ts';
import {
  ALERT_TOOLS,
  ALERTS_AUTHORITY,
  ALERTS_PACKAGE,
  alertsApp,
  alertsPackage,
} from '../../src/providers/apps/alerts.ts';
import {
  PAYMENT_TOOLS,
  PAYMENTS_AUTHORITY,
  PAYMENTS_PACKAGE,
  paymentsApp,
  paymentsPackage,
} from '../../src/providers/apps/payments.ts';
import {
  DEFAULT_PROVIDER_OPTIONS,
  type ProviderTool,
  type ProviderVariants,
} from '../../src/providers/sdk/types.ts';
import { agentPackage } from '../../src/providers/testing.ts';
import type { World } from '../../src/sim/world.ts';
import type { ActorName, Variant } from './model.ts';

/** A provider app the scenarios install and call: defined in src/check/subjects.ts (public API). */
export type { ProviderFixture };

function effectsOf(tools: readonly ProviderTool[]): Record<string, string> {
  return Object.fromEntries(tools.map((t) => [t.name, t.annotations.effect]));
}

function confirmationsOf(tools: readonly ProviderTool[]): Record<string, string> {
  return Object.fromEntries(tools.map((t) => [t.name, t.annotations.confirmation]));
}

function scopesOf(tools: readonly ProviderTool[]): Record<string, readonly string[]> {
  return Object.fromEntries(tools.map((t) => [t.name, t.scopes]));
}

function inputSchemasOf(tools: readonly ProviderTool[]): Record<string, unknown> {
  return Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
}

/** checkContext's answers for the raw runner (no consumers), by providers list: fixtures are constants. */
const rawContexts = caches.weakMap<readonly ProviderFixture[], CheckContext>(
  'properties/fixtures: raw check contexts by providers list',
);

/** checkContext for raw-driver runs (no consumer under test), built once per providers list. */
export function rawCheckContext(providers: readonly ProviderFixture[]): CheckContext {
  let ctx = rawContexts.get(providers);
  if (!ctx) {
    ctx = checkContext(providers, { consumers: [] });
    rawContexts.set(providers, ctx);
  }
  return ctx;
}

/** What the oracles know about the providers under test (their descriptors), keyed by package|tool. */
export function checkContext(
  providers: readonly ProviderFixture[],
  rest: Pick<CheckContext, 'consumers' | 'hostile' | 'readings'>,
): CheckContext {
  const toolEffects = new Map<string, string>();
  const toolScopes = new Map<string, readonly string[]>();
  const toolConfirmations = new Map<string, string>();
  const toolInputSchemas = new Map<string, unknown>();
  for (const p of providers) {
    for (const [tool, effect] of Object.entries(p.effects))
      toolEffects.set(`${p.packageName}|${tool}`, effect);
    for (const [tool, scopes] of Object.entries(p.scopes)) toolScopes.set(`${p.packageName}|${tool}`, scopes);
    for (const [tool, policy] of Object.entries(p.confirmations ?? {}))
      toolConfirmations.set(`${p.packageName}|${tool}`, policy);
    for (const [tool, schema] of Object.entries(p.inputSchemas ?? {}))
      toolInputSchemas.set(`${p.packageName}|${tool}`, schema);
  }
  return {
    providersUnderTest: providers.map((p) => p.packageName),
    toolEffects,
    toolScopes,
    toolConfirmations,
    toolInputSchemas,
    userGrantedScopes: new Map(providers.map((p) => [p.packageName, p.userGrantedScopes])),
    ...rest,
  };
}

export const ACTOR_PACKAGES: Readonly<Record<ActorName, string>> = {
  a: 'com.fuzz.agent.a',
  b: 'com.fuzz.agent.b',
  s1: 'com.fuzz.shared.one',
  s2: 'com.fuzz.shared.two',
};

export function installActors(world: World, actors: readonly ActorName[]): void {
  for (const actor of actors) {
    const pkg = ACTOR_PACKAGES[actor];
    const shared = actor === 's1' || actor === 's2';
    world.install(
      agentPackage(pkg, shared ? 'fuzz-shared-key' : `${pkg}-key`, shared ? 'com.fuzz.shared' : undefined),
      () => ({}),
    );
  }
}

/** The provider options a variant sets: planted bugs, ablated rules and readings (src/protocol/readings.ts). */
export function providerOptions(variant: Variant) {
  const options = {
    plantedBugs: new Set(variant.providerBugs),
    disabledRules: new Set(variant.disabledRules),
  };
  if (variant.readings?.provider === undefined) return options;
  const variants = {
    ...DEFAULT_PROVIDER_OPTIONS.variants,
    ...(readingOptions('provider', variant.readings.provider) as Partial<ProviderVariants>),
  };
  return { ...options, variants };
}

export const ALERTS: ProviderFixture = {
  name: 'alerts',
  packageName: ALERTS_PACKAGE,
  authority: ALERTS_AUTHORITY,
  install: (world, variant) => world.install(alertsPackage(), alertsApp(providerOptions(variant))),
  effects: effectsOf(ALERT_TOOLS),
  confirmations: confirmationsOf(ALERT_TOOLS),
  scopes: scopesOf(ALERT_TOOLS),
  inputSchemas: inputSchemasOf(ALERT_TOOLS),
  userGrantedScopes: ['alerts.write'],
  tools: {
    get_quote: [{ symbol: 'AAPL' }, { symbol: 'DLST' }, { symbol: 'NOPE' }],
    list_alerts: [{}],
    create_alert: [
      { symbol: 'AAPL', price: 190 },
      { symbol: 'AAPL', price: 400 },
      { symbol: 'MSFT', price: 410 },
      { symbol: 'AAPL', price: 191 },
    ],
    // The caller's own latest alert first: a delete that can pass business validation and reach the
    // confirmation (with fixed ids alone, no fuzzed delete ever did), then ids that may be anyone's.
    delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }, { alert_id: 'ALRT-2' }],
  },
};

/** `$UID` in an args pool is replaced by the calling actor's UID (payments accounts are per UID). */
export const UID_PLACEHOLDER = '$UID';

/**
 * `$OWN:field` in an args pool is replaced by `field` of the actor's latest successful result that
 * had one (e.g. the alert it created last), so a tool that acts on the caller's own objects gets
 * called on one that exists; before there is one, by `fallback` (an object that may be anyone's).
 */
const OWN_PLACEHOLDER = /\$OWN:([a-z_]+)/g;

/** An args pool entry's JSON with its placeholders filled in. */
export function fillArgs(
  json: string,
  uid: number,
  own: (field: string) => string | undefined = () => undefined,
): string {
  const filled = json.replaceAll(UID_PLACEHOLDER, String(uid));
  return filled.includes('$OWN:')
    ? filled.replace(OWN_PLACEHOLDER, (_, field: string) => own(field) ?? OWN_FALLBACK)
    : filled;
}

/** What `$OWN:…` becomes before the actor owns anything: an alert id, well formed, maybe someone else's. */
const OWN_FALLBACK = 'ALRT-1';

const IBAN = 'DE89370400440532013000';

export const PAYMENTS: ProviderFixture = {
  name: 'payments',
  packageName: PAYMENTS_PACKAGE,
  authority: PAYMENTS_AUTHORITY,
  install: (world, variant) => world.install(paymentsPackage(), paymentsApp(providerOptions(variant))),
  effects: effectsOf(PAYMENT_TOOLS),
  confirmations: confirmationsOf(PAYMENT_TOOLS),
  scopes: scopesOf(PAYMENT_TOOLS),
  inputSchemas: inputSchemasOf(PAYMENT_TOOLS),
  userGrantedScopes: ['payments.transfer', 'payments.admin'],
  tools: {
    get_balance: [{}],
    transfer: [
      { from_account: 'CHK-$UID', to_iban: IBAN, amount: 25, currency: 'EUR', reference: 'rent' },
      { from_account: 'CHK-$UID', to_iban: IBAN, amount: 9_000, currency: 'EUR', reference: 'car' },
      { from_account: 'SAV-$UID', to_iban: IBAN, amount: 100, currency: 'EUR', reference: 'gift' },
      { from_account: 'CHK-$UID', to_iban: IBAN, amount: 26, currency: 'EUR', reference: 'rent' },
    ],
    export_statement: [
      { account: 'CHK-$UID', months: 1 },
      { account: 'CHK-$UID', months: 12 },
    ],
    reconcile_accounts: [{}],
  },
};
