/**
 * The runs spec/findings/inline-limit-vs-binder-buffer.md cites, replayed: concurrent inline results
 * against Binder's shared 1 MiB − 8 KiB buffer (CETP-2.2-18, CETP-2.2-19, CETP-4.5-01, CETP-6-08).
 * Each is a deterministic simulation (seed + strategy): the figures below are what the finding says,
 * and a change to the buffer model, the parcel accounting or the consumer's retry discipline that
 * moves them fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  inlineReplyParcelBytes,
  replayConcurrentRun,
  repliesThatFit,
} from '../bench/boundary/concurrency.ts';
import { KIB } from '../bench/boundary/payload.ts';
import { summariseCell } from '../bench/boundary/summary.ts';
import { BINDER_BUFFER_BYTES } from '../src/sim/process/process.ts';

const REQUEST_ID = '00000000-0000-4000-8000-000000000000';

describe('the reply parcel of an inline result', () => {
  it('is about twice the inline size (String16), so one 256 KiB result takes half the buffer', () => {
    const bytes = inlineReplyParcelBytes(256 * KIB, REQUEST_ID);
    expect(bytes).toBeGreaterThan(2 * 256 * KIB);
    expect(bytes).toBeLessThan(2 * 256 * KIB + 1024);
    expect(repliesThatFit(bytes)).toBe(1);
    expect(repliesThatFit(inlineReplyParcelBytes(128 * KIB, REQUEST_ID))).toBe(3);
    expect(BINDER_BUFFER_BYTES).toBe(1024 * 1024 - 8 * 1024);
  });
});

describe('concurrent inline results (fifo, seed 1)', () => {
  it('2 × 256 KiB: the second reply does not fit; its caller re-sends the same request_id and gets it', async () => {
    const run = await replayConcurrentRun({
      concurrency: 2,
      sizeBytes: 256 * KIB,
      seed: 1,
      strategy: 'fifo',
    });
    const failed = run.world.trace.ofKind('binder.reply.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data.reason).toBe('caller buffer full (524536 + 524536 > 1040384)');
    // The request was small (< 200 KB): the caller saw DeadObjectException, and re-sent (6-08).
    const failedTxn = failed[0]?.data.txn;
    const request = run.world.trace.ofKind('binder.call').find((e) => e.data.txn === failedTxn);
    expect(request?.data.bytes).toBeLessThan(200 * 1024);
    const retries = run.world.trace
      .ofKind('app.audit')
      .filter((e) => e.data.event === 'execution.attempt' && e.data.reason === 'retry');
    expect(retries).toHaveLength(1);
    expect(run.outcomes.map((o) => o.kind)).toEqual(['ok', 'ok']);
    expect(run.transactions).toBe(3);
  });

  it('2 × 128 KiB fit side by side: no failure', async () => {
    const run = await replayConcurrentRun({
      concurrency: 2,
      sizeBytes: 128 * KIB,
      seed: 1,
      strategy: 'fifo',
    });
    expect(run.failedReplies + run.failedRequests).toBe(0);
    expect(run.transactions).toBe(2);
  });

  it('16 × 256 KiB: re-sends collide again (no jitter); 11 of 16 calls end with no result', async () => {
    const run = await replayConcurrentRun({
      concurrency: 16,
      sizeBytes: 256 * KIB,
      seed: 1,
      strategy: 'fifo',
    });
    const cell = summariseCell({ concurrency: 16, sizeBytes: 256 * KIB, strategy: 'fifo' }, [
      { ...run, seed: 1 },
    ]);
    expect(cell.outcomes).toEqual({ ok: 5, provider_unavailable: 11 });
    expect(cell.failedTransactions).toBe(65);
    expect(cell.transactions).toBe(70);
  });
});

describe('one inline result above ~507 KiB never fits, however often it is re-sent', () => {
  it('a provider that raised max_inline_result_bytes to 1 MiB answers 508 KiB in a reply that always fails', async () => {
    const spec = { concurrency: 1, seed: 1, strategy: 'fifo', maxInlineResultBytes: 1024 * KIB } as const;
    const fits = await replayConcurrentRun({ ...spec, sizeBytes: 507 * KIB });
    expect(fits.outcomes.map((o) => o.kind)).toEqual(['ok']);
    const never = await replayConcurrentRun({ ...spec, sizeBytes: 508 * KIB });
    expect(never.outcomes.map((o) => o.kind)).toEqual(['provider_unavailable']);
    expect(never.failedReplies).toBe(never.transactions);
    expect(never.transactions).toBe(5);
  });
});

// Seed 8 since the sim's process start took virtual time (100 ms): under seed 1 no reply is lost any more.
describe('a write tool (random schedule, seed 8)', () => {
  it('16 × 256 KiB: replies are lost, the effect still happens once per call and every retry gets the recorded result', async () => {
    const run = await replayConcurrentRun({
      concurrency: 16,
      sizeBytes: 256 * KIB,
      seed: 8,
      strategy: 'random',
      write: true,
    });
    expect(run.failedReplies).toBeGreaterThan(0);
    expect(run.effects).toBe(16);
    expect(run.outcomes.every((o) => o.kind === 'ok')).toBe(true);
  });
});
