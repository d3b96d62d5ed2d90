/**
 * The payments reference provider over simulated Binder: v2-only negotiation, the grant and
 * confirmation flow of a high-risk transfer, async operations with progress, cancellation before
 * and after the commit point, recorded business failures, recovery after a kill, cross-UID
 * isolation, and large results through file descriptors.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../protocol/index.ts';
import type { Bundle } from '../../sim/bundle.ts';
import { DeadObjectException, IOException } from '../../sim/errors.ts';
import type { UserDecision } from '../../sim/user.ts';
import { World } from '../../sim/world.ts';
import { META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../sdk/manifest.ts';
import { AGENT, agentPackage, data, effects, OTHER_AGENT, RawClient, status } from '../testing.ts';
import {
  PAYMENTS_AUTHORITY,
  PAYMENTS_PACKAGE,
  paymentsApp,
  paymentsPackage,
  RECONCILE_BATCHES,
  seedAccounts,
  TRANSFER_STEPS,
} from './payments.ts';

const PAYEE = 'DE89370400440532013000';
const NO_ASYNC = ['cancellation', 'large_results'];

function paymentsWorld(decisions: readonly UserDecision[] = []): World {
  const world = new World({
    recordContentCalls: true,
    user: { kind: 'scripted', decisions, thinkMs: 500 },
  });
  world.install(paymentsPackage(), paymentsApp());
  world.install(agentPackage(), () => ({}));
  world.install(agentPackage(OTHER_AGENT), () => ({}));
  seedAccounts(world, AGENT, [
    { id: 'DE-CHK-1', balance: 1500 },
    { id: 'DE-SAV-1', balance: 100 },
  ]);
  return world;
}

type AgentBody = (client: RawClient) => Promise<void>;

/** Runs each agent's body as a thread of its app, then the world to completion. */
async function run(world: World, agents: Readonly<Record<string, AgentBody>>) {
  const failures: unknown[] = [];
  for (const [pkg, body] of Object.entries(agents)) {
    world.spawnIn(pkg, 'test', async (ctx) => {
      try {
        await body(new RawClient(ctx, PAYMENTS_AUTHORITY));
      } catch (error) {
        failures.push(error);
      }
    });
  }
  const report = await world.run();
  if (failures.length > 0) throw failures[0];
  expect(report.outcome).toEqual({ kind: 'completed' });
  return report;
}

function transferArgs(over: Record<string, unknown> = {}) {
  return {
    from_account: 'DE-CHK-1',
    to_iban: PAYEE,
    amount: 250,
    currency: 'EUR',
    reference: 'Rent',
    ...over,
  };
}

async function balances(c: RawClient): Promise<Record<string, number>> {
  const reply = await c.execute('get_balance', {});
  const value = data(reply).value as { accounts: { account_id: string; balance: number }[] };
  return Object.fromEntries(value.accounts.map((a) => [a.account_id, a.balance]));
}

/** Follows AUTH_REQUIRED and USER_ACTION_REQUIRED with the same request_id; returns every reply. */
async function executeThroughResolutions(
  c: RawClient,
  tool: string,
  args: unknown,
  requestId: string,
): Promise<Bundle[]> {
  const replies = [await c.execute(tool, args, { requestId })];
  for (;;) {
    const last = replies.at(-1) as Bundle;
    const code = last.getString('error_code');
    if (code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') return replies;
    await c.resolve(last);
    replies.push(
      await c.execute(tool, args, { requestId, resumeToken: last.getString('resume_token') ?? '' }),
    );
  }
}

function getOperation(c: RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('get_operation', (b) => b.putString('operation_id', operationId), requestId);
}

function cancelOperation(c: RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('cancel_operation', (b) => b.putString('operation_id', operationId), requestId);
}

/** Polls until a terminal state; returns every status seen. */
async function pollToEnd(c: RawClient, requestId: string, operationId: string) {
  const seen: Record<string, unknown>[] = [];
  for (;;) {
    const d = data(await getOperation(c, requestId, operationId));
    seen.push(d);
    if (['succeeded', 'failed', 'cancelled'].includes(String(d.state))) return seen;
    await c.ctx.sleep(Number(d.poll_after_ms ?? 1000));
  }
}

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
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
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
      },
    });
    expect(effects(world)).toEqual([]);
    expect(world.storage(PAYMENTS_PACKAGE).snapshot('cetp.requests').size).toBe(0);
  });
});

describe('payments: a transfer', () => {
  it('CETP-4.3-01 CETP-4.3-08 CETP-4.4-04 CETP-4.4-05 CETP-6-07: grant, confirm, accepted, running with progress, succeeded', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const args = transferArgs();
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
        expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1500 });
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
        const seen = await pollToEnd(c, requestId, operationId);
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
          to_iban: PAYEE,
          amount: 250,
          balance_after: 1250,
        });
        expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1250 });
      },
    });
    expect(effects(world)).toHaveLength(1);
    const booked = [...world.storage(PAYMENTS_PACKAGE).snapshot('payments.transfers').values()];
    expect(booked).toHaveLength(1);
  });

  it('CETP-7.2-06: the confirmation screen shows object, action, key parameters and irreversibility', async () => {
    const world = paymentsWorld(['approve', 'deny']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        await executeThroughResolutions(
          c,
          'transfer',
          transferArgs({ reference: 'Invoice 2026-17' }),
          c.ctx.seededUuid(),
        );
      },
    });
    const screen = world.user.screensSeen[1]?.screen;
    const text = [screen?.title ?? '', ...(screen?.lines ?? [])].join('\n');
    for (const expected of ['250.00', 'EUR', PAYEE, 'Invoice 2026-17', 'DE-CHK-1', 'cannot be recalled'])
      expect(text).toContain(expected);
    expect(text).toContain(AGENT);
  });

  it('CETP-4.3-15 CETP-5-10: a denied confirmation ⇒ USER_CANCELLED, terminal, no effect', async () => {
    const world = paymentsWorld(['approve', 'deny']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const replies = await executeThroughResolutions(c, 'transfer', transferArgs(), requestId);
        expect(replies.map(status)).toEqual([
          'error:AUTH_REQUIRED',
          'error:USER_ACTION_REQUIRED',
          'error:USER_CANCELLED',
        ]);
        expect(status(await c.execute('transfer', transferArgs(), { requestId }))).toBe(
          'error:USER_CANCELLED',
        );
        expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1500 });
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-4.4-10 CETP-4.4-19 CETP-4.4-21: cancel before the commit point ⇒ cancellation_requested, then cancelled, no effect', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const accepted = (await executeThroughResolutions(c, 'transfer', transferArgs(), requestId)).at(-1);
        const operationId = String(data(accepted as Bundle).operation_id);
        await c.ctx.sleep(3_000);
        const cancel = await cancelOperation(c, requestId, operationId);
        expect(status(cancel)).toBe('success');
        expect(data(cancel)).toEqual({ operation_id: operationId, state: 'cancellation_requested' });
        const seen = await pollToEnd(c, requestId, operationId);
        expect(seen.at(-1)?.state).toBe('cancelled');
        expect(seen.map((s) => s.state)).not.toContain('cancellation_requested');
        // The worker stopped at its next cooperative point: it never reached the last check.
        const progress = seen.at(-1)?.progress as { current: number } | undefined;
        expect(progress?.current).toBeLessThan(TRANSFER_STEPS.length);
        expect(status(await c.execute('transfer', transferArgs(), { requestId }))).toBe('error:CANCELLED');
        expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1500 });
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-4.4-20 CETP-4.4-21: cancel after the commit ⇒ CONFLICT, the transfer stays booked', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const accepted = (await executeThroughResolutions(c, 'transfer', transferArgs(), requestId)).at(-1);
        const operationId = String(data(accepted as Bundle).operation_id);
        expect((await pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('succeeded');
        const cancel = await cancelOperation(c, requestId, operationId);
        expect(status(cancel)).toBe('error:CONFLICT');
        expect(cancel.getBoolean('retryable', true)).toBe(false);
        expect(data(await getOperation(c, requestId, operationId)).state).toBe('succeeded');
      },
    });
    expect(effects(world)).toHaveLength(1);
  });

  it('CETP-6-05 CETP-7.3-04: insufficient funds at commit ⇒ failed with CONFLICT, replayed identically', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const args = transferArgs({ from_account: 'DE-SAV-1', amount: 250 });
        const accepted = (await executeThroughResolutions(c, 'transfer', args, requestId)).at(-1) as Bundle;
        expect(status(accepted)).toBe('accepted');
        const operationId = String(data(accepted).operation_id);
        const final = (await pollToEnd(c, requestId, operationId)).at(-1);
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
        expect(await balances(c)).toMatchObject({ 'DE-SAV-1': 100 });
      },
    });
    expect(effects(world)).toEqual([]);
  });

  it('CETP-3.4-10: without async_operations the transfer runs synchronously after the confirmation', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate(NO_ASYNC);
        const before = c.ctx.currentTimeMillis();
        const replies = await executeThroughResolutions(
          c,
          'transfer',
          transferArgs({ amount: 99.99 }),
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
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate(NO_ASYNC);
        const requestId = c.ctx.seededUuid();
        const args = transferArgs();
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
    const world = paymentsWorld(['approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const grant = await c.execute('transfer', transferArgs(), { requestId });
        await c.resolve(grant);
        const resumeToken = grant.getString('resume_token') ?? '';
        world.faults.armLostReply(PAYMENTS_PACKAGE, AGENT);
        await expect(
          c.execute('transfer', transferArgs(), { requestId, resumeToken }),
        ).rejects.toBeInstanceOf(DeadObjectException);
        const retry = await c.execute('transfer', transferArgs(), { requestId, resumeToken });
        expect(status(retry)).toBe('error:USER_ACTION_REQUIRED');
      },
    });
  });

  it('CETP-4.4-16 CETP-4.4-17: the provider killed mid-operation resumes after restart and commits exactly once', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    let requestId = '';
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        requestId = c.ctx.seededUuid();
        const args = transferArgs({ amount: 400 });
        const accepted = (await executeThroughResolutions(c, 'transfer', args, requestId)).at(-1) as Bundle;
        const operationId = String(data(accepted).operation_id);
        await c.ctx.sleep(5_000);
        world.killProcess(PAYMENTS_PACKAGE, { kind: 'killed', reason: 'test: low memory' });
        await expect(getOperation(c, requestId, operationId)).rejects.toBeInstanceOf(DeadObjectException);
        // A restart invalidated the session (2.2-12): renegotiate, then poll the same operation.
        expect(status(await getOperation(c, requestId, operationId))).toBe('error:NEGOTIATION_REQUIRED');
        await c.negotiate();
        const final = (await pollToEnd(c, requestId, operationId)).at(-1);
        expect(final).toMatchObject({ state: 'succeeded', result: { value: { balance_after: 1100 } } });
        const replay = await c.execute('transfer', args, { requestId });
        expect(status(replay)).toBe('success');
        expect(data(replay).value).toEqual((final?.result as { value: unknown } | undefined)?.value);
        expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1100 });
      },
    });
    expect(world.process(PAYMENTS_PACKAGE).incarnation).toBe(2);
    expect(effects(world).filter((e) => e.request_id === requestId)).toHaveLength(1);
  });

  it('CETP-4.4-12 CETP-4.4-13: another UID can neither read nor cancel the operation', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    const shared: { requestId?: string; operationId?: string; probed?: boolean } = {};
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const accepted = (await executeThroughResolutions(c, 'transfer', transferArgs(), requestId)).at(-1);
        const operationId = String(data(accepted as Bundle).operation_id);
        Object.assign(shared, { requestId, operationId });
        while (!shared.probed) await c.ctx.sleep(500);
        expect((await pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('succeeded');
      },
      [OTHER_AGENT]: async (c) => {
        await c.negotiate();
        while (!shared.operationId) await c.ctx.sleep(500);
        const { requestId = '', operationId = '' } = shared;
        const read = await getOperation(c, requestId, operationId);
        expect(status(read)).toBe('error:INVALID_REQUEST');
        expect(read.getString('data')).toBeNull();
        expect(status(await cancelOperation(c, requestId, operationId))).toBe('error:INVALID_REQUEST');
        shared.probed = true;
      },
    });
    expect(effects(world)).toHaveLength(1);
  });
});

describe('payments: statements (large results)', () => {
  it('CETP-4.5-02 CETP-4.5-03 CETP-4.5-04: 12 months ⇒ a read-only file whose size and lowercase sha256 match', async () => {
    const world = paymentsWorld();
    const report = await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 12 });
        expect(status(reply)).toBe('success');
        const d = data(reply) as { kind: string; media_type: string; size_bytes: number; sha256: string };
        expect(d.kind).toBe('file');
        expect(d.media_type).toBe('application/json');
        expect(d.size_bytes).toBeGreaterThan(262_144);
        expect(d.sha256).toMatch(/^[0-9a-f]{64}$/);
        const fd = reply.getParcelFileDescriptor('result_fd');
        if (!fd) throw new Error('no result_fd');
        expect(fd.mode).toBe('r');
        await expect(fd.write(new Uint8Array([1]))).rejects.toBeInstanceOf(IOException);
        const { bytes, overLimit } = await fd.readUpTo(d.size_bytes + 1);
        expect(overLimit).toBe(false);
        expect(bytes.length).toBe(d.size_bytes);
        expect(sha256Hex(bytes)).toBe(d.sha256);
        const value = JSON.parse(new TextDecoder().decode(bytes)) as { account: string; entries: unknown[] };
        expect(value.account).toBe('DE-CHK-1');
        expect(value.entries).toHaveLength(12 * 150);
        fd.close();
      },
    });
    expect(report.fdLeaks).toEqual([]);
  });

  it('NOTES 12b: the provider closes its own copy of the result fd after the reply (only the unclosed client copy leaks)', async () => {
    const world = paymentsWorld();
    const report = await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 24 });
        expect(data(reply).kind).toBe('file');
      },
    });
    expect(report.fdLeaks.map((l) => l.process)).toEqual([AGENT]);
  });

  it('CETP-4.5-11 CETP-5-21: without large_results a 12-month statement is RESULT_TOO_LARGE', async () => {
    await run(paymentsWorld(), {
      [AGENT]: async (c) => {
        await c.negotiate(['async_operations', 'cancellation']);
        const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 12 });
        expect(status(reply)).toBe('error:RESULT_TOO_LARGE');
        expect(reply.getBoolean('retryable', true)).toBe(false);
        expect(reply.getParcelFileDescriptor('result_fd')).toBeNull();
      },
    });
  });

  it('CETP-4.2-02: a 2-month statement stays inline, and a booked transfer appears in it', async () => {
    const world = paymentsWorld(['approve', 'approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate(NO_ASYNC);
        await executeThroughResolutions(
          c,
          'transfer',
          transferArgs({ reference: 'Deposit' }),
          c.ctx.seededUuid(),
        );
        const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 2 });
        const d = data(reply) as {
          kind: string;
          value: { entries: { description: string; amount: number }[] };
        };
        expect(d.kind).toBe('inline');
        expect(reply.getString('data')?.length).toBeLessThan(262_144);
        expect(d.value.entries).toHaveLength(2 * 150 + 1);
        expect(d.value.entries[0]).toMatchObject({ description: 'Deposit', amount: -250 });
      },
    });
  });

  it('CETP-7.3-04: a statement of another UID’s account is INVALID_ARGS', async () => {
    const world = paymentsWorld();
    await run(world, {
      [OTHER_AGENT]: async (c) => {
        await c.negotiate();
        const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 1 });
        expect(status(reply)).toBe('error:INVALID_ARGS');
      },
    });
  });
});

describe('payments: reconciliation (async without confirmation)', () => {
  it('CETP-4.4-04 CETP-4.4-08: reconcile_accounts needs a grant, no confirmation, and reports progress to success', async () => {
    const world = paymentsWorld(['approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const replies = await executeThroughResolutions(c, 'reconcile_accounts', {}, requestId);
        expect(replies.map(status)).toEqual(['error:AUTH_REQUIRED', 'accepted']);
        const operationId = String(data(replies[1] as Bundle).operation_id);
        const seen = await pollToEnd(c, requestId, operationId);
        const currents = seen.flatMap((s) =>
          s.progress ? [(s.progress as { current: number }).current] : [],
        );
        expect(new Set(currents).size).toBeGreaterThan(3);
        expect(seen.at(-1)).toMatchObject({
          state: 'succeeded',
          progress: { current: RECONCILE_BATCHES, total: RECONCILE_BATCHES },
          result: { value: { reconciled_accounts: ['DE-CHK-1', 'DE-SAV-1'], discrepancies: 0 } },
        });
      },
    });
    expect(world.user.screensSeen).toHaveLength(1);
    expect(effects(world).map((e) => e.tool)).toEqual(['reconcile_accounts']);
  });

  it('CETP-4.4-19: a reconciliation cancelled mid-way ends cancelled with no committed marker', async () => {
    const world = paymentsWorld(['approve']);
    await run(world, {
      [AGENT]: async (c) => {
        await c.negotiate();
        const requestId = c.ctx.seededUuid();
        const accepted = (await executeThroughResolutions(c, 'reconcile_accounts', {}, requestId)).at(-1);
        const operationId = String(data(accepted as Bundle).operation_id);
        await c.ctx.sleep(4_500);
        expect(data(await cancelOperation(c, requestId, operationId)).state).toBe('cancellation_requested');
        expect((await pollToEnd(c, requestId, operationId)).at(-1)?.state).toBe('cancelled');
      },
    });
    expect(effects(world)).toEqual([]);
    expect(world.storage(PAYMENTS_PACKAGE).snapshot('payments.reconciliations').size).toBe(0);
  });
});
