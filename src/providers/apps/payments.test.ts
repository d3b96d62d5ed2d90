/**
 * The payments reference provider over simulated Binder: v2-only negotiation and the accounts
 * (free reads, business-rule validation). The other areas are in payments-transfer.test.ts,
 * payments-statements.test.ts and payments-reconcile.test.ts; shared helpers in payments-testing.ts.
 */
import { describe, expect, it } from 'vitest';
import { META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../sdk/manifest.ts';
import { AGENT, data, effects, OTHER_AGENT, status } from '../testing.ts';
import { PAYMENTS_PACKAGE } from './payments.ts';
import { balances, NO_ASYNC, paymentsWorld, run, runNegotiated, transferArgs } from './payments-testing.ts';

describe('payments: discovery and negotiation', () => {
  it('CETP-2.1-07: the manifest declares version=2 and versions="2"', async () => {
    const world = paymentsWorld();
    const services = world.pm.queryIntentServices(world.pm.getPackageUid(AGENT) ?? -1, TOOL_PROVIDER_ACTION);
    const mine = services.filter((s) => s.packageName === PAYMENTS_PACKAGE);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.metaData[META_VERSION]).toBe('2');
    expect(mine[0]?.metaData[META_VERSIONS]).toBe('2');
  });

  it('CETP-2.2-05 CETP-2.2-06: negotiate on the v2-only provider selects 2 and only offered capabilities', async () => {
    await run(paymentsWorld(), {
      [AGENT]: async (c) => {
        const reply = await c.negotiate(['large_results'], [2, 1]);
        expect(status(reply)).toBe('success');
        expect(data(reply)).toMatchObject({
          selected_version: 2,
          provider_id: PAYMENTS_PACKAGE,
          capabilities: ['large_results'],
        });
      },
    });
  });

  it('CETP-2.2-15 CETP-5-05: a v1-only consumer gets UNSUPPORTED_VERSION', async () => {
    await run(paymentsWorld(), {
      [AGENT]: async (c) => {
        const reply = await c.negotiate([], [1]);
        expect(status(reply)).toBe('error:UNSUPPORTED_VERSION');
        expect(reply.getBoolean('retryable', true)).toBe(false);
      },
    });
  });

  it('CETP-2.2-16 (NOTES 9): a call without protocol_version is UNSUPPORTED_VERSION, never served as v1', async () => {
    const world = paymentsWorld();
    await run(world, {
      [AGENT]: async (c) => {
        const list = await c.call('list_tools', null);
        expect(status(list)).toBe('error:UNSUPPORTED_VERSION');
        const b = c.envelope();
        b.remove('protocol_version');
        b.putString('tool_name', 'get_balance');
        b.putString('args', '{}');
        expect(status(await c.call('execute_tool', b))).toBe('error:UNSUPPORTED_VERSION');
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-3.4-09 CETP-3.4-10: transfer is a confirmed high-risk transaction; sync_or_async only with async', async () => {
    await run(paymentsWorld(), {
      [AGENT]: async (c) => {
        await c.negotiate();
        const withAsync = data(await c.method('list_tools')).tools as Record<string, unknown>[];
        expect(withAsync.map((t) => t.name)).toEqual([
          'get_balance',
          'transfer',
          'export_statement',
          'reconcile_accounts',
        ]);
        expect(withAsync.find((t) => t.name === 'transfer')?.annotations).toEqual({
          effect: 'transaction',
          risk: 'high',
          destructive: true,
          idempotent: false,
          open_world: true,
          confirmation: 'always',
          execution: 'sync_or_async',
        });
        await c.negotiate(NO_ASYNC);
        const withoutAsync = data(await c.method('list_tools')).tools as Record<string, unknown>[];
        const annotations = withoutAsync.map((t) => (t.annotations as { execution: string }).execution);
        expect(annotations).toEqual(['sync', 'sync', 'sync', 'sync']);
      },
    });
  });
});

describe('payments: accounts', () => {
  it('CETP-7.1-02 CETP-3.4-08: get_balance needs no grant (payments.read is free) and shows only the calling UID’s accounts', async () => {
    const world = paymentsWorld();
    const other = world.pm.getPackageUid(OTHER_AGENT);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        expect(await balances(c)).toEqual({ 'DE-CHK-1': 1500, 'DE-SAV-1': 100 });
      },
      [OTHER_AGENT]: async (c) => {
        await c.negotiate();
        expect(await balances(c)).toEqual({ [`CHK-${other}`]: 5000, [`SAV-${other}`]: 20000 });
      },
    });
  });

  it('CETP-7.3-04: another UID’s account, a bad IBAN checksum, three decimals ⇒ INVALID_ARGS, nothing recorded', async () => {
    const world = paymentsWorld();
    const other = world.pm.getPackageUid(OTHER_AGENT);
    await runNegotiated(world, async (c) => {
      const cases = [
        transferArgs({ from_account: `CHK-${other}` }),
        transferArgs({ to_iban: 'DE88370400440532013000' }),
        transferArgs({ amount: 10.005 }),
        transferArgs({ reference: 'Rent\u0007' }),
      ];
      for (const args of cases) {
        const reply = await c.execute('transfer', args);
        expect(status(reply)).toBe('error:INVALID_ARGS');
      }
      // The schema bounds too: over 10000 EUR, another currency.
      expect(status(await c.execute('transfer', transferArgs({ amount: 10_000.01 })))).toBe(
        'error:INVALID_ARGS',
      );
      expect(status(await c.execute('transfer', transferArgs({ currency: 'USD' })))).toBe(
        'error:INVALID_ARGS',
      );
    });
    expect(effects(world)).toEqual([]);
    expect(world.storage(PAYMENTS_PACKAGE).snapshot('cetp.requests').size).toBe(0);
  });
});
