/**
 * payments: statements — large results through file descriptors, RESULT_TOO_LARGE without
 * large_results, inline statements, and cross-UID validation.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../protocol/index.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import { IOException } from '../../sim/core/errors.ts';
import type { World } from '../../sim/world.ts';
import { AGENT, data, OTHER_AGENT, status } from '../testing.ts';
import {
  executeThroughResolutions,
  NO_ASYNC,
  paymentsWorld,
  run,
  runNegotiated,
  transferArgs,
} from './payments-testing.ts';

describe('payments: statements (large results)', () => {
  it('CETP-4.5-02 CETP-4.5-03 CETP-4.5-04: 12 months ⇒ a read-only file whose size and lowercase sha256 match', async () => {
    const world = paymentsWorld();
    const report = await runNegotiated(world, async (c) => {
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
    });
    expect(report.fdLeaks).toEqual([]);
  });

  it('NOTES 12b: the provider closes its own copy of the result fd after the reply (only the unclosed client copy leaks)', async () => {
    const world = paymentsWorld();
    const report = await runNegotiated(world, async (c) => {
      const reply = await c.execute('export_statement', { account: 'DE-CHK-1', months: 24 });
      expect(data(reply).kind).toBe('file');
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

  it('CETP-4.2-03: the legacy savings core breaks the output schema; the SDK answers INTERNAL_ERROR, not the bad value', async () => {
    const statementOf = async (world: World) => {
      let reply: Bundle | null = null;
      await run(world, {
        [OTHER_AGENT]: async (c) => {
          await c.negotiate(NO_ASYNC);
          const uid = c.ctx.uid;
          reply = await c.execute('export_statement', { account: `SAV-${uid}`, months: 1 });
        },
      });
      return reply as unknown as Bundle;
    };
    const checked = await statementOf(paymentsWorld());
    expect(status(checked)).toBe('error:INTERNAL_ERROR');
    expect(checked.getBoolean('retryable', false)).toBe(true);
    expect(checked.getString('error_message') ?? '').not.toMatch(/0\.35|amount/);
    // Without the provider's own check (rule ablation), the value that breaks the schema goes out.
    const unchecked = paymentsWorld([], { disabledRules: new Set(['CETP-4.2-03']) });
    const d = data(await statementOf(unchecked)) as { value: { entries: { amount: unknown }[] } };
    expect(d.value.entries.some((e) => e.amount === '0.35')).toBe(true);
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
