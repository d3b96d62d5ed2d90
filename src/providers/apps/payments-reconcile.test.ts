/**
 * payments: reconciliation — an async operation without confirmation, to success and cancelled.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../sim/binder/bundle.ts';
import { AGENT, data, effects, status } from '../testing.ts';
import { PAYMENTS_PACKAGE, RECONCILE_BATCHES } from './payments.ts';
import * as kit from './payments-testing.ts';

describe('payments: reconciliation (async without confirmation)', () => {
  it('CETP-4.4-04 CETP-4.4-08: reconcile_accounts needs a grant, no confirmation, and reports progress to success', async () => {
    const world = kit.paymentsWorld(['approve']);
    await kit.runNegotiated(world, async (c) => {
      const requestId = c.ctx.seededUuid();
      const replies = await kit.executeThroughResolutions(c, 'reconcile_accounts', {}, requestId);
      expect(replies.map(status)).toEqual(['error:AUTH_REQUIRED', 'accepted']);
      const operationId = String(data(replies[1] as Bundle).operation_id);
      const seen = await kit.pollToEnd(c, requestId, operationId);
      const currents = seen.flatMap((s) => (s.progress ? [(s.progress as { current: number }).current] : []));
      expect(new Set(currents).size).toBeGreaterThan(3);
      expect(seen.at(-1)).toMatchObject({
        state: 'succeeded',
        progress: { current: RECONCILE_BATCHES, total: RECONCILE_BATCHES },
        result: { value: { reconciled_accounts: ['DE-CHK-1', 'DE-SAV-1'], discrepancies: 0 } },
      });
    });
    expect(world.user.screensSeen).toHaveLength(1);
    expect(effects(world).map((e) => e.tool)).toEqual(['reconcile_accounts']);
  });

  it('CETP-4.4-19: a reconciliation cancelled mid-way ends cancelled with no committed marker', async () => {
    const world = kit.paymentsWorld(['approve']);
    await kit.run(world, {
      [AGENT]: async (c) => {
        const { requestId, operationId } = await kit.acceptedOperation(c, {}, 'reconcile_accounts');
        await c.ctx.sleep(4_500);
        expect(data(await kit.cancelOperation(c, requestId, operationId)).state).toBe(
          'cancellation_requested',
        );
        expect((await kit.pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('cancelled');
      },
    });
    expect(effects(world)).toEqual([]);
    expect(world.storage(PAYMENTS_PACKAGE).snapshot('payments.reconciliations').size).toBe(0);
  });
});
