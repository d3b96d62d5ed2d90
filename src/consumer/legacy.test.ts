/**
 * CETP v1 from the consumer's side (spec §8): the legacy reference provider, read-only tools,
 * untrusted output, and side-effecting v1 extensions kept off by default (8-12). Also the app-level
 * options: resume on start, and determinism of a whole consumer run.
 */
import { describe, expect, it } from 'vitest';
import { LEGACY_CITIES } from '../providers/apps/legacy.ts';
import type { ToolOutcome } from './outcomes.ts';
import * as kit from './testing.ts';

describe('v1', () => {
  it('CETP-0-02: list and invoke the legacy provider’s v1 tools without negotiate', async () => {
    const world = kit.consumerWorld({ providers: ['legacy'] });
    const { value } = await kit.runConsumer(world, async (b) => ({
      tools: (await b.listTools()).map((t) => [t.name, t.version, t.annotations]),
      cities: await b.execute(kit.LEGACY_PACKAGE, 'list_cities', {}),
      unknown: await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Atlantis' }),
      shape: await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { town: 'Berlin' }),
    }));
    expect(value.tools).toEqual([
      ['get_weather', 1, null],
      ['list_cities', 1, null],
    ]);
    expect(value.cities).toMatchObject({
      kind: 'ok',
      requestId: null,
      untrusted: { value: { cities: [...LEGACY_CITIES] } },
    });
    expect(value.unknown).toMatchObject({ kind: 'rejected', code: 'INVALID_ARGS' });
    expect(value.shape).toMatchObject({ kind: 'invalid_args' });
    expect(kit.consumerCalls(world, kit.LEGACY_PACKAGE).map((c) => c.method)).toEqual([
      'list_tools',
      'execute_tool',
      'execute_tool',
    ]);
  });

  it('CETP-8-12: a v1 tool known to have side effects is hidden and refused unless the user approves the call locally', async () => {
    const sideEffect = [`${kit.LEGACY_PACKAGE}/get_weather`];
    const off = kit.consumerWorld({ providers: ['legacy'], consumer: { v1SideEffectTools: sideEffect } });
    const hidden = await kit.runConsumer(off, async (b) => ({
      tools: (await b.listTools()).map((t) => t.name),
      call: await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Berlin' }),
    }));
    expect(hidden.value.tools).toEqual(['list_cities']);
    expect(hidden.value.call.kind).toBe('tool_not_found');
    const on = kit.consumerWorld({
      providers: ['legacy'],
      consumer: { v1SideEffectTools: sideEffect, localApproval: 'activity' },
      world: { user: { kind: 'scripted', decisions: ['approve', 'deny'] } },
    });
    const asked = await kit.runConsumer(on, async (b) => [
      await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Berlin' }),
      await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Munich' }),
    ]);
    expect(asked.value.map((o) => o.kind)).toEqual(['ok', 'declined_locally']);
    expect(kit.consumerCalls(on, kit.LEGACY_PACKAGE).filter((c) => c.method === 'execute_tool')).toHaveLength(
      1,
    );
  });

  it('a v1 provider that dies mid-call is asked again (reads only), and the consumer lives on', async () => {
    const world = kit.consumerWorld({ providers: ['legacy'] });
    const { value, report } = await kit.runConsumer(world, async (b) => {
      await b.listTools();
      world.applyFault({ kind: 'failTransaction', caller: kit.CONSUMER, callee: kit.LEGACY_PACKAGE });
      return b.execute(kit.LEGACY_PACKAGE, 'list_cities', {});
    });
    expect(value.kind).toBe('ok');
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual(['first', 'retry']);
    expect(report.crashes).toEqual([]);
  });
});

describe('the consumer app', () => {
  it('resumeOnStart: a restarted consumer process finishes its journaled executions by itself', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      consumer: { resumeOnStart: true },
      world: { user: { kind: 'scripted', decisions: ['approve', 'approve'] } },
    });
    world.spawn('restart the consumer', async () => {
      while (!(world.contentCalls ?? []).some((c) => c.method === 'get_operation'))
        await world.scheduler.sleep(100);
      world.killProcess(kit.CONSUMER, { kind: 'killed', reason: 'test' });
      await world.scheduler.sleep(1_000);
      await world.startProcess(kit.CONSUMER);
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      const { bridgeIn } = await import('./app.ts');
      await bridgeIn(ctx).execute(kit.PAYMENTS_PACKAGE, 'transfer', {
        from_account: `CHK-${ctx.uid}`,
        to_iban: 'DE89370400440532013000',
        amount: 1,
        currency: 'EUR',
        reference: '',
      });
    });
    await world.run();
    const app = world.allProcesses().find((p) => p.name === kit.CONSUMER)?.app as {
      resumed: ToolOutcome[];
    } | null;
    expect(app?.resumed.map((o) => o.kind)).toEqual(['ok']);
    expect(kit.effectNotes(world)).toHaveLength(1);
  });

  it('determinism: the same seed gives the same trace, for a busy consumer run under a random schedule', async () => {
    const hashes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const world = kit.consumerWorld({
        world: { seed: 11, strategy: { kind: 'random' }, user: { kind: 'seeded' } },
      });
      const { report } = await kit.runConsumer(world, async (b, ctx) => {
        await b.listTools();
        await b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Hamburg' });
        await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 12 });
        await b.execute('com.example.alerts', 'create_alert', { symbol: 'TSLA', price: 600 });
      });
      hashes.push(report.traceHash);
    }
    expect(hashes[0]).toBe(hashes[1]);
  });
});
