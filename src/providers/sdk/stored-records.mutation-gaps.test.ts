/**
 * What the provider SDK's dedup / replay / effect steps (src/providers/sdk/execute/) do when the
 * app's durable store is not what the SDK itself wrote — the defensive branches the mutation run
 * (npm run mutation, docs/notes/mutation.md) found no test reaching: a record from an older app version
 * (a write tool that became a read tool), a record that lost its error, operation id or request
 * record, a confirmation consumed under a call between its approval and its effect, a resume token
 * of a request this caller never reserved; and the wire messages and trace labels a user reads.
 * Black-box: a RawClient on the wire; the store is staged between two runs of the client (or by the
 * app's own tool code) and only peeked after a run.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../base/json.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { World } from '../../sim/world.ts';
import * as kit from '../testing.ts';
import { respond } from './execute/effect.ts';
import type { Execution } from './execute/types.ts';
import { CONFIRMATIONS, REQUESTS } from './records.ts';
import { ToolFailure } from './types.ts';

const REUSED_ID = 'This request_id was already used with a different tool or arguments.';

function wireError(reply: Bundle) {
  return {
    status: kit.status(reply),
    message: reply.getString('error_message'),
    retryable: reply.getBoolean('retryable', false),
  };
}

/** The single committed request record of the test provider, and its store key. */
function onlyRecord(world: World): { key: string; record: JsonObject } {
  const rows = [...world.storage(kit.TEST_PACKAGE).snapshot(REQUESTS).entries()];
  expect(rows).toHaveLength(1);
  const [key, record] = rows[0] as [string, JsonObject];
  return { key, record };
}

/** Rewrites the provider's one request record with `changes` (a store left corrupted). */
async function corruptRecord(world: World, c: kit.RawClient, changes: JsonObject): Promise<void> {
  const { key, record } = onlyRecord(world);
  await kit.stageProviderStore(world, c.ctx, (tx) => tx.put(REQUESTS, key, { ...record, ...changes }));
}

describe('CETP-6-04: an app update turned a write tool into a read tool; its old records stand', () => {
  it('CETP-6-04 CETP-6-03: the request_id of the old write still serves the same call as a read; other args or another read under it are INVALID_REQUEST', async () => {
    let reads = 0;
    const asWrite: kit.TestProviderSpec = {
      tools: [kit.writeTool('lookup'), kit.readTool('other', () => ({}))],
    };
    const asRead: kit.TestProviderSpec = {
      tools: [
        kit.readTool('lookup', () => {
          reads++;
          return { found: true };
        }),
        kit.readTool('other', () => ({})),
      ],
    };
    const world = kit.testProviderWorld(asWrite);
    const requestId = '0b9c3f52-1d7e-4c55-9a51-5f1c2b7a0001';
    const replies: unknown[] = [];
    await kit.runOnTest(world, async (first) => {
      await first.negotiate();
      expect(kit.status(await first.execute('lookup', { q: 1 }, { requestId }))).toBe('success');
      expect(onlyRecord(world).record).toMatchObject({ tool: 'lookup', state: 'succeeded' });
      kit.updateTestProvider(world, asRead);
      const c = new kit.RawClient(first.ctx, first.authority);
      await c.negotiate();
      const same = await c.execute('lookup', { q: 1 }, { requestId });
      replies.push(kit.status(same), kit.data(same));
      replies.push(wireError(await c.execute('lookup', { q: 2 }, { requestId })));
      replies.push(wireError(await c.execute('other', { q: 1 }, { requestId })));
    });
    expect(replies).toEqual([
      'success',
      { kind: 'inline', value: { found: true } },
      { status: 'error:INVALID_REQUEST', message: REUSED_ID, retryable: false },
      { status: 'error:INVALID_REQUEST', message: REUSED_ID, retryable: false },
    ]);
    expect(reads).toBe(1);
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-6-04: a write under a request_id bound to another write is told why on the wire', async () => {
    const world = kit.testProviderWorld({ tools: [kit.writeTool('w1'), kit.writeTool('w2')] });
    const replies: unknown[] = [];
    await kit.runRequest(world, async (c, requestId) => {
      await c.execute('w1', { a: 1 }, { requestId });
      replies.push(wireError(await c.execute('w2', { a: 1 }, { requestId })));
      replies.push(wireError(await c.execute('w1', { a: 2 }, { requestId })));
    });
    const refused = { status: 'error:INVALID_REQUEST', message: REUSED_ID, retryable: false };
    expect(replies).toEqual([refused, refused]);
  });
});

describe('CETP-4.3-03 CETP-4.3-04: a resume token for a request this caller never reserved', () => {
  async function pendingToken(c: kit.RawClient, requestId: string): Promise<string> {
    const pending = await c.execute('confirmed', { a: 1 }, { requestId });
    expect(kit.status(pending)).toBe('error:USER_ACTION_REQUIRED');
    return pending.getString('resume_token') ?? '';
  }
  const spec: kit.TestProviderSpec = {
    tools: [kit.writeTool('confirmed', { annotations: kit.ALWAYS_CONFIRM })],
    options: { resumeTokenTtlMs: 60_000 },
  };

  it('CETP-4.3-03: an unknown token is INVALID_REQUEST naming the reason; nothing is reserved', async () => {
    const world = kit.testProviderWorld(spec);
    let reply: unknown;
    await kit.runNegotiated(world, async (c) => {
      reply = wireError(await c.execute('confirmed', { a: 1 }, { resumeToken: 'rt_never_issued' }));
    });
    expect(reply).toEqual({
      status: 'error:INVALID_REQUEST',
      message: 'Invalid resume_token: unknown resume_token.',
      retryable: false,
    });
    expect(kit.testProviderRows(world, REQUESTS)).toEqual([]);
  });

  it('CETP-4.3-04: another app’s token under that app’s request_id is refused as another caller’s; its request stays pending', async () => {
    const world = kit.testProviderWorld(spec, kit.userDecides('approve'));
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    const requestId = '0b9c3f52-1d7e-4c55-9a51-5f1c2b7a0002';
    const handed: { token: string | null } = { token: null };
    world.spawnIn(kit.OTHER_AGENT, 'other', async (ctx) => {
      const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
      await c.negotiate();
      const token = await pendingToken(c, requestId);
      await c.resolve(await c.execute('confirmed', { a: 1 }, { requestId }));
      handed.token = token;
    });
    let reply: unknown;
    await kit.runNegotiated(world, async (c) => {
      for (let waitedMs = 0; handed.token === null; waitedMs++) {
        if (waitedMs === 60_000) throw new Error('the other app got no resume token within 60 s');
        await c.ctx.sleep(1);
      }
      reply = wireError(await c.execute('confirmed', { a: 1 }, { requestId, resumeToken: handed.token }));
    });
    expect(reply).toEqual({
      status: 'error:INVALID_REQUEST',
      message: 'Invalid resume_token: resume_token belongs to another caller.',
      retryable: false,
    });
    expect(kit.effects(world)).toEqual([]);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['pending_confirmation']);
    expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state)).toEqual(['approved']);
  });

  for (const expired of [false, true]) {
    it(`CETP-4.3-13 CETP-4.3-06: the request record lost from the store, its ${expired ? 'expired' : 'approved'} token is INVALID_REQUEST "no such pending request"; no effect, nothing re-reserved`, async () => {
      const world = kit.testProviderWorld(spec, kit.userDecides('approve'));
      const requestId = '0b9c3f52-1d7e-4c55-9a51-5f1c2b7a0003';
      let reply: unknown;
      await kit.runNegotiated(world, async (c) => {
        const token = await pendingToken(c, requestId);
        await c.resolve(await c.execute('confirmed', { a: 1 }, { requestId }));
        const { key } = onlyRecord(world);
        await kit.stageProviderStore(world, c.ctx, (tx) => tx.delete(REQUESTS, key));
        if (expired) await c.ctx.sleep(61_000);
        reply = wireError(await c.execute('confirmed', { a: 1 }, { requestId, resumeToken: token }));
      });
      expect(reply).toEqual({
        status: 'error:INVALID_REQUEST',
        message: 'Invalid resume_token: no such pending request.',
        retryable: false,
      });
      expect(kit.effects(world)).toEqual([]);
      expect(kit.testProviderRows(world, REQUESTS)).toEqual([]);
      expect(kit.testProviderRows(world, CONFIRMATIONS).map((r) => r.state)).toEqual(['approved']);
    });
  }
});

describe('CETP-6-05: a re-send answered from a record the store corrupted', () => {
  it('CETP-6-05 CETP-5-26: a failed record that lost its error is INTERNAL_ERROR, not retryable; the tool is not run again', async () => {
    let mutates = 0;
    const tool = kit.writeTool('w', {
      mutate: async () => {
        mutates++;
        throw new ToolFailure('CONFLICT', 'Scripted conflict.');
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] });
    const requestId = '0b9c3f52-1d7e-4c55-9a51-5f1c2b7a0004';
    let reply: unknown;
    await kit.runNegotiated(world, async (c) => {
      expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('error:CONFLICT');
      await corruptRecord(world, c, { error: null });
      reply = wireError(await c.execute('w', {}, { requestId }));
    });
    expect(reply).toMatchObject({ status: 'error:INTERNAL_ERROR', retryable: false });
    expect(kit.providerErrors(world)).toEqual([]); // answered from the record, not by an exception
    expect(mutates).toBe(1);
    expect(kit.effects(world)).toEqual([]);
  });

  for (const state of ['queued', 'running'] as const) {
    it(`CETP-6-07 CETP-4.1-10: a ${state} record that lost its operation id is never answered accepted with a made-up operation; no second effect`, async () => {
      const world = kit.testProviderWorld({ tools: [kit.writeTool('w')] });
      const requestId = `0b9c3f52-1d7e-4c55-9a51-5f1c2b7a00${state === 'queued' ? '05' : '06'}`;
      let reply: unknown;
      await kit.runNegotiated(world, async (c) => {
        expect(kit.status(await c.execute('w', {}, { requestId }))).toBe('success');
        await corruptRecord(world, c, { state, operationId: null, terminalAtMs: null, result: null });
        reply = wireError(await c.execute('w', {}, { requestId }));
      });
      expect(reply).toMatchObject({ status: 'error:INTERNAL_ERROR' });
      expect(kit.providerErrors(world)).toEqual([]);
      expect(kit.effects(world)).toHaveLength(1);
    });
  }
});

describe('CETP-4.3-13: the confirmation changed in the store between its approval and the effect', () => {
  /** A confirmed write whose prepare (app code, run after the approval was checked) marks the
   *  confirmation used — as a restore of an older backup or another component of the app could. */
  function consumedBehindTheSdk(disabledRules: readonly string[] = []) {
    const tool = kit.writeTool('w', {
      annotations: kit.ALWAYS_CONFIRM,
      prepare: async (call) => {
        await call.context.storage.transaction('test: consume behind the SDK', async (tx) => {
          for (const id of await tx.keys(CONFIRMATIONS)) {
            const c = (await tx.get(CONFIRMATIONS, id)) as JsonObject;
            await tx.put(CONFIRMATIONS, id, { ...c, state: 'consumed', decision: 'approved' });
          }
        });
        return null;
      },
    });
    return kit.testProviderWorld(
      { tools: [tool], options: { disabledRules: new Set(disabledRules) } },
      kit.userDecides('approve'),
    );
  }

  async function approveAndResume(world: World): Promise<ReturnType<typeof wireError>> {
    let reply: ReturnType<typeof wireError> | null = null;
    await kit.runRequest(world, async (c, requestId) => {
      const pending = await c.execute('w', { a: 1 }, { requestId });
      await c.resolve(pending);
      const token = pending.getString('resume_token') ?? '';
      reply = wireError(await c.execute('w', { a: 1 }, { requestId, resumeToken: token }));
    });
    return reply as unknown as ReturnType<typeof wireError>;
  }

  it('CETP-4.3-13 ablated: the consumed confirmation is not looked at again; the effect runs on it', async () => {
    const world = consumedBehindTheSdk(['CETP-4.3-13']);
    expect((await approveAndResume(world)).status).toBe('success');
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.3-13: a confirmation found consumed inside the effect’s transaction is never used again: no effect, the pending record answered INTERNAL_ERROR (retryable), nothing audited as succeeded', async () => {
    const world = consumedBehindTheSdk();
    const reply = await approveAndResume(world);
    expect(reply).toMatchObject({ status: 'error:INTERNAL_ERROR', retryable: true });
    // The SDK's own answer to a record it cannot resume, not an exception caught and logged.
    expect(kit.providerErrors(world)).toEqual([]);
    expect(kit.effects(world)).toEqual([]);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['pending_confirmation']);
    expect(kit.audits(world).map((a) => a.outcome)).toEqual(['USER_ACTION_REQUIRED']);
  });

  it('CETP-4.3-13: a confirmation record deleted after the approval was checked: the call’s approval stands, the effect commits once and the confirmation is written consumed', async () => {
    const tool = kit.writeTool('w', {
      annotations: kit.ALWAYS_CONFIRM,
      prepare: async (call) => {
        await call.context.storage.transaction('test: drop the confirmation', async (tx) => {
          for (const id of await tx.keys(CONFIRMATIONS)) await tx.delete(CONFIRMATIONS, id);
        });
        return null;
      },
    });
    const world = kit.testProviderWorld({ tools: [tool] }, kit.userDecides('approve'));
    expect((await approveAndResume(world)).status).toBe('success');
    expect(kit.effects(world)).toHaveLength(1);
    expect(kit.testProviderRows(world, REQUESTS).map((r) => r.state)).toEqual(['succeeded']);
    expect(kit.testProviderRows(world, CONFIRMATIONS)).toMatchObject([
      { state: 'consumed', decision: 'approved' },
    ]);
  });
});

describe('CETP-10-06: every transaction the SDK opens is named in the trace', () => {
  it('CETP-10-06 CETP-5-26 CETP-4.3-03: the effect’s transaction names its tool; recording a failure and checking a stray token are named, each apart', async () => {
    const failing = kit.writeTool('refuses_archive', {
      mutate: async () => {
        throw new ToolFailure('CONFLICT', 'Scripted conflict.');
      },
    });
    const world = kit.testProviderWorld({ tools: [kit.writeTool('archive_mail'), failing] });
    const marks: Record<string, number> = {};
    const seq = () => world.trace.events.length;
    await kit.runNegotiated(world, async (c) => {
      marks.ok = seq();
      expect(kit.status(await c.execute('archive_mail', {}))).toBe('success');
      marks.failed = seq();
      expect(kit.status(await c.execute('refuses_archive', {}))).toBe('error:CONFLICT');
      marks.stray = seq();
      expect(kit.status(await c.execute('archive_mail', {}, { resumeToken: 'rt_stray' }))).toBe(
        'error:INVALID_REQUEST',
      );
      marks.end = seq();
    });
    const txs = (from: number, to: number) =>
      world.trace.events
        .slice(from, to)
        .filter(
          (e) =>
            (e.kind === 'store.commit' || e.kind === 'store.rollback') && e.data.actor === kit.TEST_PACKAGE,
        )
        .map((e) => ({ kind: e.kind, tx: String(e.data.tx) }));
    const ok = txs(marks.ok as number, marks.failed as number);
    const failed = txs(marks.failed as number, marks.stray as number);
    const stray = txs(marks.stray as number, marks.end as number);
    for (const t of [...ok, ...failed, ...stray]) expect(t.tx.trim()).not.toBe('');
    // The effect: one commit, named after its tool.
    expect(ok).toEqual([{ kind: 'store.commit', tx: expect.stringContaining('archive_mail') }]);
    // The failed attempt rolls back (named after its tool), then the failure is recorded under another name.
    expect(failed.map((t) => t.kind)).toEqual(['store.rollback', 'store.commit']);
    expect(failed[0]?.tx).toContain('refuses_archive');
    expect(failed[1]?.tx).not.toBe(failed[0]?.tx);
    expect(failed[1]?.tx).not.toContain('refuses_archive');
    // The stray token's check (after the grant step settled the token): rolled back, named apart.
    const check = stray.at(-1);
    expect(check?.kind).toBe('store.rollback');
    const others = [...ok, ...failed, ...stray.slice(0, -1)].map((t) => t.tx);
    expect(others).not.toContain(check?.tx);
  });
});

describe('the step table’s order is guarded', () => {
  it('CETP-5-24: the result step run before any effect throws a named error (execute_tool answers it INTERNAL_ERROR, logged), never renders a missing value', () => {
    const ex = { value: null } as unknown as Execution;
    expect(() => respond(ex)).toThrow('execute_tool: the result step ran before the effect');
  });
});
