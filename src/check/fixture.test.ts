/**
 * Fixtures derived from list_tools (fixture.ts): what is left out is read from the provider, what
 * is given must agree with it, and a run's planted bugs must reach the provider.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS_PROVIDER, deleteAlert, getQuote } from '../providers/apps/alerts.ts';
import { defineProvider } from '../providers/sdk/define.ts';
import { CETP_PROVIDER, providerPackage } from '../providers/sdk/manifest.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import { ContentProvider } from '../sim/content/content-provider.ts';
import type { ProviderFixture } from '../subjects/subjects.ts';
import { resolveFixtureWith, resolveProviderFixture, variantIgnored } from './fixture.ts';

const bare: ProviderFixture = ALERTS_PROVIDER.fixture({
  name: 'alerts',
  tools: { get_quote: [{ symbol: 'AAPL' }], create_alert: [{ symbol: 'AAPL', price: 190 }] },
});
const listed = ALERTS_PROVIDER.listTools();
const bug = { providerBugs: ['uid-after-await'], consumerBugs: [], disabledRules: [] };

describe('resolveFixtureWith', () => {
  it("fills effects, scopes, confirmations and input schemas from the provider's list_tools", () => {
    const r = resolveFixtureWith(bare, listed);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.fixture.effects).toEqual({
      get_quote: 'read',
      list_alerts: 'read',
      create_alert: 'create',
      delete_alert: 'delete',
      clear_alerts: 'delete',
    });
    expect(r.fixture.scopes.create_alert).toEqual(['alerts.write']);
    expect(r.fixture.confirmations?.delete_alert).toBe('always');
    expect(r.fixture.inputSchemas?.get_quote).toEqual(
      ALERTS_PROVIDER.tools.find((t) => t.name === 'get_quote')?.inputSchema,
    );
    expect(r.fixture.userGrantedScopes).toEqual(['alerts.write']);
  });

  it('accepts what agrees (scopes in any order) and names each field that contradicts list_tools', () => {
    expect(resolveFixtureWith({ ...bare, scopes: { create_alert: ['alerts.write'] } }, listed).ok).toBe(true);
    const r = resolveFixtureWith(
      {
        ...bare,
        effects: { get_quote: 'read', create_alert: 'update' },
        confirmations: { delete_alert: 'never' },
        inputSchemas: { get_quote: { type: 'object' } },
      },
      listed,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path)).toEqual([
      'effects.create_alert',
      'confirmations.delete_alert',
      'inputSchemas.get_quote',
    ]);
    expect(r.issues[0]?.message).toContain('the fixture says "update", list_tools says "create"');
  });

  it('needs a tool that list_tools does not show described by hand', () => {
    const withHidden = { ...bare, tools: { ...bare.tools, secret_tool: [{}] } };
    const r = resolveFixtureWith(withHidden, listed);
    expect(r.ok ? [] : r.issues.map((i) => i.path)).toEqual(['effects.secret_tool', 'scopes.secret_tool']);
    const described = { ...withHidden, effects: { secret_tool: 'read' }, scopes: { secret_tool: [] } };
    expect(resolveFixtureWith(described, listed).ok).toBe(true);
    const r2 = resolveFixtureWith(bare, { unavailable: 'negotiate answered UNSUPPORTED_VERSION' });
    expect(r2.ok ? '' : r2.issues[0]?.message).toContain('negotiate answered UNSUPPORTED_VERSION');
  });
});

describe('resolveProviderFixture (over the wire)', () => {
  it('reads the same as the definition renders', async () => {
    const wire = await resolveProviderFixture(bare);
    // clear_alerts is hidden from a caller without an alerts.write grant (7.2-02): not on the wire.
    const local = resolveFixtureWith(
      bare,
      listed.filter((t) => t.name !== 'clear_alerts'),
    );
    expect(local.ok && JSON.stringify(wire)).toBe(JSON.stringify(local.ok && local.fixture));
  });
});

describe('resolveProviderFixture: a tool the provider disabled at start-up', () => {
  it('is refused, naming the start-up issue, even when the fixture describes it by hand (3.4-09)', async () => {
    // A delete declared confirmation: never: the SDK disables it at start-up and never lists it.
    const never = {
      ...deleteAlert,
      annotations: { ...deleteAlert.annotations, confirmation: 'never' as const },
    };
    const { packageName, authority, descriptor } = ALERTS_PROVIDER;
    const alerts = (deleteTool: typeof deleteAlert) =>
      defineProvider({ packageName, authority, versions: [2], descriptor, tools: [getQuote, deleteTool] });
    const broken = alerts(never);
    const spec = {
      name: 'alerts',
      tools: { get_quote: [{ symbol: 'AAPL' }], delete_alert: [{ alert_id: 'ALRT-1' }] },
    };
    const byHand = broken.fixture({
      ...spec,
      effects: { delete_alert: 'delete' },
      scopes: { delete_alert: ['alerts.write'] },
    });
    await expect(resolveProviderFixture(byHand)).rejects.toThrow(
      /tools\.delete_alert: the provider disabled 'delete_alert' at start-up \(.*always.*\)/,
    );
    // The same fixture on the correct tool resolves.
    const fine = alerts(deleteAlert);
    await expect(resolveProviderFixture(fine.fixture(spec))).resolves.toMatchObject({ name: 'alerts' });
  });
});

describe('variantIgnored', () => {
  it('is null when the planted bug reaches the provider', async () => {
    expect(await variantIgnored(bare, bug)).toBeNull();
  });

  it("says so when install() drops the variant, or the provider is not the SDK's", async () => {
    const deaf = {
      ...bare,
      install: (world: Parameters<ProviderFixture['install']>[0]) =>
        bare.install(world, { ...bug, providerBugs: [] }),
    };
    expect(await variantIgnored(deaf, bug)).toMatch(
      /does not pass variant.providerBugs.*missing: uid-after-await/,
    );
    const plain: ProviderFixture = {
      ...bare,
      install: (world) =>
        world.install(
          providerPackage({ packageName: bare.packageName, authority: bare.authority, versions: [2] }),
          () => ({
            providers: {
              [CETP_PROVIDER]: new (class extends ContentProvider {
                override call = async () => new Bundle();
              })(),
            },
          }),
        ),
    };
    expect(await variantIgnored(plain, bug)).toMatch(/not built on the SDK/);
  });
});
