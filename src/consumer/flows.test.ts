/**
 * End-to-end flows of the reference consumer against the reference providers (alerts: dual stack;
 * payments: v2-only with async, cancellation and large results; legacy: v1-only), all over
 * simulated Binder, PendingIntents and fds. Each test also checks that no fd leaked and no app
 * crashed.
 */
import { describe, expect, it } from 'vitest';
import { TRANSFER_STEPS } from '../providers/apps/payments.ts';
import type { World } from '../sim/world.ts';
import type { ToolOutcome } from './outcomes.ts';
import * as kit from './testing.ts';
import type { UntrustedProgress } from './untrusted.ts';

const IBAN = 'DE89370400440532013000';

function transferArgs(uid: number, amount = 25) {
  return { from_account: `CHK-${uid}`, to_iban: IBAN, amount, currency: 'EUR', reference: 'Rent' };
}

function approveAll(n = 8) {
  return { user: { kind: 'scripted' as const, decisions: Array(n).fill('approve') } };
}

function clean(report: {
  fdLeaks: readonly unknown[];
  crashes: readonly unknown[];
  outcome: { kind: string };
}) {
  expect(report.fdLeaks).toEqual([]);
  expect(report.crashes).toEqual([]);
  expect(report.outcome.kind).toBe('completed');
}

function ok(outcome: ToolOutcome) {
  if (outcome.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('synchronous tools', () => {
  it('a read tool returns a typed, untrusted value', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'] });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'MSFT' }),
    );
    const o = ok(value);
    expect(o.untrusted).toEqual({
      trust: 'untrusted',
      providerId: kit.ALERTS_PACKAGE,
      tool: 'get_quote',
      transport: 'inline',
      value: { symbol: 'MSFT', price: 410 },
    });
    clean(report);
  });

  it('lists the tools of every reference provider, v1 and v2, sorted by (provider_id, name)', async () => {
    const world = kit.consumerWorld();
    const { value } = await kit.runConsumer(world, (b) => b.listTools());
    expect(value.map((t) => `${t.providerId}/${t.name}/v${t.version}`)).toEqual([
      'com.example.alerts/create_alert/v2',
      'com.example.alerts/delete_alert/v2',
      'com.example.alerts/get_quote/v2',
      'com.example.alerts/list_alerts/v2',
      'com.example.legacy/get_weather/v1',
      'com.example.legacy/list_cities/v1',
      'com.example.payments/export_statement/v2',
      'com.example.payments/get_balance/v2',
      'com.example.payments/reconcile_accounts/v2',
      'com.example.payments/transfer/v2',
    ]);
  });
});

describe('confirmation', () => {
  it('approve: a scope grant and a confirmation in the provider UI, then one effect', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'], world: approveAll() });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
    );
    expect(ok(value).untrusted.value).toEqual({ alert_id: 'ALRT-1' });
    expect(world.user.screensSeen).toHaveLength(2);
    expect(kit.effectNotes(world)).toHaveLength(1);
    clean(report);
  });

  it('deny: the user refuses the confirmation; user_cancelled and no effect', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts'],
      world: { user: { kind: 'scripted', decisions: ['approve', 'deny'] } },
    });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
    );
    expect(value.kind).toBe('user_cancelled');
    expect(kit.effectNotes(world)).toEqual([]);
    clean(report);
  });

  it('back: the user backs out (RESULT_CANCELED); the consumer still resumes and gets user_cancelled', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts'],
      world: { user: { kind: 'scripted', decisions: ['approve', 'back'] } },
    });
    const { value } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
    );
    expect(value.kind).toBe('user_cancelled');
    const reasons = kit.auditEvents(world, 'execution.attempt').map((e) => e.reason);
    expect(reasons).toEqual(['first', 'resume', 'resume']);
    expect(kit.effectNotes(world)).toEqual([]);
  });
});

describe('async operations', () => {
  it('transfer: grant, confirmation, then an async operation with progress; one effect', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    const progress: UntrustedProgress[] = [];
    const { value, report } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', transferArgs(ctx.uid), {
        onProgress: (p) => progress.push(p),
      }),
    );
    const o = ok(value);
    expect(o.untrusted.value).toMatchObject({ status: 'booked', amount: 25, balance_after: 4975 });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.trust === 'untrusted' && p.current <= p.total)).toBe(true);
    expect(progress.every((p) => (TRANSFER_STEPS as readonly string[]).includes(p.message?.text ?? ''))).toBe(
      true,
    );
    expect(kit.effectNotes(world)).toHaveLength(1);
    const methods = kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).map((c) => c.method);
    expect(methods).toContain('get_operation');
    clean(report);
  });

  it('reconcile_accounts: a long operation without confirmation, polled to success', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    const progress: number[] = [];
    const { value } = await kit.runConsumer(world, (b) =>
      b.execute(
        kit.PAYMENTS_PACKAGE,
        'reconcile_accounts',
        {},
        { onProgress: (p) => progress.push(p.current) },
      ),
    );
    expect(ok(value).untrusted.value).toMatchObject({ discrepancies: 0 });
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(world.user.screensSeen).toHaveLength(1); // only the scope grant
  });
});

describe('cancellation', () => {
  it('before the commit point: cancel_operation, then polled to state=cancelled; no effect', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    const { value, report } = await kit.runConsumer(world, (b, ctx) => {
      const cancel = b.cancellation();
      return b.execute(kit.PAYMENTS_PACKAGE, 'transfer', transferArgs(ctx.uid), {
        cancel,
        onProgress: () => cancel.cancel(),
      });
    });
    expect(value.kind).toBe('cancelled');
    expect(kit.effectNotes(world)).toEqual([]);
    const methods = kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).map((c) => c.method);
    const cancelAt = methods.indexOf('cancel_operation');
    expect(cancelAt).toBeGreaterThan(0);
    expect(methods.slice(cancelAt + 1)).toContain('get_operation');
    clean(report);
  });

  it('after the commit point: CONFLICT is reported as too_late_to_cancel, with what happened', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    const { value, report } = await kit.runConsumer(world, async (b, ctx) => {
      const cancel = b.cancellation();
      cancelOnceCommitted(world, () => cancel.cancel());
      return b.execute(kit.PAYMENTS_PACKAGE, 'transfer', transferArgs(ctx.uid), { cancel });
    });
    if (value.kind !== 'too_late_to_cancel') throw new Error(JSON.stringify(value));
    expect(ok(value.completed).untrusted.value).toMatchObject({ status: 'booked' });
    expect(kit.effectNotes(world)).toHaveLength(1);
    const cancels = (world.contentCalls ?? []).filter((c) => c.method === 'cancel_operation');
    expect(
      cancels.map((c) => (c.result?.kind === 'reply' ? c.result.reply?.getString('error_code') : null)),
    ).toEqual(['CONFLICT']);
    clean(report);
  });
});

/** A harness thread that raises `cancel` as soon as the business effect is in the trace. */
function cancelOnceCommitted(world: World, cancel: () => void): void {
  world.spawn('cancel-after-commit', async () => {
    while (kit.effectNotes(world).length === 0) await world.scheduler.sleep(10);
    cancel();
  });
}

describe('large results', () => {
  it('export_statement over 12 months: a verified file result; under 12: inline; no fd leaked', async () => {
    const world = kit.consumerWorld({ providers: ['payments'] });
    const { value, report } = await kit.runConsumer(world, async (b, ctx) => [
      await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 12 }),
      await b.execute(kit.PAYMENTS_PACKAGE, 'export_statement', { account: `CHK-${ctx.uid}`, months: 2 }),
    ]);
    const [file, inline] = value.map(ok) as [ReturnType<typeof ok>, ReturnType<typeof ok>];
    expect(file.untrusted.transport).toBe('file');
    expect((file.untrusted.value as { entries: unknown[] }).entries).toHaveLength(1800);
    expect(inline.untrusted.transport).toBe('inline');
    clean(report);
  });
});

describe('v1 fallback', () => {
  it('the legacy (v1-only) provider is used through v1: no negotiate, no protocol_version', async () => {
    const world = kit.consumerWorld({ providers: ['legacy'] });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.LEGACY_PACKAGE, 'get_weather', { city: 'Zurich' }),
    );
    expect(ok(value).untrusted.value).toMatchObject({ city: 'Zurich' });
    const calls = kit.consumerCalls(world, kit.LEGACY_PACKAGE);
    expect(calls.map((c) => c.method)).toEqual(['list_tools', 'execute_tool']);
    expect(calls.every((c) => !c.extras?.containsKey('protocol_version'))).toBe(true);
    expect(kit.auditEvents(world, 'provider.v1')).toHaveLength(1);
    clean(report);
  });
});

describe('restarts', () => {
  it('provider restart mid-operation: the consumer renegotiates and polls the same operation to its end', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    world.spawn('kill payments mid-operation', async () => {
      while (!(world.contentCalls ?? []).some((c) => c.method === 'get_operation'))
        await world.scheduler.sleep(100);
      world.killProcess(kit.PAYMENTS_PACKAGE, { kind: 'killed', reason: 'test' });
    });
    const { value, report } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', transferArgs(ctx.uid)),
    );
    expect(ok(value).untrusted.value).toMatchObject({ status: 'booked' });
    expect(kit.effectNotes(world)).toHaveLength(1);
    expect(
      kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).filter((c) => c.method === 'negotiate').length,
    ).toBeGreaterThanOrEqual(2);
    expect(world.allProcesses().find((p) => p.name === kit.CONSUMER)?.incarnation).toBe(1);
    clean(report);
  });

  it('consumer restart mid-operation: a new consumer resumes the journaled execution, same request_id, one effect', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: approveAll() });
    const outcomes: ToolOutcome[] = [];
    kit.restartConsumer(world, {
      name: 'kill the consumer, start it again',
      ready: () => (world.contentCalls ?? []).some((c) => c.method === 'get_operation'),
      pollMs: 100,
      downMs: 500,
      resumed: outcomes,
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      const { bridgeIn } = await import('./app.ts');
      await bridgeIn(ctx).execute(kit.PAYMENTS_PACKAGE, 'transfer', transferArgs(ctx.uid));
    });
    const report = await world.run();
    expect(outcomes).toHaveLength(1);
    expect(ok(outcomes[0] as ToolOutcome).untrusted.value).toMatchObject({ status: 'booked' });
    const starts = kit.auditEvents(world, 'execution.start');
    const resumed = kit.auditEvents(world, 'execution.resumed');
    expect(starts).toHaveLength(1);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.request_id).toBe(starts[0]?.request_id);
    expect(resumed[0]?.execution_id).toBe(starts[0]?.execution_id);
    const ids = new Set(kit.auditEvents(world, 'execution.attempt').map((e) => e.request_id));
    expect(ids.size).toBe(1);
    expect(kit.effectNotes(world)).toHaveLength(1);
    expect(kit.effectNotes(world)[0]?.request_id).toBe(starts[0]?.request_id);
    expect(report.fdLeaks).toEqual([]);
  });
});
