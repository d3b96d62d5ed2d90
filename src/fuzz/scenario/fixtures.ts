/**
 * The worlds scenarios run in: which reference provider apps are installed (with the variant's
 * planted bugs and ablated rules), the argument pools their tools are called with, and the actor
 * apps (two UIDs, plus two packages sharing a third UID).
 */

import canonicalize from 'canonicalize';
import { caches } from '../../base/caches.ts';
import type { CheckContext } from '../../check/checker.ts';
import { FixtureError, resolveFixtureWith } from '../../check/fixture.ts';
import { ALERTS_PROVIDER } from '../../providers/apps/alerts.ts';
import { PAYMENTS_PROVIDER } from '../../providers/apps/payments.ts';
import { type DefinedProvider, type FixtureSpec, providerOptionsFor } from '../../providers/sdk/define.ts';
import { agentPackage } from '../../providers/testing.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Task } from '../../sim/core/scheduler.ts';
import { INTERACT_ACROSS_USERS } from '../../sim/pm/user-handle.ts';
import type { World } from '../../sim/world.ts';
import { spawnInAsUser } from '../../sim/world-users.ts';
import type { ResolvedProviderFixture } from '../../subjects/subjects.ts';
import type { ActorName } from './model.ts';

/**
 * A provider app the scenarios install and call (src/subjects/subjects.ts, public API), resolved: in
 * properties/ a fixture always has what its provider's list_tools declares filled in.
 */
export type ProviderFixture = ResolvedProviderFixture;

/**
 * A reference app's fixture: its argument pools, the rest from its definition — what list_tools
 * declares through resolveFixtureWith (src/check/fixture.ts, the one place fixtures are derived)
 * from the definition's listTools(), the rendering the app's list_tools answers with.
 */
function referenceFixture(provider: DefinedProvider, spec: FixtureSpec): ProviderFixture {
  const fixture = provider.fixture(spec);
  const resolution = resolveFixtureWith(fixture, provider.listTools());
  if (!resolution.ok) throw new FixtureError(fixture.name, resolution.issues);
  return resolution.fixture;
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
  const toolOutputSchemas = new Map<string, unknown>();
  const toolRefusedArgs = new Map<string, ReadonlySet<string>>();
  const toolInternalFailures = new Map<string, ReadonlySet<string>>();
  for (const p of providers) {
    for (const [tool, effect] of Object.entries(p.effects))
      toolEffects.set(`${p.packageName}|${tool}`, effect);
    for (const [tool, scopes] of Object.entries(p.scopes)) toolScopes.set(`${p.packageName}|${tool}`, scopes);
    for (const [tool, policy] of Object.entries(p.confirmations ?? {}))
      toolConfirmations.set(`${p.packageName}|${tool}`, policy);
    for (const [tool, schema] of Object.entries(p.inputSchemas ?? {}))
      toolInputSchemas.set(`${p.packageName}|${tool}`, schema);
    for (const [tool, schema] of Object.entries(p.outputSchemas ?? {}))
      toolOutputSchemas.set(`${p.packageName}|${tool}`, schema);
    for (const [tool, args] of Object.entries(p.refusedArgs ?? {}))
      toolRefusedArgs.set(`${p.packageName}|${tool}`, new Set(args.map((a) => canonicalize(a) ?? '')));
    for (const [tool, args] of Object.entries(p.internalFailures ?? {}))
      toolInternalFailures.set(`${p.packageName}|${tool}`, new Set(args.map((a) => canonicalize(a) ?? '')));
  }
  return {
    providersUnderTest: providers.map((p) => p.packageName),
    toolEffects,
    toolScopes,
    toolConfirmations,
    toolInputSchemas,
    toolOutputSchemas,
    toolRefusedArgs,
    toolInternalFailures,
    toolApprovalRequired: new Map(
      providers.flatMap((p) =>
        Object.entries(p.approvalRequired ?? {}).map(([tool, f]) => [`${p.packageName}|${tool}`, f] as const),
      ),
    ),
    userGrantedScopes: new Map(providers.map((p) => [p.packageName, p.userGrantedScopes])),
    resumeTokenTtlMs: new Map(
      providers.flatMap((p) =>
        p.resumeTokenTtlMs === undefined ? [] : [[p.packageName, p.resumeTokenTtlMs]],
      ),
    ),
    toolRequiredScopes: new Map(
      providers.flatMap((p) =>
        Object.entries(p.requiredScopes ?? {}).map(
          ([tool, scopes]) => [`${p.packageName}|${tool}`, scopes] as const,
        ),
      ),
    ),
    bookkeepingTables: new Map(providers.map((p) => [p.packageName, new Set(p.bookkeepingTables ?? [])])),
    ...rest,
  };
}

export const ACTOR_PACKAGES: Readonly<Record<ActorName, string>> = {
  a: 'com.fuzz.agent.a',
  b: 'com.fuzz.agent.b',
  s1: 'com.fuzz.shared.one',
  s2: 'com.fuzz.shared.two',
  a10: 'com.fuzz.agent.a',
};

/** The user an actor's app runs in: a10 is user 10's copy of a's package, every other actor user 0's. */
export const ACTOR_USERS: Readonly<Partial<Record<ActorName, number>>> = { a10: 10 };

/**
 * Installs the actors' apps. With a10 among them, a's package is installed for users 0 and 10
 * (`installExistingPackageAsUser`: one appId, two UIDs) and is platform-signed with
 * INTERACT_ACROSS_USERS, so its user-10 copy may address user 0's providers as `0@authority`
 * (FIDELITY.md row 35.8c) — the provider then sees the user-10 UID.
 */
export function installActors(world: World, actors: readonly ActorName[]): void {
  const crossUser = actors.includes('a10');
  for (const actor of new Set(actors.map((a) => (a === 'a10' ? 'a' : a)))) {
    const pkg = ACTOR_PACKAGES[actor];
    const shared = actor === 's1' || actor === 's2';
    if (actor === 'a' && crossUser) {
      const spec = agentPackage(pkg, 'android-platform');
      const manifest = { ...spec.manifest, usesPermissions: [INTERACT_ACROSS_USERS] };
      world.install({ ...spec, manifest }, () => ({}));
      world.pm.installExistingPackageAsUser(pkg, ACTOR_USERS.a10 ?? 10);
      continue;
    }
    world.install(
      agentPackage(pkg, shared ? 'fuzz-shared-key' : `${pkg}-key`, shared ? 'com.fuzz.shared' : undefined),
      () => ({}),
    );
  }
}

/** World.spawnIn in the actor's app, in the actor's user (a10: user 10's process of a's package). */
export function spawnActor(
  world: World,
  actor: ActorName,
  name: string,
  body: (context: AppContext) => Promise<void>,
): Task {
  const pkg = ACTOR_PACKAGES[actor];
  const user = ACTOR_USERS[actor];
  const uid = user === undefined ? null : world.pm.getPackageUidAsUser(pkg, user);
  return uid === null ? world.spawnIn(pkg, name, body) : spawnInAsUser(world, pkg, uid, name, body);
}

/** The provider options a variant sets: planted bugs, ablated rules and readings (src/protocol/readings.ts). */
export const providerOptions = providerOptionsFor;

export const ALERTS: ProviderFixture = referenceFixture(ALERTS_PROVIDER, {
  name: 'alerts',
  tools: {
    get_quote: [{ symbol: 'AAPL' }, { symbol: 'DLST' }, { symbol: 'NOPE' }],
    list_alerts: [{}],
    create_alert: [
      { symbol: 'AAPL', price: 190 },
      { symbol: 'AAPL', price: 400 },
      { symbol: 'MSFT', price: 410 },
      { symbol: 'AAPL', price: 191 },
      // Schema-valid, but more than 10× the quote: the app's business rules refuse it (7.3-04).
      { symbol: 'AAPL', price: 5000 },
    ],
    // The caller's own latest alert first: a delete that can pass business validation and reach the
    // confirmation (with fixed ids alone, no fuzzed delete ever did), then ids that may be anyone's.
    delete_alert: [{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }, { alert_id: 'ALRT-2' }],
  },
  refusedArgs: { create_alert: [{ symbol: 'AAPL', price: 5000 }] },
  // The quote feed fails for a delisted symbol (an internal error the SDK must not leak, 5-25).
  internalFailures: { get_quote: [{ symbol: 'DLST' }] },
});

// `$UID` and `$OWN:field` in args pools (placeholders.ts).
export { fillArgs, UID_PLACEHOLDER } from './placeholders.ts';

const IBAN = 'DE89370400440532013000';

export const PAYMENTS: ProviderFixture = referenceFixture(PAYMENTS_PROVIDER, {
  name: 'payments',
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
      // The legacy savings core breaks the output schema: only the SDK's own check (4.2-03) stops it.
      { account: 'SAV-$UID', months: 1 },
    ],
    reconcile_accounts: [{}],
  },
  // The legacy savings core's statement breaks the output schema: the SDK answers INTERNAL_ERROR (4.2-03).
  internalFailures: { export_statement: [{ account: 'SAV-$UID', months: 1 }] },
});
