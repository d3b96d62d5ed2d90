import { describe, expect, it } from 'vitest';
import {
  ALERTS_PACKAGE,
  alertsApp,
  alertsPackage,
  bridgeIn,
  CONSUMER_PACKAGE,
  consumerApp,
  consumerPackage,
  type ProviderFixture,
  protocol,
  type ToolOutcome,
  World,
} from './index.ts';

describe('the public API', () => {
  it('is enough to run the reference consumer against a reference provider and describe a fuzz fixture', async () => {
    const world = new World({ seed: 3 });
    world.install(alertsPackage(), alertsApp());
    world.install(consumerPackage(), consumerApp());
    let outcome: ToolOutcome | null = null;
    world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
      outcome = await bridgeIn(ctx).execute(ALERTS_PACKAGE, 'get_quote', { symbol: 'AAPL' });
    });
    await world.run();
    expect(outcome).toMatchObject({ kind: 'ok' });
    expect(protocol.ERROR_CODES).toContain('RESULT_EXPIRED');
    const fixture: Omit<ProviderFixture, 'install'> = {
      name: 'alerts',
      packageName: ALERTS_PACKAGE,
      authority: 'com.example.alerts.clawseed.tools',
      tools: { get_quote: [{ symbol: 'AAPL' }] },
      effects: { get_quote: 'read' },
      scopes: { get_quote: [] },
      userGrantedScopes: [],
    };
    expect(fixture.name).toBe('alerts');
  });
});
