/**
 * Descriptors as untrusted input and routing (spec §3.1 – §3.3, §7.3): what the consumer accepts,
 * rejects, clips, and how it routes calls.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../base/json.ts';
import { DRAFT_2020_12 } from '../protocol/index.ts';
import { alertsApp, alertsPackage, createAlert } from '../providers/apps/alerts.ts';
import { World } from '../sim/world.ts';
import { consumerApp, consumerPackage } from './app.ts';
import * as kit from './testing.ts';

/** A world with one scripted provider listing `tools` (answers `{}` unless `answer` says otherwise). */
async function listing(tools: JsonObject[], providerInfo?: JsonObject) {
  const world = kit.consumerWorld({ providers: [] });
  kit.installScripted(world, { tools, ...(providerInfo ? { providerInfo } : {}) });
  const { value, report } = await kit.runConsumer(world, async (b) => ({
    tools: (await b.listTools()).map((t) => t.name),
    status: b.providers()[0],
  }));
  return { ...value, report, world };
}

describe('tool descriptors', () => {
  it('CETP-3.2-10: unknown fields in provider info, tools and annotations are ignored', async () => {
    const r = await listing(
      [kit.toolDescriptor('lookup', { x_future: { nested: true } }, { x_color: 'blue' })],
      {
        provider_id: kit.SCRIPTED_PACKAGE,
        provider_name: 'S',
        description: 'd',
        scopes: [],
        x_tier: 'gold',
      },
    );
    expect(r.tools).toEqual(['lookup']);
  });

  it('CETP-3.2-11: a tool missing a required field is not used; the other tools are', async () => {
    const missing = kit.toolDescriptor('broken');
    delete missing.output_schema;
    const noEffect = kit.toolDescriptor('no_effect');
    delete (noEffect.annotations as JsonObject).effect;
    const r = await listing([missing, noEffect, kit.toolDescriptor('fine')]);
    expect(r.tools).toEqual(['fine']);
    expect(r.status?.state).toBe('ready');
  });

  it('CETP-3.2-12: an unknown security enum value (effect="archive", confirmation="sometimes") disables that tool, never defaults', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [
        kit.toolDescriptor('archive', {}, { effect: 'archive' }),
        kit.toolDescriptor('sometimes', {}, { confirmation: 'sometimes' }),
        kit.toolDescriptor('fine'),
      ],
    });
    const { value } = await kit.runConsumer(world, async (b) => ({
      tools: (await b.listTools()).map((t) => t.name),
      call: await b.execute(kit.SCRIPTED_PACKAGE, 'archive', {}),
    }));
    expect(value.tools).toEqual(['fine']);
    expect(value.call.kind).toBe('tool_not_found');
    expect(kit.consumerCalls(world).filter((c) => c.method === 'execute_tool')).toEqual([]);
  });

  it('CETP-3.2-09: a $ref to another document is rejected; a same-document #/$defs reference resolves and is enforced', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [
        kit.toolDescriptor('remote', { input_schema: { $ref: 'https://schemas.example/x.json' } }),
        kit.toolDescriptor('local', {
          output_schema: {
            $defs: { id: { type: 'string', pattern: '^A-[0-9]+$' } },
            type: 'object',
            properties: { id: { $ref: '#/$defs/id' } },
            required: ['id'],
          },
        }),
      ],
      answer: (c) =>
        c.method === 'execute_tool'
          ? kit.success(c.requestId, { kind: 'inline', value: { id: 'B-1' } })
          : undefined,
    });
    const { value } = await kit.runConsumer(world, async (b) => ({
      tools: (await b.listTools()).map((t) => t.name),
      call: await b.execute(kit.SCRIPTED_PACKAGE, 'local', {}),
    }));
    expect(value.tools).toEqual(['local']);
    expect(value.call).toMatchObject({ kind: 'integrity', check: 'output_schema' });
  });

  it('CETP-3.2-07: schemas are Draft 2020-12 — prefixItems is enforced on results', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [
        kit.toolDescriptor('pair', {
          output_schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
        }),
      ],
      answer: (c) =>
        c.method === 'execute_tool'
          ? kit.success(c.requestId, { kind: 'inline', value: c.n === 1 ? ['a', 1] : [1, 'a'] })
          : undefined,
    });
    const { value } = await kit.runConsumer(world, async (b) => [
      (await b.execute(kit.SCRIPTED_PACKAGE, 'pair', {})).kind,
      (await b.execute(kit.SCRIPTED_PACKAGE, 'pair', {})).kind,
    ]);
    expect(value).toEqual(['ok', 'integrity']);
  });

  it('CETP-3.2-06: a session whose schema_dialect is not one the consumer implements disables the provider', async () => {
    const r = await listing([kit.toolDescriptor('lookup')], {
      provider_id: kit.SCRIPTED_PACKAGE,
      provider_name: 'S',
      description: 'd',
      scopes: [],
      schema_dialect: 'http://json-schema.org/draft-04/schema#',
    });
    expect(r.tools).toEqual([]);
    expect(r.status).toMatchObject({ state: 'disabled', reason: 'invalid_provider_info' });
    const ok = await listing([
      kit.toolDescriptor('lookup', { input_schema: { $schema: DRAFT_2020_12, type: 'object' } }),
    ]);
    expect(ok.tools).toEqual(['lookup']);
  });

  it('CETP-7.3-02: schemas that are not valid schemas, and list_tools data that is not JSON, are rejected without a crash', async () => {
    const r = await listing([
      kit.toolDescriptor('bad_type', { input_schema: { type: 5 } }),
      kit.toolDescriptor('bad_pattern', { output_schema: { type: 'string', pattern: '(' } }),
      kit.toolDescriptor('fine'),
    ]);
    expect(r.tools).toEqual(['fine']);
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      answer: (c) => {
        if (c.method !== 'list_tools') return undefined;
        const b = kit.success(c.requestId, {});
        b.putString('data', '{"revision": "r", "tools": [');
        return b;
      },
    });
    const { value, report } = await kit.runConsumer(world, (b) => b.connectAll());
    expect(value[0]).toMatchObject({ state: 'disabled', reason: 'invalid_list_tools' });
    expect(report.crashes).toEqual([]);
  });

  it('CETP-7.3-01: titles and descriptions are clipped before they reach the agent', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [kit.toolDescriptor('lookup', { title: 'T'.repeat(10_000), description: 'D'.repeat(50_000) })],
    });
    const { value } = await kit.runConsumer(world, (b) => b.listTools());
    expect(value[0]?.title.text.length).toBeLessThanOrEqual(120);
    expect(value[0]?.description.text.length).toBeLessThanOrEqual(1_000);
    expect(value[0]?.description.truncated).toBe(true);
  });
});

describe('routing', () => {
  it('CETP-3.1-07: two providers with a create_alert tool — each call reaches the provider named in the routing key', async () => {
    const world = new World({ recordContentCalls: true, user: { kind: 'scripted', decisions: ['approve'] } });
    world.install(alertsPackage(), alertsApp());
    kit.installScripted(world, {
      tools: [
        {
          ...kit.toolDescriptor('create_alert'),
          input_schema: createAlert.inputSchema,
          output_schema: createAlert.outputSchema,
        },
      ],
      answer: (c) =>
        c.method === 'execute_tool'
          ? kit.success(c.requestId, { kind: 'inline', value: { alert_id: 'S-1' } })
          : undefined,
    });
    world.install(consumerPackage(), consumerApp());
    const { value } = await kit.runConsumer(world, async (b) => [
      await b.execute(kit.SCRIPTED_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 190 }),
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 190 }),
    ]);
    expect(value.map((o) => (o.kind === 'ok' ? [o.providerId, o.untrusted.value] : o.kind))).toEqual([
      [kit.SCRIPTED_PACKAGE, { alert_id: 'S-1' }],
      [kit.ALERTS_PACKAGE, { alert_id: 'ALRT-1' }],
    ]);
    expect(kit.effectNotes(world)).toHaveLength(1);
    const exec = kit
      .consumerCalls(world)
      .filter((c) => c.method === 'execute_tool')
      .map((c) => c.provider);
    expect(exec[0]).toBe(kit.SCRIPTED_PACKAGE);
    expect(exec.slice(1).every((p) => p === kit.ALERTS_PACKAGE)).toBe(true);
  });

  it('CETP-3.1-06: the local display name is display only — two providers with the same name keep separate routes', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {});
    kit.installScripted(world, { packageName: 'com.example.scripted2', authority: 'scripted2' });
    const { value } = await kit.runConsumer(world, (b) => b.listTools());
    // Both are named "Scripted"; the display name is built from the checked provider_id and tool name
    // only (never the provider's own name or title: 7.3-01, 4.2-04), and each keeps its own route.
    expect(value.map((t) => [t.providerId, t.displayName, t.title.text])).toEqual([
      [kit.SCRIPTED_PACKAGE, `${kit.SCRIPTED_PACKAGE} › lookup`, 'Tool lookup'],
      ['com.example.scripted2', 'com.example.scripted2 › lookup', 'Tool lookup'],
    ]);
  });

  it('CETP-3.1-02: a provider_id claimed by two packages routes only to the package that owns it', async () => {
    const world = kit.consumerWorld({ providers: [] });
    // com.example.scripted claims com.example.scripted.x (under its namespace), as does the package of that name.
    kit.installScripted(world, { providerId: 'com.example.scripted.x' });
    kit.installScripted(world, { packageName: 'com.example.scripted.x', authority: 'scripted-x' });
    const { value } = await kit.runConsumer(world, async (b) => {
      await b.listTools();
      return b.execute('com.example.scripted.x', 'lookup', {});
    });
    expect(value.kind).toBe('ok');
    const exec = kit.consumerCalls(world).filter((c) => c.method === 'execute_tool');
    expect(exec.map((c) => c.provider)).toEqual(['com.example.scripted.x']);
  });
});
