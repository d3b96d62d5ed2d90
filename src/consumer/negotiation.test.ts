/**
 * Negotiation, sessions, the §4.1 envelope and the fallback rules (spec §2.2, §3.3, §4.1, §8), as
 * the consumer sends them on the simulated wire (World.contentCalls).
 */
import { describe, expect, it } from 'vitest';
import { isUuid } from '../protocol/index.ts';
import { HOSTILE_CASES, HOSTILE_PACKAGE, installHostile } from '../providers/hostile/index.ts';
import type { ContentCallRecord } from '../sim/content/content.ts';
import type { World } from '../sim/world.ts';
import * as kit from './testing.ts';

const hostileCase = (id: string) => {
  const found = HOSTILE_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no hostile case ${id}`);
  return found.behaviour;
};

/** A busy session: tools of two providers, executions, and a provider restart in the middle. */
async function busyRun(): Promise<World> {
  const world = kit.consumerWorld({
    providers: ['alerts', 'payments'],
    world: { user: { kind: 'scripted', decisions: Array(6).fill('approve') } },
  });
  await kit.runConsumer(world, async (b, ctx) => {
    await b.listTools();
    await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'AAPL' });
    await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 195 });
    world.killProcess(kit.ALERTS_PACKAGE, { kind: 'killed', reason: 'test' });
    await b.execute(kit.ALERTS_PACKAGE, 'list_alerts', {});
    await b.execute(kit.PAYMENTS_PACKAGE, 'get_balance', {});
    await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 1 });
  });
  return world;
}

function negotiatedToken(call: ContentCallRecord): string | null {
  const reply = call.result?.kind === 'reply' ? call.result.reply : null;
  if (reply?.getString('status') !== 'success') return null;
  return (JSON.parse(reply.getString('data') ?? '{}') as { session_token?: string }).session_token ?? null;
}

describe('negotiate and the envelope, on every call of a busy session', () => {
  it('CETP-2.2-01: the first v2 request to a v2 provider is negotiate', async () => {
    const world = await busyRun();
    for (const p of [kit.ALERTS_PACKAGE, kit.PAYMENTS_PACKAGE])
      expect(kit.consumerCalls(world, p)[0]?.method).toBe('negotiate');
  });

  it('CETP-2.2-02 CETP-2.2-03: negotiate carries an int[] consumer_versions, descending, and a JSON array string of capabilities', async () => {
    const world = await busyRun();
    const negotiates = kit.consumerCalls(world).filter((c) => c.method === 'negotiate');
    expect(negotiates.length).toBeGreaterThanOrEqual(3);
    for (const c of negotiates) {
      expect(c.extras?.typeOf('consumer_versions')).toBe('IntArray');
      expect(c.extras?.getIntArray('consumer_versions')).toEqual([2, 1]);
      expect(c.extras?.typeOf('consumer_capabilities')).toBe('String');
      expect(JSON.parse(c.extras?.getString('consumer_capabilities') ?? '')).toEqual([
        'async_operations',
        'cancellation',
        'large_results',
      ]);
    }
  });

  it('CETP-2.2-13 CETP-3.3-01 CETP-3.3-02 CETP-4.1-01 CETP-4.1-02 CETP-4.1-03 CETP-4.1-05: every later call carries Int protocol_version=2, the latest session_token, a UUID request_id and a Long deadline', async () => {
    const world = await busyRun();
    for (const p of [kit.ALERTS_PACKAGE, kit.PAYMENTS_PACKAGE]) {
      let token: string | null = null;
      for (const c of kit.consumerCalls(world, p)) {
        if (c.method === 'negotiate') {
          token = negotiatedToken(c) ?? token;
          continue;
        }
        const x = c.extras;
        expect(x?.typeOf('protocol_version')).toBe('Int');
        expect(x?.getInt('protocol_version')).toBe(2);
        expect(x?.getString('session_token')).toBe(token);
        expect(isUuid(x?.getString('request_id') ?? '')).toBe(true);
        expect(x?.typeOf('deadline_at_ms')).toBe('Long');
        expect(x?.getLong('deadline_at_ms')).toBeGreaterThan(c.t);
      }
    }
    // The restart made the consumer negotiate again with alerts, with a new token.
    const tokens = kit
      .consumerCalls(world, kit.ALERTS_PACKAGE)
      .filter((c) => c.method === 'negotiate')
      .map(negotiatedToken);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('CETP-3.3-05: after every negotiation, list_tools comes before any execute_tool', async () => {
    const world = await busyRun();
    for (const p of [kit.ALERTS_PACKAGE, kit.PAYMENTS_PACKAGE]) {
      let listed = false;
      for (const c of kit.consumerCalls(world, p)) {
        if (c.method === 'negotiate') listed = false;
        if (c.method === 'list_tools') listed = true;
        if (c.method === 'execute_tool') expect(listed).toBe(true);
      }
    }
  });

  it('CETP-3.3-04: an unchanged revision re-uses the checked descriptors; a new revision replaces them', async () => {
    for (const revision of ['same', 'changing'] as const) {
      const world = kit.consumerWorld({ providers: [] });
      kit.installScripted(world, {
        revision: revision === 'same' ? 'rev-1' : (n) => `rev-${n}`,
        answer: (c) =>
          c.method === 'execute_tool' && c.n === 1
            ? kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true })
            : undefined,
      });
      const { value } = await kit.runConsumer(world, async (b) => {
        const before = await b.listTools();
        const outcome = await b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {});
        const after = await b.listTools();
        return { same: before[0]?.inputSchema === after[0]?.inputSchema, outcome: outcome.kind };
      });
      expect(value.outcome).toBe('ok');
      expect(value.same).toBe(revision === 'same');
      expect(kit.consumerCalls(world).filter((c) => c.method === 'list_tools')).toHaveLength(2);
    }
  });
});

describe('fallback: a provider that declares v2 and fails is disabled, never downgraded', () => {
  for (const id of ['negotiate-unsupported-version-with-v1-bait', 'negotiate-internal-error-with-v1-bait']) {
    it(`CETP-8-03 CETP-8-08 CETP-8-09: ${id} — no v1 call, no tool, a typed failure`, async () => {
      const world = kit.consumerWorld({ providers: [] });
      installHostile(world, hostileCase(id));
      const { value } = await kit.runConsumer(world, async (b) => ({
        tools: await b.listTools(),
        outcome: await b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'x' }),
      }));
      expect(value.tools.filter((t) => t.providerId === HOSTILE_PACKAGE)).toEqual([]);
      expect(value.outcome).toMatchObject({ kind: 'provider_unavailable', temporary: false });
      const calls = kit.consumerCalls(world, HOSTILE_PACKAGE);
      expect(calls.map((c) => c.method)).toEqual(['negotiate']);
      expect(kit.auditEvents(world, 'provider.disabled')).toContainEqual(
        expect.objectContaining({ package: HOSTILE_PACKAGE, temporary: false }),
      );
    });
  }

  it('CETP-8-09: after AUTH_REQUIRED and PERMISSION_DENIED on v2, no v1 attempt is made', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts'],
      world: { user: { kind: 'scripted', decisions: ['deny'] } },
    });
    kit.installScripted(world, {
      versions: [1, 2],
      answer: (c) =>
        c.method === 'execute_tool' && c.extras.containsKey('protocol_version')
          ? kit.errorReply(c.requestId, 'PERMISSION_DENIED', { retryable: false })
          : undefined,
    });
    const { value } = await kit.runConsumer(world, async (b) => [
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 195 }),
      await b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}),
    ]);
    expect(value.map((o) => o.kind)).toEqual(['user_cancelled', 'rejected']);
    const v1 = kit
      .consumerCalls(world)
      .filter((c) => c.method !== 'negotiate' && !c.extras?.containsKey('protocol_version'));
    expect(v1).toEqual([]);
  });

  it('a transient negotiate failure (UNAVAILABLE) leaves the provider temporarily unavailable, and it is tried again later', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      answer: (c) =>
        c.method === 'negotiate' && c.n === 1
          ? kit.errorReply('', 'UNAVAILABLE', { retryable: true, retryAfterMs: 2_000 })
          : undefined,
    });
    const { value } = await kit.runConsumer(world, async (b) => {
      const status = (await b.connectAll())[0]?.state;
      const tools = await b.listTools(); // within retry_after_ms: not asked again
      const outcome = await b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}); // an execution waits and retries
      return { status, tools: tools.length, outcome: outcome.kind };
    });
    expect(value).toEqual({ status: 'unavailable', tools: 0, outcome: 'ok' });
    const negotiates = kit.consumerCalls(world).filter((c) => c.method === 'negotiate');
    expect(negotiates).toHaveLength(2);
    expect((negotiates[1]?.t ?? 0) - (negotiates[0]?.t ?? 0)).toBeGreaterThanOrEqual(2_000);
    expect(kit.auditEvents(world, 'provider.disabled')).toEqual([
      expect.objectContaining({ temporary: true }),
    ]);
  });

  it('a provider that dies during negotiate is temporarily unavailable, not disabled', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      answer: (c) => {
        if (c.method === 'negotiate' && c.n === 1)
          world.killProcess(kit.SCRIPTED_PACKAGE, { kind: 'killed', reason: 'test' });
        return undefined;
      },
    });
    const { value, report } = await kit.runConsumer(world, (b) => b.connectAll());
    expect(value[0]).toMatchObject({ state: 'unavailable', reason: 'transport_dead' });
    expect(report.crashes).toEqual([]);
  });
});

describe('checks on the negotiate answer', () => {
  for (const [id, reason] of [
    ['provider-id-outside-namespace', 'provider_id_outside_package'],
    ['session-token-over-256-bytes', 'invalid_response'],
    ['capabilities-not-offered', 'invalid_response'],
  ] as const) {
    it(`CETP-3.1-02 CETP-2.2-08 CETP-2.2-06: ${id} disables the provider (${reason})`, async () => {
      const world = kit.consumerWorld({ providers: [] });
      installHostile(world, hostileCase(id));
      const { value } = await kit.runConsumer(world, async (b) => ({
        status: await b.connectAll(),
        tools: await b.listTools(),
      }));
      expect(value.status.find((s) => s.packageName === HOSTILE_PACKAGE)).toMatchObject({
        state: 'disabled',
        reason,
      });
      expect(value.tools.some((t) => t.providerId === HOSTILE_PACKAGE)).toBe(false);
      expect(kit.consumerCalls(world, HOSTILE_PACKAGE).map((c) => c.method)).toEqual(['negotiate']);
    });
  }

  it('CETP-2.2-21 CETP-2.2-22: negotiated limits do not override the consumer’s own cap on inline results', async () => {
    const world = kit.consumerWorld({
      providers: [],
      consumer: { limits: { maxInlineResultBytes: 100_000 } },
    });
    kit.installScripted(world, {
      limits: { max_inline_result_bytes: 16 * 1_048_576 },
      tools: [kit.toolDescriptor('small'), kit.toolDescriptor('big')],
      answer: (c) =>
        c.method === 'execute_tool'
          ? kit.success(c.requestId, {
              kind: 'inline',
              value: { text: 'x'.repeat(c.extras.getString('tool_name') === 'big' ? 150_000 : 100) },
            })
          : undefined,
    });
    const { value, report } = await kit.executeScripted(world, 'small', 'big');
    expect(value.map((o) => o.kind)).toEqual(['ok', 'integrity']);
    expect(value[1]).toMatchObject({ check: 'over_local_limit' });
    expect(report.crashes).toEqual([]);
  });
});
