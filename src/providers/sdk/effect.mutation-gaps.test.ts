/**
 * More gaps in the provider SDK's dedup / replay / effect steps (src/providers/sdk/execute/) that
 * the mutation run (npm run mutation, docs/notes/mutation.md) showed no test noticed: the deadline checked
 * again after a long `prepare` (4.1-14), a synchronous execution's work control, a committed result
 * too large for the session and its replay (4.5-11, NOTES 12a), the audit event of each terminal
 * state (7.2-07), a pending request's deadline checked only once its confirmation is approved, and a
 * confirmed read resumed with its token (4.3-08). Black-box: a RawClient on the wire; the store and
 * the trace's audit sink are only read after the run.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../sim/binder/bundle.ts';
import * as kit from '../testing.ts';
import { CONFIRMATIONS, REQUESTS } from './records.ts';
import { DEFAULT_PROVIDER_OPTIONS, type MutationTool, ToolFailure } from './types.ts';

function details(reply: Bundle): unknown {
  return JSON.parse(reply.getString('error_details') ?? 'null');
}

describe('CETP-4.1-14 CETP-10-03: a long prepare is followed by another deadline check', () => {
  it('CETP-4.1-14 CETP-10-03: a prepare that outlives the deadline ends DEADLINE_EXCEEDED with no effect and no record; a re-send with a fresh deadline commits once', async () => {
    let prepared = 0;
    const slow = kit.writeTool('slow', {
      prepare: async (call) => {
        prepared++;
        await call.context.sleep(5_000);
        return null;
      },
    });
    const world = kit.testProviderWorld({ tools: [slow] });
    const replies: string[] = [];
    await kit.runRequest(world, async (c, requestId) => {
      const late = await c.execute(
        'slow',
        {},
        { requestId, deadlineAtMs: c.ctx.currentTimeMillis() + 1_000 },
      );
      replies.push(kit.status(late), String(late.getBoolean('retryable', false)));
      replies.push(`records:${kit.testProviderRows(world, REQUESTS).length}`);
      const again = await c.execute(
        'slow',
        {},
        { requestId, deadlineAtMs: c.ctx.currentTimeMillis() + 60_000 },
      );
      replies.push(kit.status(again));
    });
    expect(replies).toEqual(['error:DEADLINE_EXCEEDED', 'true', 'records:0', 'success']);
    expect(prepared).toBe(2);
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.1-14: a prepare that finishes within the deadline goes on to the effect', async () => {
    const quick = kit.writeTool('quick', {
      prepare: async (call) => {
        await call.context.sleep(500);
        return null;
      },
    });
    const world = kit.testProviderWorld({ tools: [quick] });
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute('quick', {}, { deadlineAtMs: c.ctx.currentTimeMillis() + 5_000 });
      expect(kit.status(reply)).toBe('success');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('a synchronous write is never asked to stop', () => {
  it('CETP-6-01 CETP-4.4-08: the prepare of a synchronous write may report progress; it is told no cancellation was requested, and the write commits once', async () => {
    const told: unknown[] = [];
    const tool = kit.writeTool('w', {
      prepare: async (_call, work) => {
        for (let i = 1; i <= 3; i++) {
          const stop = await work.progress(i, 3, `step ${i}`);
          told.push(stop);
          if (stop) throw new ToolFailure('CONFLICT', 'Stopped on request.');
        }
        return { steps: 3 };
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] });
    await kit.runOnTest(world, async (c) => {
      await c.negotiate(['cancellation']);
      expect(kit.status(await c.execute('w', {}))).toBe('success');
    });
    expect(told).toEqual([false, false, false]);
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('CETP-4.5-11 CETP-5-21 NOTES-12a: a committed result too large for the session', () => {
  const BIG = 'x'.repeat(300_000);

  it('CETP-4.5-11 CETP-5-21 CETP-6-05: RESULT_TOO_LARGE says the outcome was committed, and so does its replay; one effect', async () => {
    const tool = kit.writeTool('big', {
      mutate: async (call, tx, prepared) => {
        const base = kit.writeTool('big');
        const { row } = (await base.mutate(call, tx, prepared)) as { row: number };
        return { row, pad: BIG };
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] });
    const seen: unknown[] = [];
    await kit.runOnTest(world, async (c) => {
      await c.negotiate(['async_operations', 'cancellation']); // no large_results
      const requestId = c.ctx.seededUuid();
      for (let i = 0; i < 2; i++) {
        const reply = await c.execute('big', {}, { requestId });
        seen.push([kit.status(reply), reply.getBoolean('retryable', true), details(reply)]);
      }
    });
    const expected = [
      'error:RESULT_TOO_LARGE',
      false,
      expect.objectContaining({ outcome_committed: true, inline_limit_bytes: 262_144 }),
    ];
    expect(seen).toEqual([expected, expected]);
    expect(kit.effects(world)).toHaveLength(1);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['succeeded']);
  });

  it('CETP-4.5-11 CETP-4.1-14: a read too large for the session committed nothing: outcome_committed is false', async () => {
    const world = kit.testProviderWorld({ tools: [kit.readTool('r', () => ({ pad: BIG }))] });
    await kit.runOnTest(world, async (c) => {
      await c.negotiate([]);
      const reply = await c.execute('r', {});
      expect(kit.status(reply)).toBe('error:RESULT_TOO_LARGE');
      expect(details(reply)).toMatchObject({ outcome_committed: false });
    });
  });
});

describe('CETP-7.2-07: one audit event per call, with its authorization, confirmation and terminal state', () => {
  it('CETP-7.2-07: a synchronous write that succeeds: allowed, no confirmation needed, succeeded — once; its replay adds none', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w')] });
    let requestId = '';
    await kit.runNegotiated(world, async (c) => {
      requestId = c.ctx.seededUuid();
      expect(kit.status(await c.execute('w', { a: 1 }, { requestId }))).toBe('success');
      expect(kit.status(await c.execute('w', { a: 1 }, { requestId }))).toBe('success');
    });
    expect(kit.audits(world)).toEqual([
      {
        tool: 'w',
        request_id: requestId,
        authorization: 'allowed',
        confirmation: 'not_needed',
        outcome: 'succeeded',
      },
    ]);
  });

  it('CETP-7.2-07 CETP-4.3-13: a confirmed write: requested, then approved and succeeded', async () => {
    const world = kit.confirmedWriteWorld('approve');
    let requestId = '';
    await kit.runNegotiated(world, async (c) => {
      requestId = c.ctx.seededUuid();
      expect(kit.status(await c.executeResolving('w', {}, { requestId }))).toBe('success');
    });
    expect(kit.audits(world)).toEqual([
      {
        tool: 'w',
        request_id: requestId,
        authorization: 'allowed',
        confirmation: 'requested',
        outcome: 'USER_ACTION_REQUIRED',
      },
      {
        tool: 'w',
        request_id: requestId,
        authorization: 'allowed',
        confirmation: 'approved',
        outcome: 'succeeded',
      },
    ]);
  });

  it('CETP-7.2-07 CETP-5-26: a business failure is audited as failed with its code, once; its replay adds none', async () => {
    const tool: MutationTool = kit.writeTool('w', {
      mutate: async () => {
        throw new ToolFailure('CONFLICT', 'Taken.');
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] });
    let requestId = '';
    await kit.runNegotiated(world, async (c) => {
      requestId = c.ctx.seededUuid();
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('error:CONFLICT');
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('error:CONFLICT');
    });
    expect(kit.audits(world)).toEqual([
      {
        tool: 'w',
        request_id: requestId,
        authorization: 'allowed',
        confirmation: null,
        outcome: 'failed:CONFLICT',
      },
    ]);
  });
});

describe('NOTES-2 CETP-4.1-14: a pending request’s deadline is checked once its confirmation is approved', () => {
  /** A request pending confirmation, re-sent with a deadline already past: once `resolve`d, as its resume. */
  async function resentLate(c: kit.RawClient, resolve: boolean) {
    const requestId = c.ctx.seededUuid();
    const pending = await c.execute('w', {}, { requestId });
    expect(kit.status(pending)).toBe('error:USER_ACTION_REQUIRED');
    if (resolve) await c.resolve(pending);
    const token = pending.getString('resume_token') ?? '';
    const past = c.ctx.currentTimeMillis() - 1;
    const late = await c.execute(
      'w',
      {},
      { requestId, deadlineAtMs: past, ...(resolve ? { resumeToken: token } : {}) },
    );
    return { requestId, token, late };
  }

  it('CETP-4.3-08 CETP-6-07: a re-send past its deadline of a request pending confirmation gets the same resolution, not DEADLINE_EXCEEDED', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w', { annotations: kit.ALWAYS_CONFIRM })] });
    await kit.runNegotiated(world, async (c) => {
      expect(kit.status((await resentLate(c, false)).late)).toBe('error:USER_ACTION_REQUIRED');
    });
    expect(kit.testProviderRows(world, CONFIRMATIONS)).toHaveLength(1);
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-15 CETP-5-10: a denied confirmation resumed past the deadline is USER_CANCELLED (no effect was due)', async () => {
    const world = kit.confirmedWriteWorld('deny');
    await kit.runNegotiated(world, async (c) => {
      expect(kit.status((await resentLate(c, true)).late)).toBe('error:USER_CANCELLED');
    });
    expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['user_cancelled']);
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.1-14 CETP-4.3-13: an approved confirmation resumed past the deadline is DEADLINE_EXCEEDED; the token is not used up, and a timely resume commits once', async () => {
    const world = kit.confirmedWriteWorld('approve');
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token, late } = await resentLate(c, true);
      expect(kit.status(late)).toBe('error:DEADLINE_EXCEEDED');
      expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state)).toEqual(['approved']);
      expect(kit.status(await c.execute('w', {}, { requestId, resumeToken: token }))).toBe('success');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('CETP-4.3-08: a read tool with confirmation always', () => {
  it('CETP-4.3-08 CETP-4.3-07: a confirmed read is asked about, then served on its resume with the token; nothing is recorded', async () => {
    let reads = 0;
    const confirmedRead = kit.readTool(
      'r',
      () => {
        reads++;
        return { n: reads };
      },
      { annotations: { ...kit.ALWAYS_CONFIRM, effect: 'read', risk: 'low' } },
    );
    const world = kit.testProviderWorld({ tools: [confirmedRead] }, kit.userDecides('approve'));
    await kit.runRequest(world, async (c, requestId) => {
      const asked = await c.execute('r', { q: 1 }, { requestId });
      expect(kit.status(asked)).toBe('error:USER_ACTION_REQUIRED');
      expect(reads).toBe(0);
      await c.resolve(asked);
      const served = await c.execute(
        'r',
        { q: 1 },
        { requestId, resumeToken: asked.getString('resume_token') ?? '' },
      );
      expect(kit.status(served)).toBe('success');
      expect(kit.data(served).value).toEqual({ n: 1 });
    });
    expect(reads).toBe(1);
    expect(kit.testProviderRows(world, REQUESTS)).toEqual([]);
  });
});

describe('CETP-5-24 CETP-5-25: an exception in the effect', () => {
  it('CETP-5-24 CETP-5-25 NOTES-3: an exception thrown by mutate is INTERNAL_ERROR (retryable, generic), rolled back, logged by the provider; a retry executes', async () => {
    let calls = 0;
    const base = kit.writeTool('w');
    const tool = kit.writeTool('w', {
      mutate: async (call, tx, prepared) => {
        calls++;
        if (calls === 1) {
          await tx.put('rows', 'partial', 1);
          throw new Error('db password=SECRET-42 at line 7');
        }
        return base.mutate(call, tx, prepared);
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] });
    await kit.runRequest(world, async (c, requestId) => {
      const failed = await c.execute('w', {}, { requestId });
      expect(kit.status(failed)).toBe('error:INTERNAL_ERROR');
      expect(failed.getBoolean('retryable', false)).toBe(true);
      expect(`${failed.getString('error_message')} ${failed.getString('error_details')}`).not.toContain(
        'SECRET',
      );
      expect(kit.testProviderRows(world, REQUESTS)).toEqual([]);
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('success');
    });
    expect(calls).toBe(2);
    expect(kit.effects(world)).toHaveLength(1);
    expect(world.storage(kit.TEST_PACKAGE).peek('rows', 'partial')).toBeUndefined();
    expect(kit.providerErrors(world)).toEqual([expect.stringContaining('execute_tool w failed')]);
  });
});

describe('CETP-6-04 CETP-6-06: two calls under one request_id with different args, both ending in a business failure', () => {
  it('CETP-6-04 CETP-6-06 CETP-5-26: the failure recorded first stands; the other call is INVALID_REQUEST; each retry gets its own answer again', async () => {
    const tool = kit.writeTool('w', {
      prepare: async (call) => {
        await call.context.sleep(100);
        return null;
      },
      mutate: async (call) => {
        throw new ToolFailure('CONFLICT', `Taken ${JSON.stringify(call.args)}.`);
      },
    });
    for (let seed = 1; seed <= 6; seed++) {
      const world = kit.testProviderWorld({ tools: [tool] }, { seed });
      const answers = new Map<number, string>();
      const requestId = '5d3c1f0e-2b7a-4c61-9e0d-8a4f6b2c7e19';
      for (const a of [1, 2]) {
        world.spawnIn(kit.AGENT, `call-${a}`, async (ctx) => {
          const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
          await c.negotiate();
          const first = await c.execute('w', { a }, { requestId });
          answers.set(a, `${kit.status(first)}|${first.getString('error_message')}`);
          // A retry of the same call later: the same answer again.
          await ctx.sleep(1_000);
          const again = await c.execute('w', { a }, { requestId });
          answers.set(a + 10, `${kit.status(again)}|${again.getString('error_message')}`);
        });
      }
      await world.run();
      expect(answers.get(11)).toBe(answers.get(1));
      expect(answers.get(12)).toBe(answers.get(2));
      answers.delete(11);
      answers.delete(12);
      const got = [...answers.values()].map((s) => s.split('|')[0]).sort();
      expect(got).toEqual(['error:CONFLICT', 'error:INVALID_REQUEST']);
      const winner = [...answers.entries()].find(([, s]) => s.startsWith('error:CONFLICT'))?.[0];
      const [record, ...more] = kit.testProviderRows(world, REQUESTS);
      expect(more).toEqual([]);
      expect(record).toMatchObject({ state: 'failed', error: { message: `Taken {"a":${winner}}.` } });
      expect(kit.effects(world)).toEqual([]);
    }
  });
});

describe('NOTES-10c: the reading cancelledReplay=accepted answers a re-send of a cancelled operation’s request', () => {
  /** Five one-second steps of preparation (cancellable), then a committed row. */
  const slow = kit.writeTool('slow_job', {
    annotations: { ...kit.ALWAYS_CONFIRM, risk: 'low', confirmation: 'never', execution: 'sync_or_async' },
    prepare: async (call, work) => {
      for (let i = 1; i <= 5; i++) {
        await call.context.sleep(1000);
        if (await work.progress(i, 5, `step ${i}`)) return null;
      }
      return null;
    },
  });

  for (const [cancelledReplay, expected] of [
    ['cancelled_error', 'error:CANCELLED'],
    ['accepted', 'accepted'],
  ] as const) {
    it(`NOTES-10c CETP-4.4-20 CETP-6-05: cancelledReplay=${cancelledReplay}: a re-send after the operation was cancelled is ${expected}; no effect`, async () => {
      const world = kit.testProviderWorld({
        tools: [slow],
        options: { variants: { ...DEFAULT_PROVIDER_OPTIONS.variants, cancelledReplay } },
      });
      await kit.runRequest(world, async (c, requestId) => {
        const started = await c.execute('slow_job', {}, { requestId });
        expect(kit.status(started)).toBe('accepted');
        const operationId = kit.data(started).operation_id as string;
        await c.ctx.sleep(1_500);
        const cancel = await c.method(
          'cancel_operation',
          (b) => b.putString('operation_id', operationId),
          requestId,
        );
        expect(kit.data(cancel).state).toBe('cancellation_requested');
        await c.ctx.sleep(3_000);
        const again = await c.execute('slow_job', {}, { requestId });
        expect(kit.status(again)).toBe(expected);
        if (expected === 'accepted') expect(kit.data(again).operation_id).toBe(operationId);
      });
      expect(kit.effects(world)).toEqual([]);
    });
  }
});

describe('NOTES-3: an outage or a refusal from the effect is sent with the tool’s safe message', () => {
  for (const code of ['UNAVAILABLE', 'PERMISSION_DENIED'] as const) {
    it(`CETP-5-26 NOTES-3: ${code} thrown by mutate reaches the consumer with the tool's user-safe message, and is not recorded`, async () => {
      const tool = kit.writeTool('w', {
        mutate: async () => {
          throw new ToolFailure(code, `The ledger is ${code.toLowerCase()} right now.`);
        },
      });
      const world = kit.testProviderWorld({ tools: [tool] });
      await kit.runNegotiated(world, async (c) => {
        const reply = await c.execute('w', {});
        expect(kit.status(reply)).toBe(`error:${code}`);
        expect(reply.getString('error_message')).toBe(`The ledger is ${code.toLowerCase()} right now.`);
      });
      expect(kit.testProviderRows(world, REQUESTS)).toEqual([]);
    });
  }
});
