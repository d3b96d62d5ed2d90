/**
 * Provider conformance, spec §4.4 and §4.5: async operations, cancellation, recovery after a
 * restart, retention, and large results through file descriptors.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../protocol/index.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import type { World } from '../../sim/world.ts';
import type { MutationTool } from '../sdk/types.ts';
import * as kit from '../testing.ts';

/** Five one-second steps of preparation (cancellable), then a committed row. */
const slow = kit.writeTool('slow_job', {
  annotations: kit.annotations({ effect: 'update', execution: 'sync_or_async' }),
  prepare: async (call, work) => {
    for (let i = 1; i <= 5; i++) {
      await call.context.sleep(1000);
      if (await work.progress(i, 5, `step ${i}`)) return null;
    }
    return null;
  },
}) as MutationTool;

const big = kit.readTool('export_big', (call) => ({
  rows: Array.from({ length: (call.args as { n: number }).n }, (_, i) => ({ i, text: 'x'.repeat(90) })),
}));

function opWorld() {
  return kit.testProviderWorld({ tools: [slow, big] });
}

async function poll(c: kit.RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('get_operation', (b) => b.putString('operation_id', operationId), requestId);
}

async function cancel(c: kit.RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('cancel_operation', (b) => b.putString('operation_id', operationId), requestId);
}

async function start(c: kit.RawClient): Promise<{ requestId: string; operationId: string; reply: Bundle }> {
  const requestId = c.ctx.seededUuid();
  const reply = await c.execute('slow_job', {}, { requestId });
  return { requestId, operationId: String(kit.data(reply).operation_id), reply };
}

/** In a negotiated session on `world`: slow_job started, then, `afterMs` later, `body` with its ids. */
function afterStart(
  world: World,
  afterMs: number,
  body: (c: kit.RawClient, requestId: string, operationId: string) => Promise<void>,
) {
  return kit.runNegotiated(world, async (c) => {
    const { requestId, operationId } = await start(c);
    await c.ctx.sleep(afterMs);
    await body(c, requestId, operationId);
  });
}

describe('§4.4 async operations', () => {
  it('CETP-4.4-02 CETP-2.3-03 CETP-4.4-01: accepted carries status, protocol_version, request_id, operation_id and poll_after_ms', async () => {
    await kit.runNegotiated(opWorld(), async (c) => {
      const { reply, requestId } = await start(c);
      expect(reply.getString('status')).toBe('accepted');
      expect(reply.getInt('protocol_version')).toBe(2);
      expect(reply.getString('request_id')).toBe(requestId);
      expect(kit.data(reply)).toMatchObject({
        operation_id: expect.stringMatching(/^op_/),
        poll_after_ms: 1000,
      });
    });
  });

  it('CETP-4.4-04 CETP-4.4-05 CETP-4.4-07 CETP-4.4-08: get_operation reports running with progress, then succeeded with the sync result envelope', async () => {
    const world = opWorld();
    await afterStart(world, 2500, async (c, requestId, operationId) => {
      const running = await poll(c, requestId, operationId);
      expect(running.getString('status')).toBe('success');
      expect(kit.data(running)).toMatchObject({
        state: 'running',
        progress: { current: 2, total: 5, message: 'step 2' },
      });
      await c.ctx.sleep(5000);
      const done = kit.data(await poll(c, requestId, operationId));
      expect(done).toMatchObject({ state: 'succeeded', result: { kind: 'inline', value: { row: 1 } } });
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.4-06: a failed operation carries a §5-shaped error object', async () => {
    const failing = kit.writeTool('fails_late', {
      annotations: slow.annotations,
      prepare: async (call) => {
        await call.context.sleep(100);
        throw new Error('disk on fire at /data/data/secret');
      },
    });
    await kit.runRequest(kit.testProviderWorld({ tools: [failing] }), async (c, requestId) => {
      const op = String(kit.data(await c.execute('fails_late', {}, { requestId })).operation_id);
      await c.ctx.sleep(1000);
      const status = kit.data(await poll(c, requestId, op));
      expect(status).toMatchObject({
        state: 'failed',
        error: { error_code: 'INTERNAL_ERROR', retryable: false },
      });
      expect(JSON.stringify(status)).not.toContain('/data/data');
    });
  });

  it('CETP-4.4-10 CETP-4.4-21: cancel before the commit point is cancellation_requested, then cancelled with no effect', async () => {
    const world = opWorld();
    await afterStart(world, 1500, async (c, requestId, operationId) => {
      const cancelled = await cancel(c, requestId, operationId);
      expect(kit.data(cancelled)).toEqual({ operation_id: operationId, state: 'cancellation_requested' });
      await c.ctx.sleep(3000);
      expect(kit.data(await poll(c, requestId, operationId)).state).toBe('cancelled');
      expect(kit.status(await c.execute('slow_job', {}, { requestId }))).toBe('error:CANCELLED');
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.4-21 CETP-5-16 CETP-5-20: cancel after the commit is CONFLICT and the operation stays succeeded', async () => {
    const world = opWorld();
    await afterStart(world, 10_000, async (c, requestId, operationId) => {
      const cancelled = await cancel(c, requestId, operationId);
      expect(kit.status(cancelled)).toBe('error:CONFLICT');
      expect(cancelled.getBoolean('retryable', true)).toBe(false);
      expect(kit.data(await poll(c, requestId, operationId)).state).toBe('succeeded');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.4-12 CETP-4.4-13: another UID cannot read or cancel the operation', async () => {
    const world = opWorld();
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    const seen: string[] = [];
    world.spawnIn(kit.AGENT, 'owner', async (ctx) => {
      const c = new kit.RawClient(ctx, kit.TEST_AUTHORITY);
      await c.negotiate();
      const { requestId, operationId } = await start(c);
      world.spawnIn(kit.OTHER_AGENT, 'snoop', async (ctx2) => {
        const s = new kit.RawClient(ctx2, kit.TEST_AUTHORITY);
        await s.negotiate();
        seen.push(kit.status(await poll(s, requestId, operationId)));
        seen.push(kit.status(await cancel(s, requestId, operationId)));
      });
    });
    await world.run();
    expect(seen).toEqual(['error:INVALID_REQUEST', 'error:INVALID_REQUEST']);
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.1-11: get_operation with a request_id other than the creating one is refused', async () => {
    await kit.runNegotiated(opWorld(), async (c) => {
      const { operationId } = await start(c);
      expect(kit.status(await poll(c, c.ctx.seededUuid(), operationId))).toBe('error:INVALID_REQUEST');
    });
  });

  it('CETP-4.4-16 CETP-4.4-17 CETP-10-13: a provider restart mid-operation resumes it and commits exactly once', async () => {
    const world = opWorld();
    await afterStart(world, 2500, async (c, requestId, operationId) => {
      world.killProcess(kit.TEST_PACKAGE, { kind: 'killed', reason: 'test' });
      await c.negotiate().catch(() => c.negotiate());
      expect(kit.status(await c.execute('slow_job', {}, { requestId }))).toBe('accepted');
      await c.ctx.sleep(8000);
      expect(kit.data(await poll(c, requestId, operationId)).state).toBe('succeeded');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.4-14 CETP-5-22: an operation is kept through the idempotency window and RESULT_EXPIRED after it', async () => {
    const world = kit.testProviderWorld(
      { tools: [slow] },
      {
        faults: [
          { at: 60, fault: { kind: 'clockJump', ms: 23 * 3_600_000 } },
          { at: 90, fault: { kind: 'clockJump', ms: 2 * 3_600_000 } },
        ],
      },
    );
    await afterStart(world, 8000, async (c, requestId, operationId) => {
      while (world.scheduler.step < 60) await c.ctx.yield();
      await c.negotiate();
      expect(kit.data(await poll(c, requestId, operationId)).state).toBe('succeeded');
      while (world.scheduler.step < 90) await c.ctx.yield();
      await c.negotiate();
      const expired = await poll(c, requestId, operationId);
      expect(kit.status(expired)).toBe('error:RESULT_EXPIRED');
      expect(expired.getBoolean('retryable', true)).toBe(false);
      expect(kit.status(await c.execute('slow_job', {}, { requestId }))).toBe('error:RESULT_EXPIRED');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });
});

describe('§4.5 large results', () => {
  it('CETP-4.5-01 CETP-4.5-02 CETP-4.5-03 CETP-4.5-04: a result over the inline limit is a read-only file with its size and lowercase SHA-256', async () => {
    const world = opWorld();
    const report = await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute('export_big', { n: 5000 });
      const d = kit.data(reply);
      expect(d).toMatchObject({ kind: 'file', media_type: 'application/json' });
      expect(reply.getString('data')?.length).toBeLessThan(1000);
      const fd = reply.getParcelFileDescriptor('result_fd') as ParcelFileDescriptor;
      expect(fd.mode).toBe('r');
      await expect(fd.write(new Uint8Array([1]))).rejects.toThrow();
      const { bytes } = await fd.readUpTo(10_000_000);
      expect(bytes.length).toBe(d.size_bytes);
      expect(d.sha256).toBe(sha256Hex(bytes));
      expect(d.sha256).toMatch(/^[0-9a-f]{64}$/);
      fd.close();
    });
    expect(report.fdLeaks).toEqual([]);
  });

  it('CETP-4.5-11 CETP-5-21: without large_results an oversized result is RESULT_TOO_LARGE (retryable=false)', async () => {
    await kit.runOnTest(opWorld(), async (c) => {
      await c.negotiate(['async_operations']);
      const reply = await c.execute('export_big', { n: 5000 });
      expect(kit.status(reply)).toBe('error:RESULT_TOO_LARGE');
      expect(reply.getBoolean('retryable', true)).toBe(false);
      expect(reply.containsKey('result_fd')).toBe(false);
      expect(kit.status(await c.execute('export_big', { n: 10 }))).toBe('success');
    });
  });
});
