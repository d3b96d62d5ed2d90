/**
 * `cetp-sim zoo`: --json is the same bytes for the same arguments (no time in it), counts apps,
 * properties, false alarms and mistake pairs; bad input is a structured error with exit 2.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectBadInput, runCliTwiceAlike, tempDir } from '../testing.ts';

describe('cetp-sim zoo', () => {
  it('--json: apps, properties, false alarms and mistake pairs; identical bytes for identical arguments', async () => {
    const out = join(tempDir('zoo-'), 'out');
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
    const a = await runCliTwiceAlike(args);
    expect(a.code).toBe(0);
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
    await expectBadInput(['zoo', '--apps', '1', '--mistake', 'nope', '--json'], 'nope');
    await expectBadInput(['zoo', '--apps', '1', '--property', 'nope', '--json'], 'nope');
  });
});
