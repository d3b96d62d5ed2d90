/**
 * `cetp-sim zoo`: --json is the same bytes for the same arguments (no time in it), counts apps,
 * properties, false alarms and mistake pairs; bad input is a structured error with exit 2.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { memoryIo } from '../testing.ts';

async function run(args: string[]) {
  const io = memoryIo();
  const code = await main(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('cetp-sim zoo', () => {
  it('--json: apps, properties, false alarms and mistake pairs; identical bytes for identical arguments', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'zoo-')), 'out');
    const args = [
      'zoo',
      '--apps',
      '1',
      '--seed',
      '1',
      '--property',
      'idempotency',
      '--mistake',
      'storage-in-mutate',
      '--json',
      '--out',
      out,
    ];
    const a = await run(args);
    const b = await run(args);
    expect(a.code).toBe(0);
    expect(a.stdout).toEqual(b.stdout);
    const summary = JSON.parse(a.stdout[0] ?? '');
    expect(summary).toMatchObject({ apps: 1, appsPassed: 1, falseAlarms: [], properties: ['idempotency'] });
    expect(summary.mistakes[0]).toMatchObject({
      id: 'storage-in-mutate',
      applied: 1,
      caught: 1,
      missedModelSees: 0,
    });
    expect(summary.pairs).toEqual({ judged: 1, caught: 1, rate: 1, withModel: 1, rateWithModel: 1 });
    expect(summary.modelProblems).toEqual([]);
  }, 120_000);

  it('an unknown mistake or property is exit 2, named', async () => {
    const m = await run(['zoo', '--apps', '1', '--mistake', 'nope', '--json']);
    expect(m.code).toBe(2);
    expect(m.stdout.join('\n')).toContain('nope');
    const p = await run(['zoo', '--apps', '1', '--property', 'nope', '--json']);
    expect(p.code).toBe(2);
    expect(p.stdout.join('\n')).toContain('nope');
  });
});
