/**
 * The bridge as the agent uses it: several agent threads at once, providers appearing and
 * disappearing, and outcomes typed for the agent.
 */
import { describe, expect, it } from 'vitest';
import { paymentsApp, paymentsPackage } from '../providers/apps/payments.ts';
import { bridgeIn } from './app.ts';
import type { ToolOutcome } from './outcomes.ts';
import * as kit from './testing.ts';

describe('the bridge', () => {
  it('concurrent agent threads share one negotiation per provider, under a random schedule', async () => {
    for (const seed of [1, 2, 3]) {
      const world = kit.consumerWorld({
        providers: ['alerts'],
        world: { seed, strategy: { kind: 'random' } },
      });
      const outcomes: ToolOutcome[] = [];
      for (const symbol of ['AAPL', 'MSFT', 'SAP']) {
        world.spawnIn(kit.CONSUMER, `agent-${symbol}`, async (ctx) => {
          outcomes.push(await bridgeIn(ctx).execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol }));
        });
      }
      const report = await world.run();
      expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'ok', 'ok']);
      expect(
        kit.consumerCalls(world, kit.ALERTS_PACKAGE).filter((c) => c.method === 'negotiate'),
      ).toHaveLength(1);
      expect(report.outcome.kind).toBe('completed');
    }
  });

  it('a provider installed later is discovered; an uninstalled one disappears and is no longer called', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    const { value } = await kit.runConsumer(world, async (b) => {
      const before = (await b.listTools()).map((t) => t.providerId);
      world.install(paymentsPackage(), paymentsApp());
      world.uninstall(kit.ALERTS_PACKAGE);
      const after = (await b.listTools()).map((t) => t.providerId);
      const gone = await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'AAPL' });
      return { before: [...new Set(before)], after: [...new Set(after)], gone };
    });
    expect(value.before).toEqual([kit.ALERTS_PACKAGE]);
    expect(value.after).toEqual([kit.PAYMENTS_PACKAGE]);
    expect(value.gone).toMatchObject({ kind: 'provider_not_found', requestId: null });
  });

  it('an unknown provider or tool is a typed failure with the consumer’s explanation, and nothing is sent', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    const { value } = await kit.runConsumer(world, async (b) => [
      await b.execute('com.example.nowhere', 'get_quote', {}),
      await b.execute(kit.ALERTS_PACKAGE, 'get_quotes', {}),
      await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 42 }),
    ]);
    expect(value.map((o) => o.kind)).toEqual(['provider_not_found', 'tool_not_found', 'invalid_args']);
    expect(value.map((o) => o.explanation)).toEqual([
      'No app with that name offers tools to this assistant.',
      'This app offers no tool by that name.',
      'The request details are not valid for this tool.',
    ]);
    expect(kit.consumerCalls(world).filter((c) => c.method === 'execute_tool')).toEqual([]);
  });
});

describe('the --consumer module', () => {
  it('src/consumer/fixture.ts installs the consumer with a variant and its capabilities, and its agent API executes tools', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    const { consumer } = await import('./fixture.ts');
    const other = new (await import('../sim/world.ts')).World({ seed: 1 });
    consumer.install(other, {
      variant: { consumerBugs: ['consumer-skips-sha256', 'provider-bug'], disabledRules: [] },
      capabilities: ['cancellation', 'not-a-capability'],
    });
    expect(other.pm.getPackageInfo(kit.CONSUMER)).toBeTruthy();
    let outcome: unknown = null;
    world.spawnIn(kit.CONSUMER, 'cli', async (ctx) => {
      outcome = await consumer.agent(ctx).executeJson(kit.ALERTS_PACKAGE, 'get_quote', '{"symbol":"AAPL"}');
    });
    await world.run();
    expect(outcome).toMatchObject({ kind: 'ok' });
  });
});
