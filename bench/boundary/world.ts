/**
 * The world the boundary benchmark runs in: the SDK's test provider with one read tool, `export`,
 * returning a statement of a given size (payload.ts) under STATEMENT_SCHEMA, and the reference
 * consumer app calling it through its bridge. Every byte goes the real way: the SDK validates and
 * renders the result (inline, or a file behind a read-only fd), the simulated Binder carries the
 * reply (parcel sizes, the shared 1 MiB − 8 KiB buffer), the consumer parses, validates, and for a
 * file checks size and SHA-256 and closes the fd.
 */

import type { JsonValue } from '../../src/base/json.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage } from '../../src/consumer/app.ts';
import type { ExternalToolBridge } from '../../src/consumer/bridge.ts';
import type { ToolOutcome } from '../../src/consumer/outcomes.ts';
import { readTool, TEST_PACKAGE, testProviderWorld, writeTool } from '../../src/providers/testing.ts';
import type { AppContext } from '../../src/sim/app/context.ts';
import type { World, WorldOptions } from '../../src/sim/world.ts';
import { STATEMENT_SCHEMA } from './payload.ts';

export const EXPORT_TOOL = 'export';
/** A write tool answering with the same statement: its result is recorded, and replayed to a retry. */
export const ARCHIVE_TOOL = 'archive';
/** A tiny result, for the call that negotiates and lists tools before anything is measured. */
export const PING_TOOL = 'ping';

export interface BoundaryWorldOptions {
  readonly world?: WorldOptions;
  /** The provider's max_concurrent_requests (default: the SDK's, 4). */
  readonly maxConcurrentRequests?: number;
  /** The provider's max_inline_result_bytes (default: the SDK's, 262,144, the protocol minimum). */
  readonly maxInlineResultBytes?: number;
}

/**
 * A world whose provider answers `export` (a read) and `archive` (a write: one row per execution)
 * with `value`, the same object every call.
 */
export function boundaryWorld(value: JsonValue, options: BoundaryWorldOptions = {}): World {
  const limits = {
    ...(options.maxConcurrentRequests === undefined
      ? {}
      : { maxConcurrentRequests: options.maxConcurrentRequests }),
    ...(options.maxInlineResultBytes === undefined
      ? {}
      : { maxInlineResultBytes: options.maxInlineResultBytes }),
  };
  const world = testProviderWorld(
    {
      tools: [
        readTool(EXPORT_TOOL, () => value, { outputSchema: STATEMENT_SCHEMA }),
        writeTool(ARCHIVE_TOOL, {
          outputSchema: STATEMENT_SCHEMA,
          mutate: async (_call, tx) => {
            await tx.put('archives', String((await tx.keys('archives')).length + 1), true);
            return value;
          },
        }),
        readTool(PING_TOOL, () => ({ pong: true })),
      ],
      options: { limits },
    },
    { recordContentCalls: false, stepBudget: 1e9, ...options.world },
  );
  world.install(consumerPackage(), consumerApp());
  return world;
}

/** Runs `body` on the consumer's `agent` thread after a first call has negotiated; then the world. */
export async function runInConsumer(
  world: World,
  body: (bridge: ExternalToolBridge, ctx: AppContext) => Promise<void>,
): Promise<void> {
  let failure: unknown = null;
  world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
    try {
      const bridge = bridgeIn(ctx);
      expectOk(await bridge.execute(TEST_PACKAGE, PING_TOOL, {}), 'ping');
      await body(bridge, ctx);
    } catch (error) {
      failure = error;
    }
  });
  const report = await world.run();
  if (failure) throw failure;
  if (report.outcome.kind !== 'completed') throw new Error(`boundary world ended ${report.outcome.kind}`);
}

/** The transport of a successful outcome; anything else is a broken benchmark, not a figure. */
export function expectOk(outcome: ToolOutcome, what: string): 'inline' | 'file' {
  if (outcome.kind !== 'ok') throw new Error(`${what}: the consumer got ${JSON.stringify(outcome)}`);
  return outcome.untrusted.transport;
}

export { TEST_PACKAGE };
