/**
 * The retry discipline (spec §4.1, §5, §6): one request_id per logical execution, re-sent only with
 * the same id, only when retryable, after retry_after_ms, never in a loop without the user — and a
 * consumer that survives provider death because it holds no stable reference.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../protocol/index.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import { IllegalStateException } from '../sim/core/errors.ts';
import { executes, WRITE } from './gaps.testing.ts';
import * as kit from './testing.ts';

/** A scripted provider whose execute_tool answers come from `script` (1-based call count). */
function scripted(
  script: (c: kit.ScriptedCall) => Bundle | null | undefined | Promise<Bundle | null | undefined>,
  consumer = {},
) {
  const world = kit.consumerWorld({ providers: [], consumer });
  kit.installScripted(world, {
    tools: [WRITE],
    answer: (c) => (c.method === 'execute_tool' ? script(c) : undefined),
  });
  return world;
}

const ok = (c: kit.ScriptedCall) => kit.success(c.requestId, { kind: 'inline', value: { n: c.n } });

describe('one request_id per logical execution', () => {
  it('CETP-4.1-04 CETP-4.1-15 CETP-6-08: a reply lost after the commit is retried with the same id and args bytes; one effect', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts'],
      world: { user: { kind: 'scripted', decisions: ['approve'] } },
    });
    const { value } = await kit.runConsumer(world, async (b) => {
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 195 }); // grants the scope
      world.applyFault({ kind: 'loseReply', callee: kit.ALERTS_PACKAGE, caller: kit.CONSUMER });
      return b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'MSFT', price: 400 });
    });
    expect(value.kind).toBe('ok');
    const second = executes(world).filter((c) => c.extras?.getString('args')?.includes('MSFT'));
    expect(second).toHaveLength(2);
    expect(second[0]?.result?.kind).toBe('exception');
    expect(new Set(second.map((c) => c.extras?.getString('request_id'))).size).toBe(1);
    expect(new Set(second.map((c) => c.extras?.getString('args'))).size).toBe(1);
    const requestId = second[0]?.extras?.getString('request_id');
    expect(kit.effectNotes(world).filter((e) => e.request_id === requestId)).toHaveLength(1);
  });

  it('CETP-4.1-16: after a timeout the consumer never re-sends the tool under a new request_id', async () => {
    const world = scripted(
      async (c) => {
        if (c.n === 1) await c.context.sleep(120_000); // a hung Binder thread
        return ok(c);
      },
      { callTimeoutMs: 5_000 },
    );
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'write', { a: 1 }),
    );
    expect(value).toMatchObject({ kind: 'ok', untrusted: { value: { n: 2 } } });
    const calls = executes(world);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.extras?.getString('request_id')).toBe(calls[0]?.extras?.getString('request_id'));
    expect((calls[1]?.t ?? 0) - (calls[0]?.t ?? 0)).toBeGreaterThanOrEqual(5_000);
    expect(report.outcome.kind).toBe('completed');
  });

  it('CETP-4.5-09: a reply that arrives after the consumer timed out has its fds closed, not leaked', async () => {
    const world = scripted(
      async (c) => {
        if (c.n > 1) return ok(c);
        await c.context.sleep(20_000);
        const bytes = new TextEncoder().encode('{}');
        c.context.writeFile('late.json', bytes);
        const fd = c.context.openFile('late.json', 'r');
        const reply = kit.success(c.requestId, {
          kind: 'file',
          media_type: 'application/json',
          size_bytes: 2,
          sha256: sha256Hex(bytes),
        });
        reply.putParcelFileDescriptor('result_fd', fd);
        c.context.spawn('close', async () => {
          await c.context.yield();
          fd.close();
        });
        return reply;
      },
      { callTimeoutMs: 5_000 },
    );
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'write', {}),
    );
    expect(value.kind).toBe('ok');
    expect(report.fdLeaks).toEqual([]);
    expect(world.trace.ofKind('fd.dup').filter((e) => e.data.to === kit.CONSUMER)).toHaveLength(1);
  });

  it('CETP-6-08: a provider that dies mid-call is re-acquired (restarted) and asked again with the same id', async () => {
    const world = scripted((c) => {
      if (c.context.process.incarnation === 1)
        world.killProcess(kit.SCRIPTED_PACKAGE, { kind: 'killed', reason: 'test' });
      return ok(c);
    });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.SCRIPTED_PACKAGE, 'write', {}),
    );
    expect(value.kind).toBe('ok');
    const calls = executes(world);
    expect(calls.map((c) => c.result?.kind)).toEqual(['exception', 'reply']);
    expect(calls[1]?.extras?.getString('request_id')).toBe(calls[0]?.extras?.getString('request_id'));
    expect(report.crashes).toEqual([]);
  });

  it('a null reply is an unknown outcome: re-sent with the same id', async () => {
    const world = scripted((c) => (c.n === 1 ? null : ok(c)));
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    expect(new Set(executes(world).map((c) => c.extras?.getString('request_id'))).size).toBe(1);
  });

  it('transport failures are retried a bounded number of times; an effectful call then ends outcome_unknown, still journaled', async () => {
    const world = scripted(() => null);
    const { value } = await kit.runConsumer(world, async (b) => ({
      outcome: await b.execute(kit.SCRIPTED_PACKAGE, 'write', {}),
      pending: await b.journal.pending(),
    }));
    expect(value.outcome.kind).toBe('outcome_unknown');
    expect(executes(world)).toHaveLength(5);
    expect(value.pending.map((e) => e.requestId)).toEqual([value.outcome.requestId]);
  });
});

describe('the provider crash trap (ContentResolver.call vs an unstable client)', () => {
  for (const stable of [false, true]) {
    it(`${stable ? 'with the stable ContentResolver.call, the consumer process dies with the provider' : 'with an unstable client, the consumer survives the provider’s death'}`, async () => {
      const world = scripted(
        (c) => {
          if (c.context.process.incarnation === 1)
            world.killProcess(kit.SCRIPTED_PACKAGE, { kind: 'killed', reason: 'test' });
          return ok(c);
        },
        stable ? { plantedBugs: ['consumer-uses-stable-call'] } : {},
      );
      let finished = false;
      world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
        const { bridgeIn } = await import('./app.ts');
        await bridgeIn(ctx).execute(kit.SCRIPTED_PACKAGE, 'write', {});
        finished = true;
      });
      await world.run();
      const consumer = world.allProcesses().find((p) => p.name === kit.CONSUMER);
      expect(finished).toBe(!stable);
      expect(consumer?.state.kind).toBe(stable ? 'dead' : 'running');
      if (stable)
        expect(consumer?.state).toMatchObject({
          cause: { kind: 'dependency', provider: kit.SCRIPTED_PACKAGE },
        });
    });
  }
});

describe('retryable, retry_after_ms, and no loops', () => {
  for (const [code, retryable] of [
    ['CONFLICT', false],
    ['INVALID_REQUEST', false],
    ['PERMISSION_DENIED', true],
    ['USER_CANCELLED', true],
    ['QUOTA_MELTDOWN', true],
  ] as const) {
    it(`CETP-5-26: ${code} (retryable=${retryable}) is not retried automatically`, async () => {
      const world = scripted((c) => kit.errorReply(c.requestId, code, { retryable }));
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(executes(world)).toHaveLength(1);
      expect(value.kind).not.toBe('ok');
      if (code === 'QUOTA_MELTDOWN') expect(value).toMatchObject({ kind: 'rejected', code: 'UNRECOGNIZED' });
    });
  }

  it('CETP-5-27: a retry waits at least retry_after_ms on the virtual clock', async () => {
    const world = scripted((c) =>
      c.n === 1
        ? kit.errorReply(c.requestId, 'RATE_LIMITED', { retryable: true, retryAfterMs: 5_000 })
        : ok(c),
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    const [first, second] = executes(world);
    expect((second?.t ?? 0) - (first?.t ?? 0)).toBeGreaterThanOrEqual(5_000);
    expect(second?.extras?.getString('request_id')).toBe(first?.extras?.getString('request_id'));
  });

  it('CETP-5-26 CETP-5-27: a retryable error is retried a bounded number of times, then reported as temporary unavailability', async () => {
    const world = scripted((c) => kit.errorReply(c.requestId, 'UNAVAILABLE', { retryable: true }));
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'provider_unavailable', temporary: true });
    expect(executes(world)).toHaveLength(5);
    const ts = executes(world).map((c) => c.t);
    expect(ts.every((t, i) => i === 0 || t > (ts[i - 1] as number))).toBe(true);
  });

  it('a retry_after_ms beyond the consumer’s patience is not waited for', async () => {
    const world = scripted((c) =>
      kit.errorReply(c.requestId, 'RATE_LIMITED', { retryable: true, retryAfterMs: 86_400_000 }),
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'provider_unavailable', temporary: true, retryAfterMs: 86_400_000 });
    expect(executes(world)).toHaveLength(1);
  });

  for (const code of ['INVALID_ARGS', 'AUTH_REQUIRED', 'USER_ACTION_REQUIRED'] as const) {
    it(`CETP-5-28: ${code} marked retryable=true is not retried without a user action or new args`, async () => {
      const world = scripted((c) => kit.errorReply(c.requestId, code, { retryable: true, retryAfterMs: 1 }));
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value).toMatchObject({ kind: 'rejected', code });
      expect(executes(world)).toHaveLength(1);
    });
  }

  it('CETP-5-19: after DEADLINE_EXCEEDED the next step is a same-request_id query (re-send with a fresh deadline)', async () => {
    const world = scripted((c) =>
      c.n === 1 ? kit.errorReply(c.requestId, 'DEADLINE_EXCEEDED', { retryable: false }) : ok(c),
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    const [first, second] = executes(world);
    expect(second?.extras?.getString('request_id')).toBe(first?.extras?.getString('request_id'));
    expect(second?.extras?.getLong('deadline_at_ms')).toBeGreaterThan(second?.t ?? 0);
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual(['first', 'query']);
  });
});

describe('deadline queries', () => {
  it('CETP-5-19 CETP-5-26: one same-id query after DEADLINE_EXCEEDED; a non-retryable answer to the query ends it', async () => {
    const world = scripted((c) => kit.errorReply(c.requestId, 'DEADLINE_EXCEEDED', { retryable: false }));
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'DEADLINE_EXCEEDED' });
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual(['first', 'query']);
  });
});

describe('execute_tool requests', () => {
  it('CETP-4.1-06: execute_tool carries tool_name and args as a JSON String, byte for byte as given', async () => {
    const world = scripted(ok);
    const json = '{"b":1.50,"a":"x"}';
    await kit.runConsumer(world, (b) => b.executeJson(kit.SCRIPTED_PACKAGE, 'write', json));
    const [call] = executes(world);
    expect(call?.extras?.getString('tool_name')).toBe('write');
    expect(call?.extras?.typeOf('args')).toBe('String');
    expect(call?.extras?.getString('args')).toBe(json);
  });

  it('CETP-4.1-08: args of exactly max_request_bytes are sent; one byte more is refused locally', async () => {
    const world = scripted(ok);
    const args = (size: number) => `{"p":"${'é'.repeat(2)}${'x'.repeat(size - 12)}"}`;
    const { value } = await kit.runConsumer(world, async (b) => [
      await b.executeJson(kit.SCRIPTED_PACKAGE, 'write', args(65_536)),
      await b.executeJson(kit.SCRIPTED_PACKAGE, 'write', args(65_537)),
    ]);
    expect(new TextEncoder().encode(args(65_536)).length).toBe(65_536);
    expect(value.map((o) => o.kind)).toEqual(['ok', 'invalid_args']);
    expect(value[1]).toMatchObject({ issues: ['args_too_large'] });
    expect(executes(world)).toHaveLength(1);
  });

  it('CETP-4.1-12 CETP-4.1-13: a list_tools retried after a failed transaction keeps its request_id; a new read gets a new one', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      answer: (c) => {
        if (c.method === 'list_tools' && c.n === 1) return null;
        if (c.method === 'execute_tool' && c.n === 1)
          return kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true });
        return undefined;
      },
    });
    await kit.runConsumer(world, async (b) => {
      await b.listTools();
      await b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}); // NEGOTIATION_REQUIRED ⇒ a new session ⇒ a new read
    });
    const lists = kit.consumerCalls(world).filter((c) => c.method === 'list_tools');
    const ids = lists.map((c) => c.extras?.getString('request_id'));
    expect(ids).toHaveLength(3);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('NOTES 8b: after NEGOTIATION_REQUIRED the consumer renegotiates and re-sends with the same request_id', async () => {
    const world = scripted((c) =>
      c.n === 1 ? kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true }) : ok(c),
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    const methods = kit.consumerCalls(world).map((c) => c.method);
    expect(methods).toEqual([
      'negotiate',
      'get_provider_info',
      'list_tools',
      'execute_tool',
      'negotiate',
      'get_provider_info',
      'list_tools',
      'execute_tool',
    ]);
    const [a, b] = executes(world);
    expect(b?.extras?.getString('request_id')).toBe(a?.extras?.getString('request_id'));
    expect(b?.extras?.getString('session_token')).not.toBe(a?.extras?.getString('session_token'));
  });

  for (const thrown of ['IllegalStateException', 'a plain Error (never crosses Binder: an empty reply)']) {
    it(`an exception thrown by the provider (${thrown}) is an unknown outcome, re-sent with the same id`, async () => {
      const world = scripted((c) => {
        if (c.n === 1)
          throw thrown === 'IllegalStateException' ? new IllegalStateException('boom') : new Error('boom');
        return ok(c);
      });
      const { value, report } = await kit.runConsumer(world, (b) =>
        b.execute(kit.SCRIPTED_PACKAGE, 'write', {}),
      );
      expect(value.kind).toBe('ok');
      expect(new Set(executes(world).map((c) => c.extras?.getString('request_id'))).size).toBe(1);
      expect(report.crashes.filter((c) => c.task.includes(kit.CONSUMER))).toEqual([]);
    });
  }
});
