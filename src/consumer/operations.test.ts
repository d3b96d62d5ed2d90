/**
 * Async operations, cancellation and capability gating from the consumer's side (spec §2.3, §4,
 * §4.4, §8).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../base/json.ts';
import { HOSTILE_CASES, HOSTILE_PACKAGE, installHostile } from '../providers/hostile/index.ts';
import { ASYNC } from './gaps.testing.ts';
import * as kit from './testing.ts';
import type { UntrustedProgress } from './untrusted.ts';

/** A scripted async provider: execute_tool accepts op_1; get_operation / cancel_operation as scripted. */
function asyncProvider(
  status: (c: kit.ScriptedCall) => JsonValue | null,
  cancel: (c: kit.ScriptedCall) => ReturnType<typeof kit.success> | undefined = () => undefined,
  consumer = {},
) {
  const world = kit.consumerWorld({ providers: [], consumer });
  kit.installScripted(world, {
    tools: [ASYNC],
    answer: (c) => {
      if (c.method === 'execute_tool') return kit.accepted(c.requestId, 'op_1', 1_000);
      if (c.method === 'get_operation') {
        const data = status(c);
        return data === null ? null : kit.success(c.requestId, data);
      }
      if (c.method === 'cancel_operation') return cancel(c);
      return undefined;
    },
  });
  return world;
}

describe('polling', () => {
  it('CETP-4.4-03 CETP-4.1-10 CETP-4.1-11: get_operation carries the operation_id and the creating request_id, until a terminal state', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: kit.approvingUser(2) });
    const { value } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid)),
    );
    expect(value.kind).toBe('ok');
    const calls = kit.consumerCalls(world, kit.PAYMENTS_PACKAGE);
    const acceptedCall = calls.find(
      (c) => c.result?.kind === 'reply' && c.result.reply?.getString('status') === 'accepted',
    );
    const reply = acceptedCall?.result?.kind === 'reply' ? acceptedCall.result.reply : null;
    const operationId = (JSON.parse(reply?.getString('data') ?? '{}') as { operation_id: string })
      .operation_id;
    const polls = calls.filter((c) => c.method === 'get_operation');
    expect(polls.length).toBeGreaterThan(3);
    for (const p of polls) {
      expect(p.extras?.getString('operation_id')).toBe(operationId);
      expect(p.extras?.getString('request_id')).toBe(acceptedCall?.extras?.getString('request_id'));
    }
    const last = polls.at(-1)?.result;
    expect(last?.kind === 'reply' ? JSON.parse(last.reply?.getString('data') ?? '{}').state : null).toBe(
      'succeeded',
    );
  });

  it('CETP-4.4-09: progress is display data — current == total while running, then failed, is a failure', async () => {
    const progress: UntrustedProgress[] = [];
    const world = asyncProvider((c) =>
      c.n === 1
        ? {
            operation_id: 'op_1',
            state: 'running',
            progress: { current: 100, total: 100, message: 'Done!' },
            poll_after_ms: 500,
          }
        : {
            operation_id: 'op_1',
            state: 'failed',
            error: { error_code: 'CONFLICT', error_message: 'Nope.', retryable: false },
          },
    );
    const { value } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'job', {}, { onProgress: (p) => progress.push(p) }),
    );
    expect(value).toMatchObject({ kind: 'rejected', code: 'CONFLICT' });
    expect(progress).toEqual([
      {
        trust: 'untrusted',
        current: 100,
        total: 100,
        message: { trust: 'untrusted', text: 'Done!', truncated: false },
      },
    ]);
  });

  it('poll_after_ms is honoured within the consumer’s bounds', async () => {
    const world = asyncProvider((c) =>
      c.n < 3
        ? { operation_id: 'op_1', state: 'running', poll_after_ms: c.n === 1 ? 3_000 : 0 }
        : { operation_id: 'op_1', state: 'succeeded', result: { kind: 'inline', value: {} } },
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'job', {}));
    expect(value.kind).toBe('ok');
    const ts = kit
      .consumerCalls(world)
      .filter((c) => c.method === 'get_operation')
      .map((c) => c.t);
    expect((ts[1] ?? 0) - (ts[0] ?? 0)).toBe(3_000);
    expect((ts[2] ?? 0) - (ts[1] ?? 0)).toBe(100);
  });

  it('a transport failure while polling is retried with the same ids; a wrong operation_id is a protocol violation', async () => {
    const world = asyncProvider((c) =>
      c.n === 1 ? null : { operation_id: c.n === 2 ? 'op_1' : 'op_2', state: 'running', poll_after_ms: 100 },
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'job', {}));
    expect(value).toMatchObject({ kind: 'invalid_response', issues: ['operation_id_mismatch'] });
    const polls = kit.consumerCalls(world).filter((c) => c.method === 'get_operation');
    expect(new Set(polls.map((p) => p.extras?.getString('request_id'))).size).toBe(1);
  });
});

describe('cancellation', () => {
  it('CETP-4.4-11 CETP-4.4-19: cancellation_requested then state=succeeded is reported as executed (too_late_to_cancel), not cancelled', async () => {
    const world = asyncProvider(
      (c) =>
        c.n === 1
          ? { operation_id: 'op_1', state: 'running', progress: { current: 1, total: 2 }, poll_after_ms: 100 }
          : { operation_id: 'op_1', state: 'succeeded', result: { kind: 'inline', value: { done: true } } },
      (c) => kit.success(c.requestId, { operation_id: 'op_1', state: 'cancellation_requested' }),
    );
    const { value } = await kit.runConsumer(world, (b) => {
      const cancel = b.cancellation();
      return b.execute(kit.SCRIPTED_PACKAGE, 'job', {}, { cancel, onProgress: () => cancel.cancel() });
    });
    expect(value).toMatchObject({
      kind: 'too_late_to_cancel',
      completed: { kind: 'ok', untrusted: { value: { done: true } } },
    });
    const methods = kit.consumerCalls(world).map((c) => c.method);
    expect(methods.slice(methods.indexOf('cancel_operation'))).toEqual(['cancel_operation', 'get_operation']);
  });

  it('CETP-4.4-18: with cancellation negotiated, cancel_operation is accepted for a running operation', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: kit.approvingUser(2) });
    const { value } = await kit.runConsumer(world, kit.reconcileCancelledAtProgress);
    expect(value.kind).toBe('cancelled');
    const cancels = kit
      .consumerCalls(world, kit.PAYMENTS_PACKAGE)
      .filter((c) => c.method === 'cancel_operation');
    expect(
      cancels.map((c) => (c.result?.kind === 'reply' ? c.result.reply?.getString('status') : null)),
    ).toEqual(['success']);
    expect(kit.effectNotes(world)).toEqual([]);
  });

  it('CETP-2.3-04 CETP-4-06 CETP-8-06: without cancellation in the session, no cancel_operation is ever sent', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      world: kit.approvingUser(2),
      consumer: { capabilities: ['async_operations', 'large_results'] },
    });
    const { value } = await kit.runConsumer(world, (b, ctx) => {
      const cancel = b.cancellation();
      return b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid), {
        cancel,
        onProgress: () => cancel.cancel(),
      });
    });
    expect(value.kind).toBe('ok');
    const methods = kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).map((c) => c.method);
    expect(methods).toContain('get_operation');
    expect(methods).not.toContain('cancel_operation');
  });
});

describe('capability gating', () => {
  it('CETP-2.3-02 CETP-4-05: a session without async_operations runs tools synchronously and never polls', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts', 'payments'],
      world: kit.approvingUser(4),
      consumer: { capabilities: [] },
    });
    const { value } = await kit.runConsumer(world, async (b, ctx) => [
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
      await b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid)),
    ]);
    expect(value.map((o) => o.kind)).toEqual(['ok', 'ok']);
    const calls = kit.consumerCalls(world);
    expect(calls.some((c) => c.method === 'get_operation' || c.method === 'cancel_operation')).toBe(false);
    expect(
      calls.every((c) => c.result?.kind !== 'reply' || c.result.reply?.getString('status') !== 'accepted'),
    ).toBe(true);
  });

  it('CETP-2.3-02 CETP-2.3-04: an `accepted` in a session without async_operations is a protocol violation, never polled', async () => {
    const world = kit.consumerWorld({ providers: [], consumer: { capabilities: ['large_results'] } });
    installHostile(
      world,
      (HOSTILE_CASES.find((c) => c.id === 'accepted-without-async') ?? { behaviour: {} }).behaviour,
    );
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'x' }),
    );
    expect(value.kind).toBe('invalid_response');
    expect(kit.consumerCalls(world, HOSTILE_PACKAGE).map((c) => c.method)).not.toContain('get_operation');
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-9-11 CETP-2.3-01: each optional capability is offered on its own; the core works with none of them', async () => {
    for (const capabilities of [[], ['async_operations'], ['cancellation'], ['large_results']] as const) {
      const world = kit.consumerWorld({ providers: ['payments'], consumer: { capabilities } });
      const { value } = await kit.runConsumer(world, (b) =>
        b.execute(kit.PAYMENTS_PACKAGE, 'get_balance', {}),
      );
      expect(value.kind).toBe('ok');
      const negotiate = kit.consumerCalls(world, kit.PAYMENTS_PACKAGE)[0];
      expect(JSON.parse(negotiate?.extras?.getString('consumer_capabilities') ?? '')).toEqual(capabilities);
    }
  });

  it('an unknown error from get_operation ends polling without a retry', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [ASYNC],
      answer: (c) => {
        if (c.method === 'execute_tool') return kit.accepted(c.requestId, 'op_1', 100);
        if (c.method === 'get_operation')
          return kit.errorReply(c.requestId, 'OPERATION_MELTED', { retryable: true });
        return undefined;
      },
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'job', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'UNRECOGNIZED' });
    expect(kit.consumerCalls(world).filter((c) => c.method === 'get_operation')).toHaveLength(1);
  });
});
