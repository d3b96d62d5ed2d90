/**
 * Provider conformance, spec §3: identity, provider info, tool listing and revision, annotations,
 * scopes, and the start-up validation that keeps bad descriptors off the wire.
 */
import { describe, expect, it } from 'vitest';
import { checkToolList, DRAFT_2020_12, EFFECTS, isToolName, RISKS } from '../../protocol/index.ts';
import { ALERTS_PACKAGE, alertsApp, alertsPackage } from '../apps/alerts.ts';
import type { MutationTool, ProviderTool } from '../sdk/types.ts';
import * as kit from '../testing.ts';

type Tool = {
  name: string;
  annotations: Record<string, unknown>;
  input_schema: object;
  output_schema: object;
};

async function listedNames(tools: readonly ProviderTool[], extra = {}): Promise<string[]> {
  const world = kit.testProviderWorld({ tools, ...extra });
  let names: string[] = [];
  await kit.runNegotiated(world, async (c) => {
    names = (kit.data(await c.method('list_tools')).tools as Tool[]).map((t) => t.name);
  });
  return names;
}

describe('§3.1 identity and names', () => {
  it('CETP-3.1-01 CETP-3.1-05 CETP-3.2-02: provider_id, tool names and scope names are the same across sessions and restarts', async () => {
    const world = kit.alertsWorld();
    const seen: string[] = [];
    await kit.runAgent(world, async (c) => {
      for (let i = 0; i < 2; i++) {
        const id = kit.data(await c.negotiate().catch(() => c.negotiate())).provider_id as string;
        const tools = (kit.data(await c.method('list_tools')).tools as Tool[]).map((t) => t.name).join(',');
        const scopes = (kit.data(await c.method('get_provider_info')).scopes as { name: string }[]).map(
          (s) => s.name,
        );
        seen.push(`${id}|${tools}|${scopes.join(',')}`);
        world.killProcess(ALERTS_PACKAGE, { kind: 'killed', reason: 'test' });
      }
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
  });

  it('CETP-3.1-02: a provider_id outside the package namespace is refused: no v2 service', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.readTool('ping', () => ({}))],
      descriptor: { providerId: 'com.example.testing' },
    });
    await kit.runOnTest(world, async (c) => {
      expect(kit.status(await c.negotiate())).toBe('error:INTERNAL_ERROR');
    });
  });

  it('CETP-3.1-03: a tool whose name breaks [a-z][a-z0-9_]{0,63} is never listed', async () => {
    const names = await listedNames([
      kit.readTool('Bad-Name', () => ({})),
      kit.readTool('good_name', () => ({})),
    ]);
    expect(names).toEqual(['good_name']);
    expect(names.every(isToolName)).toBe(true);
  });

  it('CETP-3.1-04: duplicate tool names disable every tool of that name', async () => {
    expect(
      await listedNames([
        kit.readTool('dup', () => ({})),
        kit.readTool('dup', () => ({})),
        kit.readTool('ok', () => ({})),
      ]),
    ).toEqual(['ok']);
  });
});

describe('§3.2 provider info and schemas', () => {
  it('CETP-3.2-01 CETP-4-02 CETP-3.2-03 CETP-3.2-04: get_provider_info returns identity, description and a valid scope catalogue', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const info = kit.data(await c.method('get_provider_info'));
      expect(info).toMatchObject({
        provider_id: ALERTS_PACKAGE,
        provider_name: 'Example App',
        schema_dialect: DRAFT_2020_12,
      });
      expect(typeof info.description).toBe('string');
      for (const s of info.scopes as { name: string; access: string; sensitivity: string }[]) {
        expect(s.name).toMatch(/^[a-z][a-z0-9_.-]{0,127}$/);
        expect(['read', 'write']).toContain(s.access);
        expect(['public', 'personal', 'financial', 'health', 'device', 'other']).toContain(s.sensitivity);
      }
    });
  });

  it('CETP-3.2-03: a scope catalogue with an invalid scope name is refused', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.readTool('ping', () => ({}))],
      descriptor: { scopes: [{ name: 'Bad Scope', description: 'x', access: 'read', sensitivity: 'other' }] },
    });
    await kit.runOnTest(world, async (c) => {
      expect(kit.status(await c.negotiate())).toBe('error:INTERNAL_ERROR');
    });
  });

  it('CETP-3.2-06 CETP-3.2-07: every served schema is Draft 2020-12 under the declared dialect', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const list = kit.data(await c.method('list_tools'));
      const checked = checkToolList(list, {
        negotiatedCapabilities: ['async_operations', 'cancellation', 'large_results'],
      });
      expect(checked.rejected).toEqual([]);
      expect(checked.accepted).toHaveLength(4);
    });
  });

  it('CETP-3.2-08 CETP-3.2-09: a tool whose schema references the network (or another document) is never listed', async () => {
    const remote = kit.readTool('remote_ref', () => ({}), {
      inputSchema: { $ref: 'https://schemas.example.com/args.json' },
    });
    const other = kit.readTool('other_doc', () => ({}), { inputSchema: { $ref: 'other.json#/defs/a' } });
    const local = kit.readTool('local_ref', () => ({}), {
      inputSchema: { $defs: { a: { type: 'object' } }, $ref: '#/$defs/a' },
    });
    expect(await listedNames([remote, other, local])).toEqual(['local_ref']);
  });

  it('CETP-3.2-10: unknown fields on a tool object are ignored (the tool is still served)', async () => {
    const tool = { ...kit.readTool('with_extras', () => ({})), x_vendor_hint: 'ignored' } as ProviderTool;
    expect(await listedNames([tool])).toEqual(['with_extras']);
  });

  it('CETP-3.2-11: a tool missing a required descriptor field is never served', async () => {
    const noOutput = {
      ...kit.readTool('no_output', () => ({})),
      outputSchema: undefined,
    } as unknown as ProviderTool;
    expect(await listedNames([noOutput, kit.readTool('fine', () => ({}))])).toEqual(['fine']);
  });

  it('CETP-3.2-12 CETP-3.4-01: a tool with an unknown security enum value (effect=archive) is never served', async () => {
    const archive = kit.writeTool('archive_it', {
      annotations: kit.annotations({ effect: 'archive' as 'create' }),
    });
    expect(await listedNames([archive, kit.writeTool('fine')])).toEqual(['fine']);
  });
});

describe('§3.3 list_tools', () => {
  it('CETP-4-03 CETP-7.2-01: only the tools visible to the caller are listed', async () => {
    const hiddenFromOthers = kit.readTool('private_tool', () => ({}), {
      isVisibleTo: (caller) => caller.packages.includes(kit.AGENT),
    });
    const world = kit.testProviderWorld({
      tools: [hiddenFromOthers, kit.readTool('public_tool', () => ({}))],
    });
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    const lists: Record<string, string[]> = {};
    for (const agent of [kit.AGENT, kit.OTHER_AGENT]) {
      world.spawnIn(agent, 'list', async (ctx) => {
        const c = new kit.RawClient(ctx, 'com.example.test.clawseed.tools');
        await c.negotiate();
        lists[agent] = (kit.data(await c.method('list_tools')).tools as Tool[]).map((t) => t.name);
      });
    }
    await world.run();
    expect(lists[kit.AGENT]).toEqual(['private_tool', 'public_tool']);
    expect(lists[kit.OTHER_AGENT]).toEqual(['public_tool']);
  });

  it('CETP-3.3-03: revision changes when the tool set changes (provider update) and when served semantics differ', async () => {
    const world = kit.alertsWorld();
    const revisions: string[] = [];
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      revisions.push(kit.data(await c.method('list_tools')).revision as string);
      await c.negotiate(['large_results']);
      revisions.push(kit.data(await c.method('list_tools')).revision as string);
      await c.negotiate();
      revisions.push(kit.data(await c.method('list_tools')).revision as string);
    });
    // async session vs sync-only session: create_alert is served as sync_or_async vs sync.
    expect(revisions[0]).not.toBe(revisions[1]);
    expect(revisions[0]).toBe(revisions[2]);

    const changed = kit.testProviderWorld({ tools: [kit.readTool('a', () => ({}))] });
    const before: string[] = [];
    await kit.runNegotiated(changed, async (c) => {
      before.push(kit.data(await c.method('list_tools')).revision as string);
    });
    const after = kit.testProviderWorld({
      tools: [kit.readTool('a', () => ({})), kit.readTool('b', () => ({}))],
    });
    await kit.runNegotiated(after, async (c) => {
      before.push(kit.data(await c.method('list_tools')).revision as string);
    });
    expect(before[0]).not.toBe(before[1]);
  });
});

describe('§3.4 annotations', () => {
  it('CETP-3.4-01 … CETP-3.4-07: served annotations carry every field with a valid value', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      for (const t of kit.data(await c.method('list_tools')).tools as Tool[]) {
        const a = t.annotations;
        expect(EFFECTS).toContain(a.effect);
        expect(RISKS).toContain(a.risk);
        for (const b of ['destructive', 'idempotent', 'open_world']) expect(typeof a[b]).toBe('boolean');
        expect(['never', 'provider_policy', 'always']).toContain(a.confirmation);
        expect(['sync', 'sync_or_async']).toContain(a.execution);
      }
    });
  });

  it('CETP-3.4-09 CETP-10-02: delete, transaction, destructive or high-risk tools without confirmation=always are refused', async () => {
    const bad = [
      kit.writeTool('del', { annotations: kit.annotations({ effect: 'delete' }) }),
      kit.writeTool('pay', { annotations: kit.annotations({ effect: 'transaction' }) }),
      kit.writeTool('wipe', { annotations: kit.annotations({ destructive: true }) }),
      kit.writeTool('risky', { annotations: kit.annotations({ risk: 'high' }) }),
    ];
    const good = kit.writeTool('safe_delete', {
      annotations: kit.annotations({ effect: 'delete', confirmation: 'always' }),
    });
    expect(await listedNames([...bad, good])).toEqual(['safe_delete']);
    const world = kit.testProviderWorld({ tools: bad });
    await kit.runNegotiated(world, async (c) => {
      expect(kit.status(await c.execute('del', {}))).toBe('error:TOOL_NOT_FOUND');
    });
  });

  it('CETP-3.4-10: execution=sync_or_async is served only in a session that negotiated async_operations', async () => {
    const world = kit.alertsWorld();
    const seen: string[] = [];
    await kit.runAgent(world, async (c) => {
      for (const caps of [['async_operations'], ['cancellation']]) {
        await c.negotiate(caps);
        const create = (kit.data(await c.method('list_tools')).tools as Tool[]).find(
          (t) => t.name === 'create_alert',
        );
        seen.push(String(create?.annotations.execution));
      }
    });
    expect(seen).toEqual(['sync_or_async', 'sync']);
  });

  it('CETP-3.4-08: a read tool changes no business state', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const before = world.trace.ofKind('store.commit').length;
      expect(kit.status(await c.execute('get_quote', { symbol: 'AAPL' }))).toBe('success');
      expect(kit.status(await c.execute('list_alerts', {}))).toBe('success');
      expect(world.trace.ofKind('store.commit').length).toBe(before);
    });
  });

  it('CETP-3.4-11: annotations are not a security boundary: the provider re-checks at execution whatever the request claims', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      await c.executeResolving('create_alert', { symbol: 'AAPL', price: 190 });
      const reply = await c.execute(
        'delete_alert',
        { alert_id: 'ALRT-1' },
        {
          extra: (b) => {
            b.putString('confirmation', 'never');
            b.putBoolean('confirmed', true);
          },
        },
      );
      expect(kit.status(reply)).toBe('error:USER_ACTION_REQUIRED');
    });
  });

  it('CETP-3.4-12: a runtime risk above the declaration gets the stricter policy (confirmation for a far-off alert price)', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      await c.executeResolving('create_alert', { symbol: 'AAPL', price: 190 });
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 195 }))).toBe('success');
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 400 }))).toBe(
        'error:USER_ACTION_REQUIRED',
      );
    });
  });

  it('CETP-3.4-14 CETP-3.4-15 CETP-3.4-16 CETP-5-08: a missing scope is AUTH_REQUIRED (never degraded data); the full scope set is enforced', async () => {
    const partial = kit.readTool('needs_both', () => ({ secret: 42 }), {
      scopes: ['test.read', 'test.write'],
    });
    const world = kit.testProviderWorld({
      tools: [partial],
      authorize: (req) =>
        req.scopes.every((s) => s === 'test.read')
          ? { kind: 'allow' }
          : { kind: 'needs_grant', scopes: ['test.write'] },
    });
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute('needs_both', {});
      expect(kit.status(reply)).toBe('error:AUTH_REQUIRED');
      expect(reply.containsKey('data')).toBe(false);
      expect(reply.getBoolean('retryable', true)).toBe(false);
      expect(reply.getString('resume_token')).toBeTruthy();
    });
  });
});

describe('§3 misc', () => {
  it('CETP-3.2-05 CETP-10-11: the scope catalogue is information; the provider enforces authorization itself', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.readTool('guarded', () => ({ ok: true }), { scopes: ['test.read'] })],
      authorize: () => ({ kind: 'deny', reason: 'Not for you.' }),
    });
    await kit.runNegotiated(world, async (c) => {
      const info = kit.data(await c.method('get_provider_info'));
      expect((info.scopes as unknown[]).length).toBe(2);
      expect(kit.status(await c.execute('guarded', {}))).toBe('error:PERMISSION_DENIED');
    });
    expect(kit.TEST_PACKAGE).toBe('com.example.test');
    expect(alertsPackage).toBeTypeOf('function');
    expect(alertsApp).toBeTypeOf('function');
    const tool: MutationTool | null = null;
    expect(tool).toBeNull();
  });
});
