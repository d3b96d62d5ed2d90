/**
 * payments: a high-risk transfer — the grant and confirmation flow, async operations with progress,
 * cancellation before and after the commit point, recorded business failures, deadlines, recovery
 * after a kill, and cross-UID isolation of operations.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../sim/binder/bundle.ts';
import { DeadObjectException } from '../../sim/core/errors.ts';
import { AGENT, data, effects, OTHER_AGENT, status } from '../testing.ts';
import { PAYMENTS_PACKAGE, TRANSFER_STEPS } from './payments.ts';
import * as kit from './payments-testing.ts';

describe('payments: a transfer', () => {
  it('CETP-4.3-01 CETP-4.3-08 CETP-4.4-04 CETP-4.4-05 CETP-6-07: grant, confirm, accepted, running with progress, succeeded', async () => {
    const world = kit.paymentsWorld(['approve', 'approve']);
    await kit.runNegotiated(world, async (c) => {
      const requestId = c.ctx.seededUuid();
      const args = kit.transferArgs();
      const first = await c.execute('transfer', args, { requestId });
      expect(status(first)).toBe('error:AUTH_REQUIRED');
      expect(first.getPendingIntent('resolution')?.getCreatorPackage()).toBe(PAYMENTS_PACKAGE);
      await c.resolve(first);
      const confirm = await c.execute('transfer', args, {
        requestId,
        resumeToken: first.getString('resume_token') ?? '',
      });
      expect(status(confirm)).toBe('error:USER_ACTION_REQUIRED');
      // Nothing has happened while the user has not approved (4.3-08).
      expect(effects(world)).toEqual([]);
      expect(await kit.balances(c)).toMatchObject({ 'DE-CHK-1': 1500 });
      await c.resolve(confirm);
      const accepted = await c.execute('transfer', args, {
        requestId,
        resumeToken: confirm.getString('resume_token') ?? '',
      });
      expect(status(accepted)).toBe('accepted');
      const operationId = String(data(accepted).operation_id);
      // A duplicate while it runs gets the same operation (6-07).
      await c.ctx.sleep(2500);
      const duplicate = await c.execute('transfer', args, { requestId });
      expect(status(duplicate)).toBe('accepted');
      expect(data(duplicate).operation_id).toBe(operationId);
      const seen = await kit.pollToEnd(c, requestId, operationId);
      const running = seen.filter((s) => s.state === 'running');
      expect(running.length).toBeGreaterThan(0);
      expect(running[0]?.progress).toMatchObject({ total: TRANSFER_STEPS.length });
      expect(running.map((s) => (s.progress as { message: string }).message)).toContain(
        'Sanctions screening',
      );
      const final = seen.at(-1) as {
        state: string;
        result: { kind: string; value: Record<string, unknown> };
      };
      expect(final.state).toBe('succeeded');
      expect(final.result.kind).toBe('inline');
      expect(final.result.value).toMatchObject({
        status: 'booked',
        from_account: 'DE-CHK-1',
        to_iban: kit.PAYEE,
        amount: 250,
        balance_after: 1250,
      });
      expect(await kit.balances(c)).toMatchObject({ 'DE-CHK-1': 1250 });
    });
    expect(effects(world)).toHaveLength(1);
    const booked = [...world.storage(PAYMENTS_PACKAGE).snapshot('payments.transfers').values()];
    expect(booked).toHaveLength(1);
  });

  it('CETP-7.2-06: the confirmation screen shows object, action, key parameters and irreversibility', async () => {
    const world = kit.paymentsWorld(['approve', 'deny']);
    await kit.runNegotiated(world, async (c) => {
      await kit.executeThroughResolutions(
        c,
        'transfer',
        kit.transferArgs({ reference: 'Invoice 2026-17' }),
        c.ctx.seededUuid(),
      );
    });
    const screen = world.user.screensSeen[1]?.screen;
    const text = [screen?.title ?? '', ...(screen?.lines ?? [])].join('\n');
    for (const expected of ['250.00', 'EUR', kit.PAYEE, 'Invoice 2026-17', 'DE-CHK-1', 'cannot be recalled'])
      expect(text).toContain(expected);
    expect(text).toContain(AGENT);
  });

  it('CETP-4.3-15 CETP-5-10: a denied confirmation ⇒ USER_CANCELLED, terminal, no effect', async () => {
    const world = kit.paymentsWorld(['approve', 'deny']);
    await kit.runNegotiated(world, async (c) => {
      const requestId = c.ctx.seededUuid();
      const replies = await kit.executeThroughResolutions(c, 'transfer', kit.transferArgs(), requestId);
      expect(replies.map(status)).toEqual([
        'error:AUTH_REQUIRED',
        'error:USER_ACTION_REQUIRED',
        'error:USER_CANCELLED',
      ]);
      await kit.expectNoTransfer(c, requestId, 'error:USER_CANCELLED');
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-4.4-10 CETP-4.4-19 CETP-4.4-21: cancel before the commit point ⇒ cancellation_requested, then cancelled, no effect', async () => {
    const world = await kit.afterAcceptedTransfer(async (c, requestId, operationId) => {
      await c.ctx.sleep(3_000);
      const cancel = await kit.cancelOperation(c, requestId, operationId);
      expect(status(cancel)).toBe('success');
      expect(data(cancel)).toEqual({ operation_id: operationId, state: 'cancellation_requested' });
      const seen = await kit.pollToEnd(c, requestId, operationId);
      expect(seen.at(-1)?.state).toBe('cancelled');
      expect(seen.map((s) => s.state)).not.toContain('cancellation_requested');
      // The worker stopped at its next cooperative point: it never reached the last check.
      const progress = seen.at(-1)?.progress as { current: number } | undefined;
      expect(progress?.current).toBeLessThan(TRANSFER_STEPS.length);
      await kit.expectNoTransfer(c, requestId, 'error:CANCELLED');
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-4.4-20 CETP-4.4-21: cancel after the commit ⇒ CONFLICT, the transfer stays booked', async () => {
    const world = await kit.afterAcceptedTransfer(async (c, requestId, operationId) => {
      expect((await kit.pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('succeeded');
      const cancel = await kit.cancelOperation(c, requestId, operationId);
      expect(status(cancel)).toBe('error:CONFLICT');
      expect(cancel.getBoolean('retryable', true)).toBe(false);
      expect(data(await kit.getOperation(c, requestId, operationId)).state).toBe('succeeded');
    });
    expect(effects(world)).toHaveLength(1);
  });

  it('CETP-6-05 CETP-7.3-04: insufficient funds at commit ⇒ failed with CONFLICT, replayed identically', async () => {
    const world = kit.paymentsWorld(['approve', 'approve']);
    await kit.run(world, {
      [AGENT]: async (c) => {
        const args = kit.transferArgs({ from_account: 'DE-SAV-1', amount: 250 });
        const { requestId, operationId, accepted } = await kit.acceptedOperation(c, args);
        expect(status(accepted)).toBe('accepted');
        const final = (await kit.pollToEnd(c, requestId, operationId)).at(-1);
        expect(final).toMatchObject({
          state: 'failed',
          error: { error_code: 'CONFLICT', error_message: 'Insufficient funds.', retryable: false },
        });
        const replays = [
          await c.execute('transfer', args, { requestId }),
          await c.execute('transfer', args, { requestId }),
        ];
        for (const r of replays) {
          expect(status(r)).toBe('error:CONFLICT');
          expect(r.getString('error_message')).toBe('Insufficient funds.');
          expect(r.getBoolean('retryable', true)).toBe(false);
          expect(r.getString('request_id')).toBe(requestId);
        }
        expect(await kit.balances(c)).toMatchObject({ 'DE-SAV-1': 100 });
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-3.4-10: without async_operations the transfer runs synchronously after the confirmation', async () => {
    const world = kit.paymentsWorld(['approve', 'approve']);
    await kit.run(world, {
      [AGENT]: async (c) => {
        await c.negotiate(kit.NO_ASYNC);
        const before = c.ctx.currentTimeMillis();
        const replies = await kit.executeThroughResolutions(
          c,
          'transfer',
          kit.transferArgs({ amount: 99.99 }),
          c.ctx.seededUuid(),
        );
        const last = replies.at(-1) as Bundle;
        expect(status(last)).toBe('success');
        expect(data(last).value).toMatchObject({ amount: 99.99, balance_after: 1400.01 });
        // The five checks ran inside the call.
        expect(c.ctx.currentTimeMillis() - before).toBeGreaterThanOrEqual(10_000);
      },
    });
    expect(effects(world)).toHaveLength(1);
  });

  it('CETP-4.1-14: a sync transfer whose resume deadline passes during prepare does not commit (DEADLINE_EXCEEDED)', async () => {
    // The SDK checks the deadline again right before the commit, after a long `prepare` (10 s here).
    const world = kit.paymentsWorld(['approve', 'approve']);
    await kit.run(world, {
      [AGENT]: async (c) => {
        await c.negotiate(kit.NO_ASYNC);
        const requestId = c.ctx.seededUuid();
        const args = kit.transferArgs();
        const grant = await c.execute('transfer', args, { requestId });
        await c.resolve(grant);
        const confirm = await c.execute('transfer', args, {
          requestId,
          resumeToken: grant.getString('resume_token') ?? '',
        });
        await c.resolve(confirm);
        const deadlineAtMs = c.ctx.currentTimeMillis() + 3_000;
        const reply = await c.execute('transfer', args, {
          requestId,
          resumeToken: confirm.getString('resume_token') ?? '',
          deadlineAtMs,
        });
        expect(c.ctx.currentTimeMillis()).toBeGreaterThan(deadlineAtMs);
        expect(status(reply)).toBe('error:DEADLINE_EXCEEDED');
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('NOTES 2: re-sending the grant resume_token after a lost reply reaches the pending confirmation', async () => {
    // A used grant token may be re-sent: the grant itself persists and authorization is re-checked.
    const world = kit.paymentsWorld(['approve']);
    await kit.runNegotiated(world, async (c) => {
      const requestId = c.ctx.seededUuid();
      const grant = await c.execute('transfer', kit.transferArgs(), { requestId });
      await c.resolve(grant);
      const resumeToken = grant.getString('resume_token') ?? '';
      world.faults.armLostReply(PAYMENTS_PACKAGE, AGENT);
      await expect(
        c.execute('transfer', kit.transferArgs(), { requestId, resumeToken }),
      ).rejects.toBeInstanceOf(DeadObjectException);
      const retry = await c.execute('transfer', kit.transferArgs(), { requestId, resumeToken });
      expect(status(retry)).toBe('error:USER_ACTION_REQUIRED');
    });
  });

  it('CETP-4.4-16 CETP-4.4-17: the provider killed mid-operation resumes after restart and commits exactly once', async () => {
    const world = kit.paymentsWorld(['approve', 'approve']);
    let requestId = '';
    await kit.run(world, {
      [AGENT]: async (c) => {
        const args = kit.transferArgs({ amount: 400 });
        const started = await kit.acceptedOperation(c, args);
        requestId = started.requestId;
        const { operationId } = started;
        await c.ctx.sleep(5_000);
        world.killProcess(PAYMENTS_PACKAGE, { kind: 'killed', reason: 'test: low memory' });
        await expect(kit.getOperation(c, requestId, operationId)).rejects.toBeInstanceOf(DeadObjectException);
        // A restart invalidated the session (2.2-12): renegotiate, then poll the same operation.
        expect(status(await kit.getOperation(c, requestId, operationId))).toBe('error:NEGOTIATION_REQUIRED');
        await c.negotiate();
        const final = (await kit.pollToEnd(c, requestId, operationId)).at(-1);
        expect(final).toMatchObject({ state: 'succeeded', result: { value: { balance_after: 1100 } } });
        const replay = await c.execute('transfer', args, { requestId });
        expect(status(replay)).toBe('success');
        expect(data(replay).value).toEqual((final?.result as { value: unknown } | undefined)?.value);
        expect(await kit.balances(c)).toMatchObject({ 'DE-CHK-1': 1100 });
      },
    });
    expect(world.process(PAYMENTS_PACKAGE).incarnation).toBe(2);
    expect(effects(world).filter((e) => e.request_id === requestId)).toHaveLength(1);
  });

  it('CETP-4.4-12 CETP-4.4-13: another UID can neither read nor cancel the operation', async () => {
    const world = kit.paymentsWorld(['approve', 'approve']);
    const shared: { requestId?: string; operationId?: string; probed?: boolean } = {};
    await kit.run(world, {
      [AGENT]: async (c) => {
        const { requestId, operationId } = await kit.acceptedOperation(c);
        Object.assign(shared, { requestId, operationId });
        while (!shared.probed) await c.ctx.sleep(500);
        expect((await kit.pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('succeeded');
      },
      [OTHER_AGENT]: async (c) => {
        await c.negotiate();
        while (!shared.operationId) await c.ctx.sleep(500);
        const { requestId = '', operationId = '' } = shared;
        const read = await kit.getOperation(c, requestId, operationId);
        expect(status(read)).toBe('error:INVALID_REQUEST');
        expect(read.getString('data')).toBeNull();
        expect(status(await kit.cancelOperation(c, requestId, operationId))).toBe('error:INVALID_REQUEST');
        shared.probed = true;
      },
    });
    expect(effects(world)).toHaveLength(1);
  });
});
