/**
 * Concurrency against Binder's shared transaction buffer (issue 18): N calls in flight at once, each
 * answered with an inline result of s bytes. Every reply parcel is held in the consumer's receive
 * buffer (1 MiB − 8 KiB, shared by every transaction in flight for the process) until its caller
 * reads it; a reply that does not fit fails, and because the *request* was small the caller sees
 * DeadObjectException, not TransactionTooLargeException (src/sim/binder/binder.ts, ANDROID-FACTS §1). The
 * consumer then re-sends with the same request_id (CETP-6-08) after its backoff.
 *
 * Nothing here is timed: each run is a deterministic simulation (seed + scheduling strategy), so any
 * run in the table can be replayed exactly (replayConcurrentRun), and a test pins the failing one
 * the spec finding cites. The provider advertises max_concurrent_requests = N, so all N calls are
 * admitted and the buffer alone decides (CETP-2.2-19, CETP-5-17).
 */
import type { ToolOutcome } from '../../src/consumer/outcomes.ts';
import { effects } from '../../src/providers/testing.ts';
import { contentCallReplyBytes } from '../../src/sim/binder/binder.ts';
import { Bundle } from '../../src/sim/binder/bundle.ts';
import type { AndroidRelease } from '../../src/sim/core/release.ts';
import type { StrategySpec } from '../../src/sim/core/strategy.ts';
import { BINDER_BUFFER_BYTES } from '../../src/sim/process/process.ts';
import type { World } from '../../src/sim/world.ts';
import { statementOfSize } from './payload.ts';
import { ARCHIVE_TOOL, boundaryWorld, EXPORT_TOOL, runInConsumer, TEST_PACKAGE } from './world.ts';

export type StrategyName = 'fifo' | 'random' | 'pct';

export interface ConcurrentRunSpec {
  readonly concurrency: number;
  readonly sizeBytes: number;
  readonly seed: number;
  readonly strategy: StrategyName;
  /** The provider's max_inline_result_bytes, when raised above the protocol minimum. */
  readonly maxInlineResultBytes?: number;
  /** Call the write tool `archive` instead of the read tool `export` (default). */
  readonly write?: boolean;
  /** The Android release profile (src/sim/core/release.ts; 16 models a 16 KiB-page device). */
  readonly android?: AndroidRelease;
}

export interface ConcurrentRun {
  readonly spec: ConcurrentRunSpec;
  readonly world: World;
  /** One outcome per concurrent call, in call order. */
  readonly outcomes: readonly ToolOutcome[];
  /** execute_tool transactions sent (first sends and re-sends). */
  readonly transactions: number;
  /** Replies that did not fit the consumer's buffer (the caller saw DeadObjectException). */
  readonly failedReplies: number;
  /** Requests that did not fit the provider's buffer (TransactionTooLarge above 200 KB, else DeadObject). */
  readonly failedRequests: number;
  /** Virtual ms from the first concurrent send to the last outcome. */
  readonly elapsedMs: number;
  /** Business effects committed (write tool only; CETP-6-01: one per request_id). */
  readonly effects: number;
}

function strategySpec(name: StrategyName): StrategySpec {
  return name === 'pct' ? { kind: 'pct', depth: 3 } : { kind: name };
}

/** Runs one configuration: a warm-up call negotiates, then `concurrency` threads call `export` at once. */
export async function replayConcurrentRun(spec: ConcurrentRunSpec): Promise<ConcurrentRun> {
  const world = boundaryWorld(statementOfSize(spec.sizeBytes), {
    maxConcurrentRequests: spec.concurrency,
    ...(spec.maxInlineResultBytes === undefined ? {} : { maxInlineResultBytes: spec.maxInlineResultBytes }),
    world: {
      seed: spec.seed,
      strategy: strategySpec(spec.strategy),
      ...(spec.android === undefined ? {} : { android: spec.android }),
    },
  });
  const outcomes: ToolOutcome[] = [];
  let startedMs = 0;
  let endedMs = 0;
  await runInConsumer(world, async (bridge, ctx) => {
    startedMs = ctx.currentTimeMillis();
    let pending = spec.concurrency;
    const done = world.scheduler.waiter<void>('all concurrent calls answered');
    for (let i = 0; i < spec.concurrency; i++) {
      ctx.spawn(`call-${i}`, async () => {
        outcomes[i] = await bridge.execute(TEST_PACKAGE, spec.write ? ARCHIVE_TOOL : EXPORT_TOOL, {});
        if (--pending === 0) done.wake();
      });
    }
    await done.wait();
    endedMs = ctx.currentTimeMillis();
  });
  const calls = world.trace.events.filter((e) => e.data.method === 'execute_tool');
  const ofKind = (kind: string) => calls.filter((e) => e.kind === kind).length;
  return {
    spec,
    world,
    outcomes,
    // The warm-up ping is an execute_tool call too: one transaction, never over the buffer.
    transactions: ofKind('binder.call') - 1,
    failedReplies: ofKind('binder.reply.failed'),
    failedRequests: ofKind('binder.failed'),
    elapsedMs: endedMs - startedMs,
    effects: effects(world).length,
  };
}

/** Bytes of the reply parcel that carries an inline statement of `sizeBytes` (String16: 2 bytes a char). */
export function inlineReplyParcelBytes(sizeBytes: number, requestId: string): number {
  const reply = new Bundle();
  reply.putString('status', 'success');
  reply.putInt('protocol_version', 2);
  reply.putString('request_id', requestId);
  reply.putString('data', JSON.stringify({ kind: 'inline', value: statementOfSize(sizeBytes) }));
  return contentCallReplyBytes(reply);
}

/** How many such replies the consumer's receive buffer holds at once. */
export function repliesThatFit(replyBytes: number): number {
  return Math.floor(BINDER_BUFFER_BYTES / replyBytes);
}
