/**
 * The v1-only legacy provider over simulated Binder: its manifest (version=1, no versions), the
 * assumed v1 wire (spec/interpretations.md "v1 and dual stack"), METHOD_NOT_FOUND for negotiate and
 * every other v2 method, and read-only, deterministic tools.
 */
import { describe, expect, it } from 'vitest';
import { Bundle } from '../../sim/binder/bundle.ts';
import { World } from '../../sim/world.ts';
import { CONFIRM_ACTIVITY } from '../sdk/confirmations.ts';
import { META_AUTHORITY, META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../sdk/manifest.ts';
import { AGENT, agentPackage, type RawClient, runAgentOn } from '../testing.ts';
import { LEGACY_AUTHORITY, LEGACY_CITIES, LEGACY_PACKAGE, legacyApp, legacyPackage } from './legacy.ts';

function legacyWorld(seed = 0): World {
  const world = new World({ seed, recordContentCalls: true });
  world.install(legacyPackage(), legacyApp());
  world.install(agentPackage(), () => ({}));
  return world;
}

async function runLegacy(world: World, body: (c: RawClient) => Promise<void>) {
  const report = await runAgentOn(world, LEGACY_AUTHORITY, body);
  expect(report.outcome).toEqual({ kind: 'completed' });
  return report;
}

function v1Execute(c: RawClient, tool: string, args: string): Promise<Bundle | null> {
  const b = new Bundle();
  b.putString('tool_name', tool);
  b.putString('args', args);
  return c.call('execute_tool', b);
}

function parsed(reply: Bundle | null): { status: string | null; data: unknown; code: string | null } {
  const raw = reply?.getString('data') ?? null;
  return {
    status: reply?.getString('status') ?? null,
    data: raw === null ? null : JSON.parse(raw),
    code: reply?.getString('error_code') ?? null,
  };
}

describe('legacy v1-only provider', () => {
  it('CETP-2.1-04 CETP-8-07: the manifest declares version=1 only, no versions, no confirmation Activity', () => {
    const world = legacyWorld();
    const agentUid = world.pm.getPackageUid(AGENT) ?? -1;
    const [service, ...more] = world.pm
      .queryIntentServices(agentUid, TOOL_PROVIDER_ACTION)
      .filter((s) => s.packageName === LEGACY_PACKAGE);
    expect(more).toEqual([]);
    expect(service?.metaData).toEqual({ [META_AUTHORITY]: LEGACY_AUTHORITY, [META_VERSION]: '1' });
    expect(service?.metaData[META_VERSIONS]).toBeUndefined();
    const activities = world.pm.getPackageInfo(LEGACY_PACKAGE)?.manifest.activities ?? [];
    expect(activities.map((a) => a.name)).not.toContain(CONFIRM_ACTIVITY);
  });

  it('v1 list_tools (NOTES 9): status=success, data.tools with exactly name, description and input_schema', async () => {
    await runLegacy(legacyWorld(), async (c) => {
      const reply = await c.call('list_tools', null);
      const { status, data } = parsed(reply);
      expect(status).toBe('success');
      const tools = (data as { tools: Record<string, unknown>[] }).tools;
      expect(tools.map((t) => t.name)).toEqual(['list_cities', 'get_weather']);
      for (const t of tools) expect(Object.keys(t).sort()).toEqual(['description', 'input_schema', 'name']);
      // A v1 reply has none of v2's envelope.
      expect(reply?.containsKey('protocol_version')).toBe(false);
      expect(reply?.containsKey('request_id')).toBe(false);
    });
  });

  it('CETP-4-07 (v1 reading): negotiate, get_provider_info and unknown methods are METHOD_NOT_FOUND', async () => {
    await runLegacy(legacyWorld(), async (c) => {
      const negotiate = new Bundle();
      negotiate.putIntArray('consumer_versions', [2, 1]);
      negotiate.putString('consumer_capabilities', '[]');
      for (const [method, extras] of [
        ['negotiate', negotiate],
        ['get_provider_info', c.envelope()],
        ['get_operation', c.envelope()],
        ['drop_tables', null],
      ] as const) {
        const { status, code } = parsed(await c.call(method, extras));
        expect([method, status, code]).toEqual([method, 'error', 'METHOD_NOT_FOUND']);
      }
    });
  });

  it('v1 ignores v2 extras: a list_tools carrying protocol_version=2 still gets the v1 answer', async () => {
    await runLegacy(legacyWorld(), async (c) => {
      const { status, data } = parsed(await c.call('list_tools', c.envelope()));
      expect(status).toBe('success');
      expect(data).not.toHaveProperty('revision');
      expect((data as { tools: unknown[] }).tools).toHaveLength(2);
    });
  });

  it('v1 execute_tool: the result JSON in data, deterministic for the same city and day', async () => {
    const seen: unknown[] = [];
    for (const seed of [1, 2]) {
      await runLegacy(legacyWorld(seed), async (c) => {
        const first = parsed(await v1Execute(c, 'get_weather', '{"city":"Shanghai"}'));
        const again = parsed(await v1Execute(c, 'get_weather', '{"city":"Shanghai"}'));
        expect(first.status).toBe('success');
        expect(again.data).toEqual(first.data);
        expect(first.data).toMatchObject({
          city: 'Shanghai',
          date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        });
        seen.push(first.data);
        expect(parsed(await v1Execute(c, 'list_cities', '{}')).data).toEqual({ cities: [...LEGACY_CITIES] });
      });
    }
    expect(seen[1]).toEqual(seen[0]);
  });

  it('v1 errors: unknown tool, invalid JSON, unknown city and unexpected arguments', async () => {
    await runLegacy(legacyWorld(), async (c) => {
      const cases: [string, string, string][] = [
        ['delete_city', '{}', 'TOOL_NOT_FOUND'],
        ['get_weather', '{"city":', 'INVALID_ARGS'],
        ['get_weather', '["Berlin"]', 'INVALID_ARGS'],
        ['get_weather', '{"city":"Atlantis"}', 'INVALID_ARGS'],
        ['get_weather', '{"city":"Berlin","units":"F"}', 'INVALID_ARGS'],
        ['list_cities', '{"all":true}', 'INVALID_ARGS'],
      ];
      for (const [tool, args, code] of cases) {
        const reply = await v1Execute(c, tool, args);
        expect([tool, args, parsed(reply).status, parsed(reply).code]).toEqual([tool, args, 'error', code]);
        expect(reply?.getString('error_message')).toBeTruthy();
      }
    });
  });

  it('CETP-3.4-08: the tools are read-only — no store commit, over the stable ContentResolver.call path too', async () => {
    const world = legacyWorld();
    await runLegacy(world, async (c) => {
      const b = new Bundle();
      b.putString('tool_name', 'get_weather');
      b.putString('args', '{"city":"Zurich"}');
      const reply = await c.ctx.contentResolver.call(LEGACY_AUTHORITY, 'execute_tool', null, b);
      expect(parsed(reply).status).toBe('success');
      await v1Execute(c, 'list_cities', '{}');
    });
    expect(world.storage(LEGACY_PACKAGE).commitCount).toBe(0);
  });
});
