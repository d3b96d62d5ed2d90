/**
 * Test helpers for hostile providers: a world with one hostile provider (and its peer) and the
 * agent app, a RawClient on it, and a bounded reader for result fds that may never reach EOF —
 * the way a consumer has to read them (4.5-08), so that the test itself cannot hang.
 */

import type { AppContext } from '../../sim/app/context.ts';
import { TIMED_OUT } from '../../sim/core/scheduler.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import type { RunReport } from '../../sim/world.ts';
import { World, type WorldOptions } from '../../sim/world.ts';
import { AGENT, agentPackage, RawClient } from '../testing.ts';
import type { HostileBehaviour } from './behaviour.ts';
import type { HostileCase } from './cases.ts';
import { type InstalledHostile, installHostile } from './index.ts';

export interface HostileRun {
  readonly world: World;
  readonly where: InstalledHostile;
  readonly report: RunReport;
}

/** Runs `body` as the agent against a hostile provider behaving as `behaviour`. */
export async function runHostile(
  behaviour: HostileBehaviour,
  body: (client: RawClient, world: World) => Promise<void>,
  options: WorldOptions = {},
): Promise<HostileRun> {
  const world = new World({ recordContentCalls: true, ...options });
  world.install(agentPackage(), () => ({}));
  const where = installHostile(world, behaviour);
  let failure: unknown = null;
  world.spawnIn(AGENT, 'probe', async (ctx) => {
    try {
      await body(new RawClient(ctx, where.authority), world);
    } catch (error) {
      failure = error;
    }
  });
  const report = await world.run();
  if (failure) throw failure;
  return { world, where, report };
}

export interface BoundedRead {
  readonly bytes: Uint8Array;
  /** EOF was reached within the time and byte limits. */
  readonly eof: boolean;
  /** More than `limitBytes` were available. */
  readonly overLimit: boolean;
  /** What checkError() threw after EOF (reliable pipes), if anything. */
  readonly checkError: string | null;
}

/**
 * Reads `fd` up to `limitBytes` + 1 for at most `timeoutMs`, in a daemon thread of the caller's
 * process (a reader blocked forever on a pipe is abandoned, not a hung test).
 */
export async function readBounded(
  ctx: AppContext,
  fd: ParcelFileDescriptor,
  limitBytes: number,
  timeoutMs: number,
): Promise<BoundedRead> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const done = ctx.waiter<{ eof: boolean; checkError: string | null }>('bounded read');
  ctx.spawn(
    'bounded-reader',
    async () => {
      for (;;) {
        const chunk = await fd.read(64 * 1024);
        if (chunk.length === 0) break;
        parts.push(chunk);
        total += chunk.length;
        if (total > limitBytes) {
          done.wake({ eof: false, checkError: null });
          return;
        }
      }
      let checkError: string | null = null;
      try {
        fd.checkError();
      } catch (error) {
        checkError = error instanceof Error ? error.message : String(error);
      }
      done.wake({ eof: true, checkError });
    },
    { daemon: true },
  );
  const outcome = await ctx.waitFor(done, timeoutMs);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.length;
  }
  if (outcome === TIMED_OUT) return { bytes, eof: false, overLimit: false, checkError: null };
  return { bytes, eof: outcome.eof, overLimit: total > limitBytes, checkError: outcome.checkError };
}

/** Is this a case about how a result is delivered (a file, a resolution, a Binder overflow)? */
export function isDeliveryCase(hostile: HostileCase): boolean {
  const kind = hostile.behaviour.execute?.kind;
  return kind === 'file' || kind === 'resolution' || kind === 'oversized';
}
