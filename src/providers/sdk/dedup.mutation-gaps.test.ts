/**
 * Gaps in the provider SDK's dedup / replay / effect steps (src/providers/sdk/execute/) that the
 * mutation run (npm run mutation, docs/notes/mutation.md) showed no test noticed: a request_id reused for
 * another tool with the same args (6-04), a business failure sent or stored as retryable (5-26), a
 * re-send while an operation is still queued (6-07), and the approved confirmation consumed with
 * the effect (4.3-13). Black-box: a RawClient on the wire; the store is only peeked after the run.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../base/json.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import * as kit from '../testing.ts';
import { CONFIRMATIONS, REQUESTS } from './records.ts';
import { type MutationTool, ToolFailure } from './types.ts';

const ASYNC = kit.annotations({ execution: 'sync_or_async' });

function errorOf(reply: Bundle) {
  return {
    code: reply.getString('error_code'),
    message: reply.getString('error_message'),
    retryable: reply.getBoolean('retryable', true),
    details: reply.getString('error_details') ?? null,
  };
}

/** A write tool whose mutate (or prepare) fails with `code` the first `times` calls. */
function failing(
  name: string,
  code: ToolFailure['code'],
  where: 'mutate' | 'prepare',
  times = Number.POSITIVE_INFINITY,
  details?: JsonObject,
) {
  const calls = { n: 0 };
  const fail = () => {
    calls.n++;
    if (calls.n <= times) throw new ToolFailure(code, `Scripted ${code}.`, details);
  };
  const base = kit.writeTool(name);
  const tool: MutationTool =
    where === 'mutate'
      ? kit.writeTool(name, {
          mutate: async (call, tx, prepared) => {
            fail();
            return base.mutate(call, tx, prepared);
          },
        })
      : kit.writeTool(name, {
          prepare: async () => {
            fail();
            return null;
          },
        });
  return { tool, calls };
}

describe('CETP-6-04: a request_id is bound to one tool and one args', () => {
  it('CETP-6-04: the same request_id for a different write tool with the same args is INVALID_REQUEST; the first record stands', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w1'), kit.writeTool('w2')] });
    await kit.runRequest(world, async (c, requestId) => {
      const first = await c.execute('w1', { a: 1 }, { requestId });
      expect(kit.status(first)).toBe('success');
      const other = await c.execute('w2', { a: 1 }, { requestId });
      expect(kit.status(other)).toBe('error:INVALID_REQUEST');
      expect(other.getString('request_id')).toBe(requestId);
      // The original request still gets its own recorded result.
      const again = await c.execute('w1', { a: 1 }, { requestId });
      expect(kit.status(again)).toBe('success');
      expect(kit.data(again)).toEqual(kit.data(first));
    });
    expect(kit.effects(world).map((e) => e.tool)).toEqual(['w1']);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => [r.tool, r.state])).toEqual([
      ['w1', 'succeeded'],
    ]);
  });

  it('CETP-6-04: a read tool under a request_id already bound to a write is INVALID_REQUEST — same args or not', async () => {
    let reads = 0;
    const world = kit.testProviderWorld({
      tools: [
        kit.writeTool('w'),
        kit.readTool('r', () => {
          reads++;
          return {};
        }),
      ],
    });
    await kit.runRequest(world, async (c, requestId) => {
      expect(kit.status(await c.execute('w', { a: 1 }, { requestId }))).toBe('success');
      expect(kit.status(await c.execute('r', { a: 1 }, { requestId }))).toBe('error:INVALID_REQUEST');
      expect(kit.status(await c.execute('r', { a: 2 }, { requestId }))).toBe('error:INVALID_REQUEST');
      // A read is not recorded: its own request_id may be read again, with other args too.
      const readId = c.ctx.seededUuid();
      expect(kit.status(await c.execute('r', { a: 1 }, { requestId: readId }))).toBe('success');
      expect(kit.status(await c.execute('r', { a: 2 }, { requestId: readId }))).toBe('success');
    });
    expect(reads).toBe(2);
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-6-04: a pending confirmation under the id is not resolved for another tool with the same args', async () => {
    const world = kit.testProviderWorld(
      { tools: [kit.writeTool('confirmed', { annotations: kit.ALWAYS_CONFIRM }), kit.writeTool('plain')] },
      kit.userDecides('approve'),
    );
    await kit.runRequest(world, async (c, requestId) => {
      const pending = await c.execute('confirmed', { a: 1 }, { requestId });
      expect(kit.status(pending)).toBe('error:USER_ACTION_REQUIRED');
      expect(kit.status(await c.execute('plain', { a: 1 }, { requestId }))).toBe('error:INVALID_REQUEST');
      const token = pending.getString('resume_token') ?? '';
      // Nor may the other tool present the first one's resume token.
      expect(kit.status(await c.execute('plain', { a: 1 }, { requestId, resumeToken: token }))).toBe(
        'error:INVALID_REQUEST',
      );
    });
    expect(kit.effects(world)).toEqual([]);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => [r.tool, r.state])).toEqual([
      ['confirmed', 'pending_confirmation'],
    ]);
  });
});

describe('CETP-5-26: a business failure is never retryable, sent or stored', () => {
  for (const code of ['CONFLICT', 'INVALID_ARGS'] as const) {
    it(`CETP-5-26 CETP-6-05: ${code} from the effect is sent retryable=false, recorded retryable=false and replayed so`, async () => {
      const { tool, calls } = failing('w', code, 'mutate', Number.POSITIVE_INFINITY, { field: 'x' });
      const world = kit.testProviderWorld({ tools: [tool] });
      const replies: ReturnType<typeof errorOf>[] = [];
      await kit.runRequest(world, async (c, requestId) => {
        replies.push(errorOf(await c.execute('w', {}, { requestId })));
        replies.push(errorOf(await c.execute('w', {}, { requestId })));
      });
      const expected = {
        code,
        message: `Scripted ${code}.`,
        retryable: false,
        details: JSON.stringify({ field: 'x' }),
      };
      expect(replies).toEqual([expected, expected]);
      expect(calls.n).toBe(1);
      expect(kit.effects(world)).toEqual([]);
      const [record, ...more] = kit.testProviderRows(world, REQUESTS);
      expect(more).toEqual([]);
      expect(record).toMatchObject({
        state: 'failed',
        tool: 'w',
        error: { code, message: `Scripted ${code}.`, retryable: false, details: { field: 'x' } },
      });
      expect(record?.terminalAtMs).toEqual(expect.any(Number));
    });
  }

  it('CETP-5-26: a business failure without details is replayed without details', async () => {
    const { tool } = failing('w', 'CONFLICT', 'mutate');
    await kit.runRequest(kit.testProviderWorld({ tools: [tool] }), async (c, requestId) => {
      const first = await c.execute('w', {}, { requestId });
      const replay = await c.execute('w', {}, { requestId });
      for (const reply of [first, replay]) {
        expect(errorOf(reply)).toEqual({
          code: 'CONFLICT',
          message: 'Scripted CONFLICT.',
          retryable: false,
          details: null,
        });
      }
    });
  });

  // UNAVAILABLE is always retryable; PERMISSION_DENIED never is (§5 table) — neither is R's outcome.
  for (const [code, retryable] of [
    ['UNAVAILABLE', true],
    ['PERMISSION_DENIED', false],
  ] as const) {
    it(`CETP-5-26 NOTES-3: ${code} from the effect rolls back and is not recorded; the retry executes once`, async () => {
      const { tool, calls } = failing('w', code, 'mutate', 1);
      const world = kit.testProviderWorld({ tools: [tool] });
      await kit.runRequest(world, async (c, requestId) => {
        const first = await c.execute('w', {}, { requestId });
        expect(errorOf(first)).toMatchObject({ code, retryable });
        const second = await c.execute('w', {}, { requestId });
        expect(kit.status(second)).toBe('success');
      });
      expect(calls.n).toBe(2);
      expect(kit.effects(world)).toHaveLength(1);
      expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['succeeded']);
    });
  }

  it('CETP-5-26: a business failure from prepare is sent retryable=false; an outage from prepare retryable=true', async () => {
    const conflict = failing('c', 'CONFLICT', 'prepare');
    const outage = failing('u', 'UNAVAILABLE', 'prepare', 1);
    const world = kit.testProviderWorld({ tools: [conflict.tool, outage.tool] });
    await kit.runNegotiated(world, async (c) => {
      expect(errorOf(await c.execute('c', {}))).toMatchObject({ code: 'CONFLICT', retryable: false });
      const requestId = c.ctx.seededUuid();
      expect(errorOf(await c.execute('u', {}, { requestId }))).toMatchObject({
        code: 'UNAVAILABLE',
        retryable: true,
      });
      expect(kit.status(await c.execute('u', {}, { requestId }))).toBe('success');
    });
    expect(kit.effects(world).map((e) => e.tool)).toEqual(['u']);
  });
});

describe('CETP-6-07: a re-send while the operation is still queued', () => {
  it('CETP-6-07: a re-send that finds the record queued gets accepted with the same operation, and one effect', async () => {
    const tool = kit.writeTool('aw', { annotations: ASYNC });
    const world = kit.testProviderWorld({ tools: [tool] });
    const seen: unknown[] = [];
    await kit.runRequest(world, async (c, requestId) => {
      const first = await c.execute('aw', {}, { requestId });
      const stateAtResend = kit.testProviderRows(world, REQUESTS).map((r) => r.state);
      const second = await c.execute('aw', {}, { requestId });
      seen.push(stateAtResend, kit.status(first), kit.status(second), kit.data(first), kit.data(second));
    });
    const [stateAtResend, s1, s2, d1, d2] = seen as [
      string[],
      string,
      string,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(stateAtResend).toEqual(['queued']);
    expect([s1, s2]).toEqual(['accepted', 'accepted']);
    expect(d2.operation_id).toBe(d1.operation_id);
    expect(d2.poll_after_ms).toBe(d1.poll_after_ms);
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('CETP-4.3-13: the approved confirmation is consumed with the effect', () => {
  async function approvedResume(c: kit.RawClient, tool: string, args: JsonValue) {
    const requestId = c.ctx.seededUuid();
    const pending = await c.execute(tool, args, { requestId });
    expect(kit.status(pending)).toBe('error:USER_ACTION_REQUIRED');
    await c.resolve(pending);
    return { requestId, token: pending.getString('resume_token') ?? '' };
  }

  it('CETP-4.3-13 CETP-6-05: the resume commits the effect and consumes the confirmation; the token again replays, never re-executes', async () => {
    const world = kit.confirmedWriteWorld('approve');
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await approvedResume(c, 'w', { a: 1 });
      const done = await c.execute('w', { a: 1 }, { requestId, resumeToken: token });
      expect(kit.status(done)).toBe('success');
      const again = await c.execute('w', { a: 1 }, { requestId, resumeToken: token });
      expect(kit.status(again)).toBe('success');
      expect(kit.data(again)).toEqual(kit.data(done));
    });
    expect(kit.effects(world)).toHaveLength(1);
    const [confirmation] = kit.testProviderRows(world, CONFIRMATIONS);
    expect(confirmation).toMatchObject({ state: 'consumed', decision: 'approved' });
    const [record] = kit.testProviderRows(world, REQUESTS);
    expect(record).toMatchObject({ state: 'succeeded', confirmationId: confirmation?.id });
  });

  it('CETP-4.3-13 NOTES-3: an outage in the effect rolls the consumption back: the same token resumes once more and commits once', async () => {
    const { tool, calls } = failing('w', 'UNAVAILABLE', 'mutate', 1);
    const confirmed: MutationTool = { ...tool, annotations: kit.ALWAYS_CONFIRM };
    const world = kit.testProviderWorld({ tools: [confirmed] }, kit.userDecides('approve'));
    const states: unknown[] = [];
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await approvedResume(c, 'w', {});
      const outage = await c.execute('w', {}, { requestId, resumeToken: token });
      expect(errorOf(outage)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      states.push(
        kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state),
        kit.testProviderRows(world, REQUESTS).map((r) => r.state),
      );
      expect(kit.status(await c.execute('w', {}, { requestId, resumeToken: token }))).toBe('success');
    });
    expect(states).toEqual([['approved'], ['pending_confirmation']]);
    expect(calls.n).toBe(2);
    expect(kit.effects(world)).toHaveLength(1);
    expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state)).toEqual(['consumed']);
  });

  it('CETP-4.3-13 CETP-5-26: a business failure after approval consumes the confirmation with the failed record', async () => {
    const { tool, calls } = failing('w', 'CONFLICT', 'mutate');
    const confirmed: MutationTool = { ...tool, annotations: kit.ALWAYS_CONFIRM };
    const world = kit.testProviderWorld({ tools: [confirmed] }, kit.userDecides('approve'));
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await approvedResume(c, 'w', {});
      for (let i = 0; i < 2; i++) {
        const reply = await c.execute('w', {}, { requestId, resumeToken: token });
        expect(errorOf(reply)).toMatchObject({ code: 'CONFLICT', retryable: false });
      }
    });
    expect(calls.n).toBe(1);
    expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => [r.state, r.decision])).toEqual([
      ['consumed', 'approved'],
    ]);
    expect(kit.testProviderRows(world, REQUESTS)).toEqual([expect.objectContaining({ state: 'failed' })]);
  });

  it('CETP-4.3-13 CETP-6-07: an approved async write is queued with the confirmation consumed in the same transaction', async () => {
    const world = kit.testProviderWorld(
      { tools: [kit.writeTool('aw', { annotations: { ...ASYNC, confirmation: 'always' } })] },
      kit.userDecides('approve'),
    );
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await approvedResume(c, 'aw', {});
      const a = await c.execute('aw', {}, { requestId, resumeToken: token });
      expect(kit.status(a)).toBe('accepted');
      expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state)).toEqual(['consumed']);
      const b = await c.execute('aw', {}, { requestId, resumeToken: token });
      expect(kit.data(b).operation_id).toBe(kit.data(a).operation_id);
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('CETP-5-22: the idempotency window, to the millisecond', () => {
  it('CETP-5-22 CETP-6-05: the recorded result is replayed at terminal + window exactly, and RESULT_EXPIRED one ms later', async () => {
    const windowSeconds = 86_400; // the spec's minimum (2.2-20)
    const clock = kit.readTool('clock', (call) => ({ now: call.context.currentTimeMillis() }));
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w'), clock] });
    const replies: string[] = [];
    await kit.runNegotiated(world, async (c) => {
      // How much later than the client's clock the provider reads its own (a constant in the simulation).
      const before = c.ctx.currentTimeMillis();
      const offset =
        ((kit.data(await c.execute('clock', {})).value as { now: number }).now as number) - before;
      const requestId = c.ctx.seededUuid();
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('success');
      const [record] = kit.testProviderRows(world, REQUESTS);
      const bound = (record?.terminalAtMs as number) + windowSeconds * 1000;
      for (const at of [bound, bound + 1]) {
        // The wall clock jumps (a day in virtual time; no day of scheduling), then a new session.
        world.applyFault({ kind: 'clockJump', ms: at - offset - c.ctx.currentTimeMillis() - 10_000 });
        await c.negotiate();
        await c.ctx.sleep(at - offset - c.ctx.currentTimeMillis());
        const reply = await c.execute('w', {}, { requestId, deadlineAtMs: at + 30_000 });
        replies.push(kit.status(reply));
      }
    });
    expect(replies).toEqual(['success', 'error:RESULT_EXPIRED']);
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('rule ablation switches the dedup checks off (what `cetp-sim ablate` measures)', () => {
  it('CETP-6-04 ablated: a read under a request_id bound to a write is served', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.writeTool('w'), kit.readTool('r', () => ({}))],
      options: { disabledRules: new Set(['CETP-6-04']) },
    });
    await kit.runRequest(world, async (c, requestId) => {
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('success');
      expect(kit.status(await c.execute('r', {}, { requestId }))).toBe('success');
    });
  });

  it('CETP-5-22 ablated: a result past the window is still replayed', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.writeTool('w')],
      options: { disabledRules: new Set(['CETP-5-22']) },
    });
    await kit.runRequest(world, async (c, requestId) => {
      const first = await c.execute('w', {}, { requestId });
      world.applyFault({ kind: 'clockJump', ms: 2 * 86_400_000 });
      await c.negotiate();
      const late = await c.execute('w', {}, { requestId });
      expect(kit.status(late)).toBe('success');
      expect(kit.data(late)).toEqual(kit.data(first));
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});
