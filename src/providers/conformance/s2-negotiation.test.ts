/**
 * Provider conformance, spec §2: discovery meta-data, negotiate, sessions, limits, capabilities.
 * Every test talks to a provider over simulated Binder and names the rule it shows.
 */
import { describe, expect, it } from 'vitest';
import { LIMIT_MINIMUMS, utf8Length } from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { ALERTS_AUTHORITY, ALERTS_PACKAGE } from '../apps/alerts.ts';
import {
  META_AUTHORITY,
  META_VERSION,
  META_VERSIONS,
  providerPackage,
  TOOL_PROVIDER_ACTION,
} from '../sdk/manifest.ts';
import * as kit from '../testing.ts';

function serviceMeta(world: ReturnType<typeof kit.alertsWorld>, pkg: string): Record<string, string> {
  const found = world.pm
    .queryIntentServices(world.pm.getPackageUid(kit.AGENT) as number, TOOL_PROVIDER_ACTION)
    .find((s) => s.packageName === pkg);
  return { ...(found?.metaData ?? {}) };
}

describe('§2.1 discovery meta-data', () => {
  it('CETP-2.1-01 CETP-2.1-02 CETP-2.1-03: a dual-stack provider keeps the v1 action, authority and version=1, and declares versions="1,2"', () => {
    const world = kit.alertsWorld();
    expect(serviceMeta(world, ALERTS_PACKAGE)).toEqual({
      [META_AUTHORITY]: ALERTS_AUTHORITY,
      [META_VERSION]: '1',
      [META_VERSIONS]: '1,2',
    });
  });

  it('CETP-2.1-07: a v2-only provider declares version=2 and versions="2"', () => {
    const spec = providerPackage({ packageName: 'com.example.v2only', authority: 'v2only', versions: [2] });
    const meta = spec.manifest.services?.[0]?.metaData ?? {};
    expect([meta[META_VERSION], meta[META_VERSIONS]]).toEqual(['2', '2']);
  });
});

describe('§2.2 negotiate', () => {
  it('CETP-2.2-04 CETP-4-01: success is status="success" with data JSON carrying version, identity, token, capabilities and limits', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const reply = await c.negotiate();
      expect(reply.getString('status')).toBe('success');
      expect(reply.typeOf('data')).toBe('String');
      expect(kit.data(reply)).toMatchObject({
        selected_version: 2,
        provider_id: ALERTS_PACKAGE,
        provider_name: 'Example App',
        capabilities: ['async_operations', 'cancellation', 'large_results'],
      });
      expect(typeof kit.data(reply).session_token).toBe('string');
    });
  });

  it('CETP-2.2-05: the highest common version is selected (v2 from [3, 2, 1])', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      expect(kit.data(await c.negotiate(undefined, [3, 2, 1])).selected_version).toBe(2);
    });
  });

  it('CETP-2.2-06: only capabilities both sides support are returned', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const reply = await c.negotiate(['large_results', 'teleportation']);
      expect(kit.data(reply).capabilities).toEqual(['large_results']);
    });
  });

  it('CETP-2.2-15 CETP-5-05: no common version is UNSUPPORTED_VERSION with retryable=false', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const reply = await c.negotiate(undefined, [3]);
      expect(kit.status(reply)).toBe('error:UNSUPPORTED_VERSION');
      expect(reply.getBoolean('retryable', true)).toBe(false);
    });
  });

  it('CETP-2.2-16: a v2-only provider does not silently treat a call without protocol_version (or version 3) as v2', async () => {
    const world = kit.testProviderWorld({ tools: [kit.readTool('ping', () => ({}))], versions: [2] });
    await kit.runNegotiated(world, async (c) => {
      const noVersion = c.envelope();
      noVersion.remove('protocol_version');
      expect(kit.status(await c.call('list_tools', noVersion))).toBe('error:UNSUPPORTED_VERSION');
      const v3 = c.envelope();
      v3.putInt('protocol_version', 3);
      expect(kit.status(await c.call('list_tools', v3))).toBe('error:UNSUPPORTED_VERSION');
    });
  });

  it('CETP-2.2-17 CETP-2.2-18 CETP-2.2-19 CETP-2.2-20: negotiated limits are at or above the minimums', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const limits = kit.data(await c.negotiate()).limits as Record<string, number>;
      for (const [name, min] of Object.entries(LIMIT_MINIMUMS))
        expect(limits[name]).toBeGreaterThanOrEqual(min);
    });
  });

  it('CETP-2.2-08: the session token is at most 256 bytes', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const token = kit.data(await c.negotiate()).session_token as string;
      expect(utf8Length(token)).toBeLessThanOrEqual(256);
      expect(token.length).toBeGreaterThan(16);
    });
  });
});

describe('§2.2 sessions', () => {
  it('CETP-2.2-09 CETP-5-07: a token presented by another UID is refused with NEGOTIATION_REQUIRED (retryable)', async () => {
    const world = kit.alertsWorld();
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    let stolen = '';
    const replies: Bundle[] = [];
    world.spawnIn(kit.AGENT, 'victim', async (ctx) => {
      const c = new kit.RawClient(ctx);
      await c.negotiate();
      stolen = c.token;
      world.spawnIn(kit.OTHER_AGENT, 'thief', async (ctx2) => {
        const thief = new kit.RawClient(ctx2);
        thief.token = stolen;
        replies.push(await thief.method('list_tools'));
      });
    });
    await world.run();
    expect(kit.status(replies[0] ?? null)).toBe('error:NEGOTIATION_REQUIRED');
    expect(replies[0]?.getBoolean('retryable', false)).toBe(true);
  });

  it('CETP-2.2-10 CETP-2.3-02 CETP-4-05 CETP-4-06 CETP-5-06: the token is bound to its capabilities: get_operation without async_operations is UNSUPPORTED_CAPABILITY', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['large_results']);
      const reply = await c.method('get_operation', (b) => b.putString('operation_id', 'op_1'));
      expect(kit.status(reply)).toBe('error:UNSUPPORTED_CAPABILITY');
      expect(reply.getBoolean('retryable', true)).toBe(false);
      const cancel = await c.method('cancel_operation', (b) => b.putString('operation_id', 'op_1'));
      expect(kit.status(cancel)).toBe('error:UNSUPPORTED_CAPABILITY');
    });
  });

  it('CETP-2.2-14 CETP-10-04: a missing, unknown or restart-invalidated token is NEGOTIATION_REQUIRED', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const missing = c.envelope();
      missing.remove('session_token');
      expect(kit.status(await c.call('list_tools', missing))).toBe('error:NEGOTIATION_REQUIRED');
      c.token = 'forged';
      expect(kit.status(await c.method('list_tools'))).toBe('error:NEGOTIATION_REQUIRED');
      await c.negotiate();
      expect(kit.status(await c.method('list_tools'))).toBe('success');
      world.killProcess(ALERTS_PACKAGE, { kind: 'killed', reason: 'test' });
      expect(kit.status(await c.method('list_tools').catch(() => c.method('list_tools')))).toBe(
        'error:NEGOTIATION_REQUIRED',
      );
    });
  });

  it('CETP-2.2-14: an expired session is NEGOTIATION_REQUIRED', async () => {
    const world = kit.alertsWorld({ faults: [{ at: 30, fault: { kind: 'clockJump', ms: 2 * 3_600_000 } }] });
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      for (let i = 0; i < 40; i++) await c.ctx.yield();
      expect(kit.status(await c.method('list_tools'))).toBe('error:NEGOTIATION_REQUIRED');
    });
  });

  it('CETP-2.3-05: capability semantics do not change within a session (a sync-only session never gets accepted)', async () => {
    const world = kit.testProviderWorld({
      tools: [
        kit.writeTool('slow_write', {
          annotations: kit.annotations({ execution: 'sync_or_async' }),
        }),
      ],
    });
    await kit.runOnTest(world, async (c) => {
      await c.negotiate(['cancellation']);
      for (let i = 0; i < 3; i++) expect(kit.status(await c.execute('slow_write', {}))).toBe('success');
    });
  });

  it('CETP-2.3-01: a v2 provider supports annotations, output schemas, scopes, structured errors, resolution and dedup', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      const tools = kit.data(await c.method('list_tools')).tools as {
        annotations: object;
        output_schema: object;
      }[];
      expect(tools.every((t) => t.annotations && t.output_schema)).toBe(true);
      const first = await c.execute('create_alert', { symbol: 'AAPL', price: 190 });
      expect(kit.status(first)).toBe('error:AUTH_REQUIRED');
      expect(first.getPendingIntent('resolution')).not.toBeNull();
      const requestId = c.ctx.seededUuid();
      const done = await c.executeResolving('create_alert', { symbol: 'AAPL', price: 190 }, { requestId });
      const again = await c.execute('create_alert', { symbol: 'AAPL', price: 190 }, { requestId });
      expect(again.getString('data')).toBe(done.getString('data'));
    });
  });
});

describe('§2 negotiate request validation (NOTES 20)', () => {
  it('CETP-2.2-02 CETP-2.2-03: a negotiate without consumer_versions or with malformed capabilities is INVALID_REQUEST', async () => {
    const world = kit.testProviderWorld({ tools: [kit.readTool('ping', () => ({}))] });
    await kit.runOnTest(world, async (c) => {
      const noVersions = new Bundle();
      noVersions.putString('consumer_capabilities', '[]');
      expect(kit.status(await c.call('negotiate', noVersions))).toBe('error:INVALID_REQUEST');
      const badCaps = new Bundle();
      badCaps.putIntArray('consumer_versions', [2]);
      badCaps.putString('consumer_capabilities', '{"not":"an array"}');
      expect(kit.status(await c.call('negotiate', badCaps))).toBe('error:INVALID_REQUEST');
    });
    expect(kit.TEST_AUTHORITY).toContain('test');
  });
});
