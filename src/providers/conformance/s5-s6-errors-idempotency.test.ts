/**
 * Provider conformance, spec §5 (the error model) and §6 (idempotency, retries, concurrency).
 */
import { describe, expect, it } from 'vitest';
import { splitCommitExecutor } from '../../cli/testdata/split-commit.provider.ts';
import { ERROR_CODE_TABLE, type ErrorCode, isKnownErrorCode, readErrorBundle } from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { FaultAt } from '../../sim/core/faults.ts';
import type { MutationExecutor, MutationTool } from '../sdk/types.ts';
import * as kit from '../testing.ts';

function wellFormed(reply: Bundle, requestId: string): void {
  const read = readErrorBundle(reply, { expectedRequestId: requestId });
  expect(read.ok, JSON.stringify(read.ok ? null : read.issues)).toBe(true);
  const code = reply.getString('error_code') as ErrorCode;
  expect(isKnownErrorCode(code)).toBe(true);
  const policy = ERROR_CODE_TABLE[code].retryPolicy;
  if (policy !== 'conditional')
    expect(reply.getBoolean('retryable', !(policy === 'yes'))).toBe(policy === 'yes');
}

describe('§5 the error model', () => {
  it('CETP-5-01 CETP-5-02 CETP-5-03: every error carries status, code, a safe message, retryable, and echoes protocol_version and request_id', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w'), kit.readTool('r', () => ({}))] });
    await kit.runNegotiated(world, async (c) => {
      const ids = [0, 1, 2, 3].map(() => c.ctx.seededUuid());
      const id = (i: number) => ids[i] as string;
      const cases: [string, () => Promise<Bundle>][] = [
        ['TOOL_NOT_FOUND', () => c.execute('nope', {}, { requestId: id(0) })],
        ['INVALID_ARGS', () => c.execute('r', 'not json', { requestId: id(1) })],
        ['DEADLINE_EXCEEDED', () => c.execute('w', {}, { requestId: id(2), deadlineAtMs: 1 })],
        ['METHOD_NOT_FOUND', () => c.method('nope', undefined, id(3))],
      ];
      for (const [index, [code, run]] of cases.entries()) {
        const reply = await run();
        expect(kit.status(reply)).toBe(`error:${code}`);
        expect(reply.getInt('protocol_version')).toBe(2);
        wellFormed(reply, ids[index] as string);
      }
    });
  });

  it('CETP-5-24 CETP-5-25: an exception in tool code is INTERNAL_ERROR whose message exposes no stack or internals', async () => {
    const crashy = kit.readTool('crashy', () => {
      throw new Error(
        'NullPointer at com.example.test.Db.query(Db.kt:42) /data/data/com.example.test/db password=hunter2',
      );
    });
    const world = kit.testProviderWorld({ tools: [crashy] });
    await kit.runRequest(world, async (c, requestId) => {
      const reply = await c.execute('crashy', {}, { requestId });
      expect(kit.status(reply)).toBe('error:INTERNAL_ERROR');
      const text = `${reply.getString('error_message')} ${reply.getString('error_details') ?? ''}`;
      for (const leak of ['Db.kt', '/data/data', 'hunter2', 'NullPointer', '    at '])
        expect(text).not.toContain(leak);
      wellFormed(reply, requestId);
    });
    expect(world.process('com.example.test').isRunning).toBe(true);
  });

  it('CETP-5-17: beyond max_concurrent_requests in flight, RATE_LIMITED with retryable=true and retry_after_ms', async () => {
    const slowRead = kit.readTool('slow_read', () => ({}), {
      read: async (call) => {
        await call.context.sleep(1000);
        return {};
      },
    });
    const world = kit.testProviderWorld({
      tools: [slowRead],
      options: { limits: { maxConcurrentRequests: 2 } },
    });
    const outcomes: string[] = [];
    let limited: Bundle | null = null;
    world.spawnIn(kit.AGENT, 'many', async (ctx) => {
      const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
      await c.negotiate();
      for (let i = 0; i < 3; i++) {
        ctx.spawn(`call${i}`, async () => {
          const reply = await c.execute('slow_read', {});
          outcomes.push(kit.status(reply));
          if (kit.status(reply) === 'error:RATE_LIMITED') limited = reply;
        });
      }
    });
    await world.run();
    expect(outcomes.sort()).toEqual(['error:RATE_LIMITED', 'success', 'success']);
    const r = limited as unknown as Bundle;
    expect(r.getBoolean('retryable', false)).toBe(true);
    expect(r.getLong('retry_after_ms', -1)).toBeGreaterThan(0);
  });
});

/**
 * The flow without faults counts its steps N; then N runs, the provider killed before step k, each
 * followed by retries with the same request_id. Per step: the effects, and whether the kill
 * applied and rolled an open transaction back.
 */
async function killAtEveryStep(executor?: (context: AppContext) => MutationExecutor) {
  const runWith = async (faults: FaultAt[]) => {
    const world = kit.testProviderWorld(
      { tools: [kit.writeTool('w')], ...(executor ? { executor } : {}) },
      { faults },
    );
    world.spawnIn(kit.AGENT, 'retrying', async (ctx) => {
      const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
      const requestId = ctx.seededUuid();
      for (let attempt = 0; attempt < 4; attempt++) {
        try {
          await c.negotiate();
          if (kit.status(await c.execute('w', {}, { requestId })) === 'success') return;
        } catch {
          // the provider died under us: retry with the same request_id
        }
      }
    });
    return { world, report: await world.run() };
  };
  const steps = (await runWith([])).report.steps;
  const effectsAt: number[] = [];
  const unapplied: number[] = [];
  let rolledBack = 0;
  for (let at = 0; at < steps; at++) {
    const { world, report } = await runWith([{ at, fault: { kind: 'kill', process: kit.TEST_PACKAGE } }]);
    if (report.unappliedFaults.length > 0) unapplied.push(at);
    effectsAt.push(kit.effects(world).length);
    if (world.trace.events.some((e) => e.kind === 'store.rollback')) rolledBack++;
  }
  return { steps, effects: effectsAt, unapplied, rolledBack };
}

describe('§6 idempotency', () => {
  it('CETP-6-02 CETP-6-03 CETP-6-04: the same request_id from another UID is a different request; from the same UID with other args it is INVALID_REQUEST', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w')] });
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    const shared = '0b6f8d54-5b0c-4f0e-9a51-3f3d2d8d2a11';
    const seen: string[] = [];
    world.spawnIn(kit.AGENT, 'a', async (ctx) => {
      const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
      await c.negotiate();
      seen.push(`A ${kit.status(await c.execute('w', { n: 1 }, { requestId: shared }))}`);
      seen.push(`A-other-args ${kit.status(await c.execute('w', { n: 2 }, { requestId: shared }))}`);
      world.spawnIn(kit.OTHER_AGENT, 'b', async (ctx2) => {
        const b = new kit.RawClient(ctx2, kit.TEST_AUTHORITY);
        await b.negotiate();
        seen.push(`B ${kit.status(await b.execute('w', { n: 2 }, { requestId: shared }))}`);
      });
    });
    await world.run();
    expect(seen).toEqual(['A success', 'A-other-args error:INVALID_REQUEST', 'B success']);
    expect(kit.effects(world).map((e) => e.uid)).toEqual([
      world.pm.getPackageUid(kit.AGENT),
      world.pm.getPackageUid(kit.OTHER_AGENT),
    ]);
  });

  it('CETP-6-05: within the window the same terminal result comes back — including a business failure', async () => {
    let calls = 0;
    const once = kit.writeTool('once', {
      mutate: async () => {
        calls++;
        const { ToolFailure } = await import('../sdk/types.ts');
        throw new ToolFailure('CONFLICT', 'Already done elsewhere.');
      },
    });
    await kit.runRequest(kit.testProviderWorld({ tools: [once] }), async (c, requestId) => {
      const a = await c.execute('once', {}, { requestId });
      const b = await c.execute('once', {}, { requestId });
      expect(kit.status(a)).toBe('error:CONFLICT');
      expect([b.getString('error_code'), b.getString('error_message')]).toEqual([
        a.getString('error_code'),
        a.getString('error_message'),
      ]);
    });
    expect(calls).toBe(1);
  });

  it('CETP-6-06 CETP-6-07: concurrent identical requests execute once and all get the same result (many interleavings)', async () => {
    for (let seed = 0; seed < 25; seed++) {
      const world = kit.testProviderWorld(
        { tools: [kit.writeTool('w')] },
        { seed, strategy: { kind: 'random' } },
      );
      const replies: string[] = [];
      world.spawnIn(kit.AGENT, 'burst', async (ctx) => {
        const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
        await c.negotiate();
        const requestId = ctx.seededUuid();
        for (let i = 0; i < 3; i++) {
          ctx.spawn(`dup${i}`, async () => {
            replies.push((await c.execute('w', {}, { requestId })).getString('data') ?? 'none');
          });
        }
      });
      await world.run();
      expect(kit.effects(world), `seed ${seed}`).toHaveLength(1);
      expect(new Set(replies).size, `seed ${seed}`).toBe(1);
    }
  });

  it('CETP-6-03 CETP-6-04: a request_id reserved for confirmation is never taken over by concurrent other args (many interleavings)', async () => {
    // Found by a fuzz campaign (properties/pending-reservation.test.ts): both calls look the id up,
    // find nothing, and race to their transactions; the one that needs no confirmation used to
    // write over the other's reservation and commit an effect under the id.
    const policy = kit.writeTool('w', {
      annotations: kit.annotations({ confirmation: 'provider_policy' }),
      needsConfirmation: (call) => (call.args as { big?: boolean }).big === true,
    });
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const world = kit.testProviderWorld({ tools: [policy] }, { seed, strategy: { kind: 'random' } });
      const replies: string[] = [];
      world.spawnIn(kit.AGENT, 'race', async (ctx) => {
        const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
        await c.negotiate();
        const requestId = ctx.seededUuid();
        for (const big of [true, false]) {
          ctx.spawn(big ? 'needs-confirmation' : 'plain', async () => {
            replies.push(
              `${big ? 'big' : 'plain'} ${kit.status(await c.execute('w', { big }, { requestId }))}`,
            );
          });
        }
      });
      await world.run();
      replies.sort();
      outcomes.add(replies.join(', '));
      // Whoever wins the id, the other args are refused: never an effect while a confirmation waits.
      expect(replies, `seed ${seed}`).toContainEqual(expect.stringMatching(/error:INVALID_REQUEST$/));
      const reserved = replies.includes('big error:USER_ACTION_REQUIRED');
      expect(kit.effects(world), `seed ${seed}`).toHaveLength(reserved ? 0 : 1);
    }
    // Both orders were reached.
    expect([...outcomes].sort()).toEqual([
      'big error:INVALID_REQUEST, plain success',
      'big error:USER_ACTION_REQUIRED, plain error:INVALID_REQUEST',
    ]);
  });

  it('CETP-6-07: a duplicate of an in-flight async request gets the same operation', async () => {
    const asyncWrite = kit.writeTool('aw', {
      annotations: kit.annotations({ execution: 'sync_or_async' }),
      prepare: async (call) => {
        await call.context.sleep(1000);
        return null;
      },
    }) as MutationTool;
    await kit.runRequest(kit.testProviderWorld({ tools: [asyncWrite] }), async (c, requestId) => {
      const a = kit.data(await c.execute('aw', {}, { requestId }));
      const b = kit.data(await c.execute('aw', {}, { requestId }));
      expect(b.operation_id).toBe(a.operation_id);
    });
  });

  it('CETP-6-09: an idempotent=true tool is still de-duplicated by request_id', async () => {
    const idem = kit.writeTool('set_flag', {
      annotations: kit.annotations({ effect: 'update', idempotent: true }),
    });
    const world = kit.testProviderWorld({ tools: [idem] });
    await kit.runRequest(world, async (c, requestId) => {
      await c.execute('set_flag', {}, { requestId });
      await c.execute('set_flag', {}, { requestId });
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.4-17 CETP-10-06: a kill at any step of a synchronous execution leaves exactly one effect after the retries', async () => {
    const sweep = await killAtEveryStep();
    expect(sweep.steps).toBeGreaterThan(10);
    expect(sweep.unapplied, 'every kill was applied').toEqual([]);
    expect(
      sweep.effects.every((n) => n === 1),
      `effects per kill step: ${sweep.effects.join(',')}`,
    ).toBe(true);
    // Some kills land inside the open transaction of the execution (its writes are rolled back).
    expect(sweep.rolledBack).toBeGreaterThan(0);
  });

  it('CETP-10-06: the same sweep fails an executor that commits the effect outside the dedup transaction', async () => {
    const sweep = await killAtEveryStep(splitCommitExecutor);
    expect(sweep.unapplied).toEqual([]);
    expect(sweep.effects.some((n) => n === 2)).toBe(true);
  });
});
