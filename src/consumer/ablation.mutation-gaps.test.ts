/**
 * More consumer mutation gaps (docs/notes/mutation.md): which replies' fds the planted leak keeps open
 * (4.5-09), and that each rule's ablation switches exactly its own check off (what `cetp-sim ablate`
 * measures). Scripted providers; virtual time.
 */
import { describe, expect, it } from 'vitest';
import { Intent } from '../sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../sim/ui/pending-intent.ts';
import { executes, needsConfirmation, ok, scripted, WRITE } from './gaps.testing.ts';
import * as kit from './testing.ts';

describe('CETP-4.5-09: which replies’ fds the planted leak keeps open (the bug is exactly the one described)', () => {
  for (const [name, good, leaks] of [
    ['a verified file result (success)', true, false],
    ['a file result failing its digest (failure)', false, true],
  ] as const) {
    it(`CETP-4.5-09: consumer-leaks-fd-on-error with ${name}: fd ${leaks ? 'leaked' : 'closed'}`, async () => {
      const world = scripted(
        (c) =>
          c.method === 'execute_tool'
            ? kit.fileReply(c, { rows: [] }, good ? {} : { sha256: '0'.repeat(64) })
            : undefined,
        { plantedBugs: ['consumer-leaks-fd-on-error'] },
      );
      const { value, report } = await kit.runConsumer(world, (b) =>
        b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}),
      );
      expect(value.kind).toBe(good ? 'ok' : 'integrity');
      expect(report.fdLeaks.some((l) => l.process === kit.CONSUMER)).toBe(leaks);
    });
  }
});

describe('rule ablation switches exactly its own check off (what `cetp-sim ablate` measures)', () => {
  const deadline = (c: kit.ScriptedCall) =>
    c.method === 'execute_tool'
      ? c.n === 1
        ? kit.errorReply(c.requestId, 'DEADLINE_EXCEEDED', { retryable: true })
        : ok(c)
      : undefined;

  it('CETP-5-19: after DEADLINE_EXCEEDED the next call is a same-id query; ablated, a plain retry', async () => {
    for (const [disabledRules, reasons] of [
      [[], ['first', 'query']],
      [['CETP-5-19'], ['first', 'retry']],
    ] as const) {
      const world = scripted(deadline, { disabledRules, retry: { baseBackoffMs: 1 } });
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('ok');
      expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual(reasons);
      expect(new Set(executes(world).map((c) => c.extras?.getString('request_id'))).size).toBe(1);
    }
  });

  it('CETP-4.1-04 ablated: the query after DEADLINE_EXCEEDED goes out under a new request_id', async () => {
    const world = scripted(deadline, { disabledRules: ['CETP-4.1-04'] });
    await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    const ids = executes(world).map((c) => c.extras?.getString('request_id'));
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('CETP-5-28: a provider that asks a fifth time is a user_action_loop; with 5-28 ablated the fifth resolution is followed', async () => {
    const asks = (c: kit.ScriptedCall) =>
      c.method === 'execute_tool' ? (c.n <= 5 ? needsConfirmation(c) : ok(c)) : undefined;
    for (const [disabledRules, kind, launches] of [
      [[], 'user_action_loop', 4],
      [['CETP-5-28'], 'ok', 5],
    ] as const) {
      const world = scripted(asks, { disabledRules, retry: { maxUserActions: 4 } });
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
      expect(value.kind).toBe(kind);
      expect(world.trace.ofKind('pi.send').filter((e) => e.data.from === kit.CONSUMER)).toHaveLength(
        launches,
      );
    }
  });

  for (const rule of ['CETP-7.3-02', 'CETP-4.2-04']) {
    it(`${rule}: an inline value that breaks the output schema is an integrity failure; with ${rule} ablated it is accepted`, async () => {
      const strict = kit.toolDescriptor('strict', {
        output_schema: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'] },
      });
      for (const [disabledRules, kind] of [
        [[], 'integrity'],
        [[rule], 'ok'],
      ] as const) {
        const world = scripted((c) => (c.method === 'execute_tool' ? ok(c) : undefined), { disabledRules }, [
          strict,
        ]);
        const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'strict', {}));
        expect(value.kind).toBe(kind);
      }
    });
  }
});

describe('CETP-4.3-07: only AUTH_REQUIRED / USER_ACTION_REQUIRED with both a resolution and a resume_token are resolved', () => {
  for (const [code, withPi, withToken] of [
    ['CONFLICT', true, true],
    ['PERMISSION_DENIED', true, true],
    ['CONFLICT', false, true],
    ['USER_ACTION_REQUIRED', false, true],
    ['USER_ACTION_REQUIRED', true, false],
    ['AUTH_REQUIRED', false, true],
  ] as const) {
    it(`CETP-4.3-07 CETP-4.3-16 CETP-5-28: ${code}${withPi ? ' with a resolution' : ''}${withToken ? ' with a resume_token' : ''} ends as rejected; nothing is launched`, async () => {
      const world = scripted((c) => {
        if (c.method !== 'execute_tool') return undefined;
        const reply = kit.errorReply(c.requestId, code, {
          retryable: false,
          ...(withToken ? { resumeToken: 'token-x' } : {}),
        });
        if (withPi) {
          const pi = c.context.getActivityPendingIntent(
            c.n,
            Intent.explicit(kit.SCRIPTED_PACKAGE, kit.SCRIPTED_ACTIVITY, { data: `confirm://${c.n}` }),
            FLAG_IMMUTABLE,
          );
          reply.putPendingIntent('resolution', pi);
        }
        return reply;
      });
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
      expect(value).toMatchObject({ kind: 'rejected', code });
      expect(executes(world)).toHaveLength(1);
      expect(world.trace.ofKind('pi.send').filter((e) => e.data.from === kit.CONSUMER)).toEqual([]);
    });
  }
});

describe('NOTES-6: the reading argsBytes=reserialize', () => {
  it('CETP-4.1-15 NOTES-6: the first send carries the args bytes as written; a journaled execution resumed after a consumer restart re-serialises them from its first send on', async () => {
    const written = '{"b":1, "a":2}';
    const world = kit.consumerWorld({ providers: [], consumer: { variants: { argsBytes: 'reserialize' } } });
    kit.installScripted(world, {
      tools: [WRITE],
      answer: async (c) => {
        if (c.method !== 'execute_tool') return undefined;
        if (c.n === 1) await c.context.sleep(1_000); // the consumer dies meanwhile
        return ok(c);
      },
    });
    kit.restartConsumer(world, {
      name: 'kill the consumer, start it again',
      ready: () => (world.contentCalls ?? []).some((c) => c.method === 'execute_tool'),
      pollMs: 50,
      downMs: 2_000,
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      const { bridgeIn } = await import('./app.ts');
      await bridgeIn(ctx).executeJson(kit.SCRIPTED_PACKAGE, 'write', written);
    });
    await world.run();
    expect(kit.auditEvents(world, 'execution.resumed')).toHaveLength(1);
    const calls = executes(world);
    expect(calls.map((c) => c.extras?.getString('args'))).toEqual([written, '{"a":2,"b":1}']);
    expect(new Set(calls.map((c) => c.extras?.getString('request_id'))).size).toBe(1);
  });
});
