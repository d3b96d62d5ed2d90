/**
 * One measurement of the consumer verifying a file result (issue 18: "peak RSS and heap growth
 * while verifying a 16 MiB file result"), in a process of its own so its peak RSS is this
 * measurement's alone. Prints one JSON line (MemoryFigures) on stdout.
 *
 * The provider is a scripted one (src/consumer/testing.ts) that hands over a file already on its
 * "disk", so nothing but the consumer's side of the call allocates while it is measured: reading
 * through the fd, the size and SHA-256 checks (CETP-4.5-05, 4.5-06), the decode and parse, the
 * output-schema validation (4.5-07) and the fd close (4.5-09). The file is written before the
 * baseline, from bytes made row by row (no object tree, no memory peak of its own).
 *
 *   node --import tsx bench/boundary/memory-child.ts [sizeBytes]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bridgeIn } from '../../src/consumer/app.ts';
import {
  CONSUMER,
  consumerWorld,
  installScripted,
  SCRIPTED_PACKAGE,
  success,
  toolDescriptor,
} from '../../src/consumer/testing.ts';
import { sha256Hex } from '../../src/protocol/index.ts';
import { MIB, STATEMENT_SCHEMA, statementJsonBytes } from './payload.ts';
import { expectOk } from './world.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export interface MemoryFigures {
  readonly fileBytes: number;
  /** RSS after a full GC, just before the call (MB = 10^6 bytes, as process.memoryUsage counts). */
  readonly baselineRssMb: number;
  /** Peak RSS of the process up to the call's start, and after it (VmHWM; ru_maxrss off Linux). */
  readonly maxRssBeforeMb: number;
  readonly maxRssAfterMb: number;
  /** maxRssAfter − baselineRss: the most the call added to the process at any moment. */
  readonly peakRssGrowthMb: number;
  /** heapUsed + arrayBuffers growth right after the call, the verified value still held. */
  readonly heldGrowthMb: number;
  /**
   * The same after the run, the agent's frame (and with it the value) gone and a full GC, the world
   * still alive: what the verification leaves behind in the consumer, provider and simulation.
   */
  readonly leftGrowthMb: number;
  /** peakRssGrowth / file size: the goal is ≤ 3. */
  readonly peakPerFileByte: number;
  /**
   * Whether the process's peak RSS was reset to its RSS just before the call (Linux
   * /proc/self/clear_refs). Without it a peak of the set-up (writing the file) can stand above the
   * call's own and be counted as the call's: 2026-12-04 06:19 read 3.16× that way (maxRssBefore =
   * maxRssAfter), 2.46 – 2.53× with the reset.
   */
  readonly peakReset?: boolean;
}

const mb = (bytes: number) => Math.round(bytes / 1e4) / 100;
const used = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, held: m.heapUsed + m.arrayBuffers };
};
/**
 * The process's peak RSS: VmHWM of /proc/self/status, which the reset below clears. Not getrusage's
 * ru_maxrss: the kernel also folds the peak into the process's signal struct whenever one of its
 * threads exits (do_exit → setmax_mm_hiwater_rss), and clear_refs does not reset that copy — a set-up
 * peak then outlived the reset and read as 4.3× (2026-12-04 07:16). Off Linux: ru_maxrss.
 */
function maxRss(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm?.[1]) return Number(hwm[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Resets the process's peak RSS (VmHWM, ru_maxrss) to its RSS now; false where Linux does not let it. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** A consumer world whose scripted provider has the statement file on its disk already. */
function worldWithStatementOnDisk(sizeBytes: number, path: string) {
  const bytes = statementJsonBytes(sizeBytes);
  const world = consumerWorld({ providers: [] });
  // The simulated disk keeps its own copy; ours goes out of scope with this function.
  world.fds.writeFile(SCRIPTED_PACKAGE, path, bytes);
  return { world, declared: { size_bytes: bytes.length, sha256: sha256Hex(bytes) } };
}

export async function measureVerification(sizeBytes: number): Promise<MemoryFigures> {
  const PATH = 'statement.json';
  const { world, declared } = worldWithStatementOnDisk(sizeBytes, PATH);
  const fileBytes = declared.size_bytes;
  installScripted(world, {
    tools: [toolDescriptor('export', { output_schema: STATEMENT_SCHEMA }), toolDescriptor('ping')],
    answer: (c) => {
      if (c.method !== 'execute_tool' || c.extras.getString('tool_name') !== 'export') return undefined;
      const fd = c.context.openFile(PATH, 'r');
      c.context.spawn('close', async () => {
        await c.context.yield();
        fd.close();
      });
      const reply = success(c.requestId, { kind: 'file', media_type: 'application/json', ...declared });
      reply.putParcelFileDescriptor('result_fd', fd);
      return reply;
    },
  });
  let measured: Omit<MemoryFigures, 'leftGrowthMb'> | null = null;
  let baselineHeld = 0;
  world.spawnIn(CONSUMER, 'agent', async (ctx) => {
    const bridge = bridgeIn(ctx);
    expectOk(await bridge.execute(SCRIPTED_PACKAGE, 'ping', {}), 'ping');
    gc();
    const peakReset = resetPeakRss();
    const before = used();
    const maxRssBefore = maxRss();
    const outcome = await bridge.execute(SCRIPTED_PACKAGE, 'export', {});
    const held = used();
    const maxRssAfter = maxRss();
    if (expectOk(outcome, 'export') !== 'file') throw new Error('the statement did not come as a file');
    baselineHeld = before.held;
    measured = {
      fileBytes,
      baselineRssMb: mb(before.rss),
      maxRssBeforeMb: mb(maxRssBefore),
      maxRssAfterMb: mb(maxRssAfter),
      peakRssGrowthMb: mb(maxRssAfter - before.rss),
      heldGrowthMb: mb(held.held - before.held),
      peakPerFileByte: Math.round(((maxRssAfter - before.rss) / fileBytes) * 100) / 100,
      peakReset,
    };
  });
  const report = await world.run();
  if (report.outcome.kind !== 'completed' || measured === null)
    throw new Error(`memory world ended ${report.outcome.kind}`);
  // The agent's frame is gone, the world (consumer, provider, trace, disk) is still alive.
  gc();
  return {
    ...(measured as Omit<MemoryFigures, 'leftGrowthMb'>),
    leftGrowthMb: mb(used().held - baselineHeld),
  };
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const size = Number(process.argv[2] ?? 16 * MIB);
  console.log(JSON.stringify(await measureVerification(size)));
}
