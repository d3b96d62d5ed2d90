/**
 * Floor witnesses through the CLI (issue 34): a `fuzz` campaign too short for its property's floors
 * writes, per floor missed, its witness run's replay and names it in --json (`belowFloor[].witness`);
 * `replay` of that file reproduces the trace and the verdict (`floor-not-met`). With a user module the
 * judge in the CLI's thread picks the witness from the runs' records (worker/judge.ts).
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { memoryIo, tempDir } from './testing.ts';

const tmp = tempDir('cetp-floor-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PROVIDER = 'properties/controls/strict.provider.ts';

describe('floor witnesses in cetp-sim fuzz and replay', () => {
  it('a user-module campaign below a floor writes a witness whose replay reproduces it', async () => {
    const io = memoryIo();
    const args = ['fuzz', '--property', 'idempotency', '--provider', PROVIDER, '--runs', '4'];
    expect(await main([...args, '--out', tmp, '--json'], io)).toBe(0);
    const report = JSON.parse(io.stdout.join('\n')) as {
      properties: { belowFloor: { label: string; witness?: string }[] }[];
    };
    const gaps = report.properties[0]?.belowFloor ?? [];
    expect(gaps.length).toBeGreaterThan(0);
    const witness = gaps.find((g) => g.witness !== undefined)?.witness as string;
    expect(witness).toContain('idempotency-floor-');
    const replayed = memoryIo();
    expect(await main(['replay', witness, '--provider', PROVIDER, '--json'], replayed)).toBe(1);
    const out = JSON.parse(replayed.stdout.join('\n')) as {
      traceHash: string;
      recordedTraceHash: string;
      violations: { checker: string; message: string }[];
    };
    expect(out.traceHash).toBe(out.recordedTraceHash);
    expect(out.violations[0]?.checker).toBe('floor-not-met');
    expect(out.violations[0]?.message).toContain('below its floor');
  }, 120_000);
});
