/**
 * Provider conformance, spec §4, §4.1, §4.2: methods, v1/v2 dispatch, the envelope, deadlines and
 * synchronous success.
 */
import { describe, expect, it } from 'vitest';
import { Bundle } from '../../sim/binder/bundle.ts';
import { ToolFailure } from '../sdk/types.ts';
import * as kit from '../testing.ts';

describe('§4 methods and dispatch', () => {
  it('CETP-4-04: execute_tool both starts and resumes one execution', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      const requestId = c.ctx.seededUuid();
      const start = await c.execute('create_alert', { symbol: 'MSFT', price: 410 }, { requestId });
      expect(kit.status(start)).toBe('error:AUTH_REQUIRED');
      await c.resolve(start);
      const resumed = await c.execute(
        'create_alert',
        { symbol: 'MSFT', price: 410 },
        {
          requestId,
          resumeToken: start.getString('resume_token') ?? '',
        },
      );
      expect(kit.status(resumed)).toBe('success');
    });
  });

  it('CETP-4-07 CETP-5-13: an unknown method is METHOD_NOT_FOUND with retryable=false (v2 and v1)', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const v2 = await c.method('delete_everything');
      expect(kit.status(v2)).toBe('error:METHOD_NOT_FOUND');
      expect(v2.getBoolean('retryable', true)).toBe(false);
      expect(kit.status(await c.call('delete_everything', new Bundle()))).toBe('error:METHOD_NOT_FOUND');
    });
  });

  it('CETP-4-08 CETP-4-09: same-named methods are told apart by protocol_version; none ⇒ v1 on a dual-stack provider', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const v2 = kit.data(await c.method('list_tools'));
      const v1 = kit.data(await c.call('list_tools', new Bundle()));
      expect(v2).toHaveProperty('revision');
      expect(v1).not.toHaveProperty('revision');
      expect((v1.tools as { name: string }[]).map((t) => t.name)).toEqual(['get_quote']);
    });
  });

  it('CETP-2.1-06 CETP-8-10: v1 list_tools and v1 execution expose only read tools that need no scope', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      const v1 = new Bundle();
      v1.putString('tool_name', 'create_alert');
      v1.putString('args', '{"symbol":"AAPL","price":1}');
      expect(kit.status(await c.call('execute_tool', v1))).toBe('error:TOOL_NOT_FOUND');
      const read = new Bundle();
      read.putString('tool_name', 'list_alerts');
      read.putString('args', '{}');
      expect(kit.status(await c.call('execute_tool', read))).toBe('error:TOOL_NOT_FOUND');
      const quote = new Bundle();
      quote.putString('tool_name', 'get_quote');
      quote.putString('args', '{"symbol":"AAPL"}');
      expect(kit.data(await c.call('execute_tool', quote))).toEqual({ symbol: 'AAPL', price: 190 });
    });
    expect(kit.effects(world)).toEqual([]);
  });
});

describe('§4.1 envelope', () => {
  it('CETP-5-15 CETP-10-07: a malformed envelope (no request_id, non-UUID id, deadline as Int, protocol_version as Long) is INVALID_REQUEST', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const cases: ((b: Bundle) => void)[] = [
        (b) => b.remove('request_id'),
        (b) => b.putString('request_id', 'not-a-uuid'),
        (b) => b.putInt('deadline_at_ms', 5),
        (b) => b.putLong('protocol_version', 2),
      ];
      for (const mutate of cases) {
        const b = c.envelope();
        mutate(b);
        const reply = (await c.call('list_tools', b)) as Bundle;
        expect(kit.status(reply)).toBe('error:INVALID_REQUEST');
        expect(reply.getBoolean('retryable', true)).toBe(false);
      }
    });
  });

  it('CETP-4.1-09 CETP-6-01: request_id is the idempotency key: the same id executes once', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('add_row')] });
    await kit.runRequest(world, async (c, requestId) => {
      const a = await c.execute('add_row', {}, { requestId });
      const b = await c.execute('add_row', {}, { requestId });
      expect(a.getString('data')).toBe(b.getString('data'));
      expect(kit.data(await c.execute('add_row', {})).value).toEqual({ row: 2 });
    });
    expect(kit.effects(world)).toHaveLength(2);
  });

  it('CETP-4.1-14 CETP-10-03 CETP-5-18: a deadline already past is DEADLINE_EXCEEDED and no effect happens', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('add_row')] });
    await kit.runNegotiated(world, async (c) => {
      const late = await c.execute('add_row', {}, { deadlineAtMs: c.ctx.currentTimeMillis() - 1 });
      expect(kit.status(late)).toBe('error:DEADLINE_EXCEEDED');
      expect(late.getBoolean('retryable', false)).toBe(true);
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.1-08 CETP-5-14: args larger than max_request_bytes are INVALID_ARGS', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.readTool('echo', (c) => c.args as { [k: string]: never })],
    });
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute('echo', { blob: 'x'.repeat(70_000) });
      expect(kit.status(reply)).toBe('error:INVALID_ARGS');
      expect(reply.getBoolean('retryable', true)).toBe(false);
    });
  });
});

describe('§4.2 synchronous success', () => {
  it('CETP-4.2-01 CETP-4.2-02: success carries status, protocol_version=2, the request_id and data {kind:"inline", value}', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      const requestId = c.ctx.seededUuid();
      const reply = await c.execute('get_quote', { symbol: 'SAP' }, { requestId });
      expect(reply.getString('status')).toBe('success');
      expect(reply.getInt('protocol_version')).toBe(2);
      expect(reply.getString('request_id')).toBe(requestId);
      expect(kit.data(reply)).toEqual({ kind: 'inline', value: { symbol: 'SAP', price: 180 } });
    });
  });

  it('CETP-4.2-03 CETP-5-24: output that breaks output_schema is never sent (INTERNAL_ERROR) and its effect rolls back', async () => {
    const broken = kit.writeTool('broken_write', {
      mutate: async (_call, tx) => {
        await tx.put('rows', 'x', 1);
        return { row: 'not an integer' };
      },
    });
    const world = kit.testProviderWorld({
      tools: [
        broken,
        kit.readTool('broken_read', () => ({ n: 1 }), {
          outputSchema: { type: 'object', required: ['missing'] },
        }),
      ],
    });
    await kit.runNegotiated(world, async (c) => {
      expect(kit.status(await c.execute('broken_read', {}))).toBe('error:INTERNAL_ERROR');
      expect(kit.status(await c.execute('broken_write', {}))).toBe('error:INTERNAL_ERROR');
    });
    expect(kit.effects(world)).toEqual([]);
    expect(world.storage('com.example.test').peek('rows', 'x')).toBeUndefined();
  });

  it('CETP-5-23: a temporarily unavailable backend is UNAVAILABLE with retryable=true, not recorded as the outcome', async () => {
    let down = true;
    const flaky = kit.writeTool('flaky', {
      mutate: async (_call, tx) => {
        if (down) throw new ToolFailure('UNAVAILABLE', 'The bank is unreachable; try again shortly.');
        await tx.put('rows', 'ok', 1);
        return { row: 1 };
      },
    });
    const world = kit.testProviderWorld({ tools: [flaky] });
    await kit.runRequest(world, async (c, requestId) => {
      const first = await c.execute('flaky', {}, { requestId });
      expect(kit.status(first)).toBe('error:UNAVAILABLE');
      expect(first.getBoolean('retryable', false)).toBe(true);
      down = false;
      expect(kit.status(await c.execute('flaky', {}, { requestId }))).toBe('success');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});
