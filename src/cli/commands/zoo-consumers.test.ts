/**
 * `cetp-sim zoo --consumers N` (the consumer zoo, src/zoo/consumer): --json counts consumers,
 * properties, false alarms and mistake pairs, identical bytes for identical arguments; a passing
 * consumer leaves nothing under --out; bad input is a structured error with exit 2.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConsumerZoo } from '../../zoo/consumer/run.ts';
import { expectBadInput, runCli, runCliTwiceAlike, tempDir } from '../testing.ts';

const root = tempDir('zoo-consumers-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('cetp-sim zoo --consumers', () => {
  it('--json: consumers, properties, false alarms and pairs; the same bytes twice; nothing left under --out', async () => {
    const out = join(root, 'out');
    const args = [
      'zoo',
      '--consumers',
      '1',
      '--seed',
      '1',
      '--property',
      'consumer',
      '--runs',
      '3',
      '--mistake',
      'negotiate-v2-only',
      '--json',
      '--out',
      out,
    ];
    const a = await runCliTwiceAlike(args);
    expect(a.code).toBe(0);
    const summary = JSON.parse(a.stdout[0] ?? '');
    expect(summary).toMatchObject({
      zoo: 'consumers',
      consumers: 1,
      consumersPassed: 1,
      falseAlarms: [],
      replays: [],
      properties: ['consumer'],
      pairs: { judged: 1, caught: 1 },
    });
    expect(summary.mistakes[0]).toMatchObject({
      id: 'negotiate-v2-only',
      by: { 'consumer/consumer-offers-v1': 1 },
    });
    expect(readdirSync(out)).toEqual([]);
  }, 120_000);

  it('the replay file of a false alarm re-runs with the --consumer module written beside it, and still fails', async () => {
    const cwd = join(root, 'planted');
    mkdirSync(cwd);
    const report = await runConsumerZoo({
      consumers: 1,
      seed: 1,
      properties: ['consumer'],
      plant: 'negotiate-v2-only',
      out: 'zoo-out',
      cwd,
    });
    const replay = report.falseAlarms[0]?.replay ?? '';
    const r = await runCli([
      'replay',
      resolve(cwd, replay),
      '--consumer',
      join(cwd, 'zoo-out', 'consumer0.consumer.ts'),
    ]);
    expect(r.stderr.join('\n')).not.toContain('module_imports_internals');
    expect(r.code).toBe(1);
    expect(r.stdout.join('\n')).toContain('consumer-offers-v1');
  }, 120_000);

  it('a property that does not drive a consumer, or an unknown mistake: exit 2, naming the option', async () => {
    await expectBadInput(
      ['zoo', '--consumers', '1', '--property', 'idempotency', '--json'],
      '--property idempotency',
    );
    await expectBadInput(['zoo', '--consumers', '1', '--mistake', 'no-such', '--json'], '--mistake no-such');
  });
});
