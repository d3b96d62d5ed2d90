/**
 * Discovery and version choice (spec §2.1, §8): the consumer's side, over the simulated
 * PackageManager. Test titles name the rules they show.
 */
import { describe, expect, it } from 'vitest';
import { META_AUTHORITY, META_VERSION, META_VERSIONS } from '../protocol/discovery.ts';
import { ALERTS_AUTHORITY, alertsApp, alertsPackage } from '../providers/apps/alerts.ts';
import { legacyApp, legacyPackage } from '../providers/apps/legacy.ts';
import { World } from '../sim/world.ts';
import { consumerApp, consumerPackage } from './app.ts';
import { chooseProtocol, declaredVersions, parseVersionList } from './discovery.ts';
import { ConsumerGates } from './gates.ts';
import * as kit from './testing.ts';

const gates = new ConsumerGates();

describe('version meta-data', () => {
  it('parses comma-separated major versions and refuses anything else', () => {
    expect(parseVersionList('1,2')).toEqual([1, 2]);
    expect(parseVersionList(' 2 ')).toEqual([2]);
    expect(parseVersionList('2,x')).toBeNull();
    expect(parseVersionList('')).toBeNull();
    expect(parseVersionList('0')).toBeNull();
  });

  it('CETP-2.1-04: a manifest with only `version` declares that single version', () => {
    expect(declaredVersions({ [META_VERSION]: '1' }, gates)).toEqual([1]);
    expect(declaredVersions({ [META_VERSION]: '2' }, gates)).toEqual([2]);
    expect(declaredVersions({ [META_VERSION]: '1,2' }, gates)).toBeNull();
  });

  it('CETP-2.1-05: with both fields, `versions` is authoritative and `version` is ignored', () => {
    expect(declaredVersions({ [META_VERSION]: '1', [META_VERSIONS]: '1,2' }, gates)).toEqual([1, 2]);
    expect(declaredVersions({ [META_VERSION]: '1', [META_VERSIONS]: '1' }, gates)).toEqual([1]);
  });

  it('CETP-8-07: v1 only when v1 is declared and v2 is not', () => {
    expect(chooseProtocol([1, 2], gates)).toBe(2);
    expect(chooseProtocol([2], gates)).toBe(2);
    expect(chooseProtocol([1], gates)).toBe(1);
    expect(chooseProtocol([3], gates)).toBeNull();
  });
});

describe('discovery over PackageManager', () => {
  it('CETP-2.1-04 CETP-0-02: version=1 alone ⇒ v1 and no negotiate; version=2 alone ⇒ negotiate and no v1 call', async () => {
    const world = kit.consumerWorld({ providers: ['legacy'] });
    kit.installScripted(world, {
      patchPackage: (p) =>
        kit.withMetaData(p, { [META_AUTHORITY]: kit.SCRIPTED_AUTHORITY, [META_VERSION]: '2' }),
    });
    const { value } = await kit.runConsumer(world, (b) => b.connectAll());
    expect(value.map((p) => [p.packageName, p.version, p.state])).toEqual([
      [kit.LEGACY_PACKAGE, 1, 'ready'],
      [kit.SCRIPTED_PACKAGE, 2, 'ready'],
    ]);
    expect(kit.consumerCalls(world, kit.LEGACY_PACKAGE).map((c) => c.method)).toEqual(['list_tools']);
    const v2 = kit.consumerCalls(world, kit.SCRIPTED_PACKAGE);
    expect(v2[0]?.method).toBe('negotiate');
    expect(v2.every((c) => c.method === 'negotiate' || c.extras?.typeOf('protocol_version') === 'Int')).toBe(
      true,
    );
  });

  it('CETP-2.1-05 CETP-8-01: version=1 with versions="1,2" negotiates v2; version=1 with versions="1" stays on v1', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    kit.installScripted(world, {
      versions: [1],
      patchPackage: (p) =>
        kit.withMetaData(p, {
          [META_AUTHORITY]: kit.SCRIPTED_AUTHORITY,
          [META_VERSION]: '1',
          [META_VERSIONS]: '1',
        }),
    });
    const { value } = await kit.runConsumer(world, (b) => b.connectAll());
    expect(value.find((p) => p.packageName === kit.ALERTS_PACKAGE)?.version).toBe(2);
    expect(value.find((p) => p.packageName === kit.SCRIPTED_PACKAGE)?.version).toBe(1);
    expect(kit.consumerCalls(world, kit.ALERTS_PACKAGE)[0]?.method).toBe('negotiate');
    expect(kit.consumerCalls(world, kit.SCRIPTED_PACKAGE).some((c) => c.method === 'negotiate')).toBe(false);
  });

  it('CETP-8-07: against a dual-stack ("1,2") provider the consumer never issues a v1 call', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    await kit.runConsumer(world, async (b) => {
      await b.listTools();
      await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'SAP' });
    });
    const calls = kit.consumerCalls(world, kit.ALERTS_PACKAGE);
    expect(
      calls.filter((c) => c.method !== 'negotiate').every((c) => c.extras?.getInt('protocol_version') === 2),
    ).toBe(true);
  });

  it('CETP-2.1-08: a discovery service naming another package’s authority is refused, and that provider is never called for it', async () => {
    const world = new World({ recordContentCalls: true });
    // B serves the authority but has no discovery service of its own; it is visible to everyone.
    world.install(
      { ...alertsPackage(), manifest: { ...alertsPackage().manifest, services: [], forceQueryable: true } },
      alertsApp(),
    );
    // A declares B's authority in its discovery meta-data.
    kit.installScripted(world, { metaData: { [META_AUTHORITY]: ALERTS_AUTHORITY } });
    world.install(consumerPackage(), consumerApp());
    const { value } = await kit.runConsumer(world, async (b) => ({
      status: await b.connectAll(),
      tools: await b.listTools(),
    }));
    expect(value.status).toEqual([
      {
        packageName: kit.SCRIPTED_PACKAGE,
        authority: ALERTS_AUTHORITY,
        providerId: null,
        version: null,
        state: 'refused',
        reason: 'package_mismatch',
      },
    ]);
    expect(value.tools).toEqual([]);
    expect(kit.consumerCalls(world)).toEqual([]);
    expect(kit.auditEvents(world, 'provider.disabled')).toEqual([
      expect.objectContaining({
        package: kit.SCRIPTED_PACKAGE,
        reason: 'package_mismatch',
        temporary: false,
      }),
    ]);
  });

  it('package visibility: without <queries> for the TOOL_PROVIDER action, no provider is visible', async () => {
    const world = new World({ recordContentCalls: true });
    world.install(alertsPackage(), alertsApp());
    world.install(consumerPackage({ withoutQueries: true }), consumerApp());
    const { value } = await kit.runConsumer(world, (b) => b.listTools());
    expect(value).toEqual([]);
    expect(kit.consumerCalls(world)).toEqual([]);
  });

  it('CETP-3.1-08: install order (scan order) changes neither the tool list nor the routing', async () => {
    const lists: string[][] = [];
    for (const order of [
      ['legacy', 'alerts', 'payments'],
      ['payments', 'legacy', 'alerts'],
    ] as const) {
      const world = kit.consumerWorld({ providers: order });
      const { value } = await kit.runConsumer(world, async (b) => {
        const tools = await b.listTools();
        const q = await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'AAPL' });
        return { tools: tools.map((t) => `${t.providerId}/${t.name}`), providerId: q.providerId };
      });
      expect(value.providerId).toBe(kit.ALERTS_PACKAGE);
      lists.push(value.tools);
    }
    expect(lists[0]).toEqual(lists[1]);
  });

  it('CETP-0-01: the v1 read-only compatibility layer stays usable beside v2 providers', async () => {
    const world = new World({ recordContentCalls: true });
    world.install(legacyPackage(), legacyApp());
    world.install(alertsPackage(), alertsApp());
    world.install(consumerPackage(), consumerApp());
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.LEGACY_PACKAGE, 'list_cities', {}));
    expect(value.kind).toBe('ok');
  });
});
