/**
 * What a result costs on each side of the inline limit, against what its bytes alone cost (issue 18).
 *
 * For each size, one world (world.ts) serves the same statement over and over; each sample times
 * one call through the real path — SDK render, Binder, consumer parse and validation, and for a file
 * the size and SHA-256 checks and the fd close — and, in the same process and the same moment, the
 * floors for those bytes:
 *
 * - `floor` (the issue's): inline = JSON.stringify + one copy of the text into a byte buffer (what a
 *   parcel write does) + JSON.parse; file = SHA-256 + UTF-8 decode + JSON.parse + Ajv validation of
 *   STATEMENT_SCHEMA (JSON.parse takes a string, so the decode is part of parsing bytes).
 * - `fullFloor`: the floor plus the bare cost of what the spec asks of the other steps of the path —
 *   inline: the output-schema validation on both sides (CETP-4.2-03 provider, CETP-4.2-04 consumer);
 *   file: the provider's serialisation, encoding, SHA-256 for `data.sha256` (CETP-4.5-02) and its own
 *   output validation. A path near its full floor has little left to gain without changing the spec.
 *
 * The order of the three timings rotates from sample to sample, so none is always first after a GC.
 * Wall time is fine here: the benchmark is outside the determinism law (docs/design.md).
 */
import { hash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { median } from '../harness.ts';
import { STATEMENT_SCHEMA, statementOfSize } from './payload.ts';
import { boundaryWorld, EXPORT_TOOL, expectOk, runInConsumer, TEST_PACKAGE } from './world.ts';

export interface CostPoint {
  /** Inline `data` size of the result (what max_inline_result_bytes bounds), bytes. */
  readonly sizeBytes: number;
  /** How the reference provider sent it (inline up to 262,144 bytes). */
  readonly path: 'inline' | 'file';
  readonly samples: number;
  /** Median ms per call through the real path. */
  readonly pathMs: number;
  readonly floorMs: number;
  readonly fullFloorMs: number;
  /** pathMs / floorMs. */
  readonly ratio: number;
  /** pathMs / fullFloorMs. */
  readonly fullRatio: number;
}

export interface CostBudget {
  /** Stop sampling a size after this long (once `minSamples` are in). */
  readonly msPerSize: number;
  readonly minSamples: number;
  readonly maxSamples: number;
  /** Calls before sampling, at least (V8 optimises the path; the first call also opens the files' code paths). */
  readonly warmupCalls: number;
  /**
   * Then more warm-up calls, up to `maxWarmupCalls`, until this long has passed: with 5 warm-up
   * calls the 64 – 128 KiB medians still held unoptimised calls (1 KiB: 0.056 ms a call then,
   * 0.022 ms warm), which the earlier runs read as a ~0.2 ms fixed cost. The cap must not end the
   * warm-up before the time does: at 300 calls (until 2026-12-04) a 64 – 128 KiB size warmed for
   * only 0.1 – 0.3 s, and its first measurement in a process read 1.26 – 1.30× where a second one,
   * and one after 2 – 3 s of warm-up, read 1.12 – 1.19× (64 KiB) and 1.22 – 1.25× (128 KiB).
   */
  readonly warmupMs: number;
  readonly maxWarmupCalls: number;
}

export const DEFAULT_COST_BUDGET: CostBudget = {
  msPerSize: 3_000,
  minSamples: 9,
  maxSamples: 200,
  warmupCalls: 5,
  warmupMs: 2_000,
  maxWarmupCalls: 20_000,
};

/** The same schema compiled as the consumer compiles tool schemas (src/protocol/tool-schema.ts). */
function compileStatementSchema(): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, logger: false, addUsedSchema: false, validateFormats: false });
  const validate = ajv.compile(STATEMENT_SCHEMA);
  return (value) => validate(value) === true;
}

/** Keeps every floor's result alive, so no step of it can be optimised away. */
let sink = 0;

function inlineFloor(value: unknown): unknown {
  const text = JSON.stringify(value);
  sink += Buffer.from(text, 'utf8').length;
  return JSON.parse(text);
}

function fileFloor(bytes: Buffer, validate: (value: unknown) => boolean): void {
  sink += hash('sha256', bytes, 'hex').length;
  if (!validate(JSON.parse(bytes.toString('utf8')))) throw new Error('the statement breaks its schema');
}

function floors(value: unknown, path: 'inline' | 'file', validate: (value: unknown) => boolean) {
  const fileBytes = Buffer.from(JSON.stringify(value), 'utf8');
  if (path === 'inline') {
    return {
      floor: () => void inlineFloor(value),
      fullFloor: () => {
        if (!validate(value) || !validate(inlineFloor(value)))
          throw new Error('the statement breaks its schema');
      },
    };
  }
  return {
    floor: () => fileFloor(fileBytes, validate),
    fullFloor: () => {
      const bytes = Buffer.from(JSON.stringify(value), 'utf8');
      sink += hash('sha256', bytes, 'hex').length;
      if (!validate(value)) throw new Error('the statement breaks its schema');
      fileFloor(bytes, validate);
    },
  };
}

function timed(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Samples one size: the real path and both floors, interleaved. */
export async function measureCost(sizeBytes: number, budget = DEFAULT_COST_BUDGET): Promise<CostPoint> {
  const value = statementOfSize(sizeBytes);
  const validate = compileStatementSchema();
  const world = boundaryWorld(value);
  const times = { path: [] as number[], floor: [] as number[], fullFloor: [] as number[] };
  let path: 'inline' | 'file' = 'inline';
  await runInConsumer(world, async (bridge) => {
    const call = async () => {
      const started = performance.now();
      path = expectOk(await bridge.execute(TEST_PACKAGE, EXPORT_TOOL, {}), `export ${sizeBytes} bytes`);
      return performance.now() - started;
    };
    const warming = performance.now();
    let warmups = 0;
    while (
      warmups < budget.warmupCalls ||
      (warmups < budget.maxWarmupCalls && performance.now() - warming < budget.warmupMs)
    ) {
      await call();
      warmups++;
    }
    const f = floors(value, path, validate);
    for (let i = 0; i < warmups; i++) {
      f.floor();
      f.fullFloor();
    }
    const started = performance.now();
    for (let n = 0; n < budget.maxSamples; n++) {
      if (n >= budget.minSamples && performance.now() - started > budget.msPerSize) break;
      const steps = [
        async () => times.path.push(await call()),
        async () => times.floor.push(timed(f.floor)),
        async () => times.fullFloor.push(timed(f.fullFloor)),
      ];
      for (let k = 0; k < steps.length; k++) await steps[(n + k) % steps.length]?.();
    }
  });
  if (sink < 0) throw new Error('unreachable: the sink only grows');
  const pathMs = median(times.path);
  const floorMs = median(times.floor);
  const fullFloorMs = median(times.fullFloor);
  return {
    sizeBytes,
    path,
    samples: times.path.length,
    pathMs: round3(pathMs),
    floorMs: round3(floorMs),
    fullFloorMs: round3(fullFloorMs),
    ratio: Math.round((pathMs / floorMs) * 100) / 100,
    fullRatio: Math.round((pathMs / fullFloorMs) * 100) / 100,
  };
}
