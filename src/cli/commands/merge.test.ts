/**
 * `cetp-sim merge`: the shards of a run, merged, print the bytes the whole run prints (and its exit
 * code); reports that are not shards of one run are refused with exit 2, naming file and field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../testing.ts';

const dir = tempDir('cetp-sim-merge-');

/** Runs `args` whole and as shards 2/2 then 1/2 (written to files): the whole run and the shard files. */
async function wholeAndShards(name: string, args: readonly string[]) {
  const whole = await runCli([...args, '--json']);
  const files: string[] = [];
  for (const shard of ['2/2', '1/2']) {
    const part = await runCli([...args, '--json', '--shard', shard]);
    const file = join(dir, `${name}-${shard.replace('/', 'of')}.json`);
    writeFileSync(file, part.stdout[0] ?? '');
    files.push(file);
  }
  return { whole, files };
}

function written(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('cetp-sim merge', () => {
  it('mutants: two shards merge into the whole run, exit 1 as it (a planted bug survived)', async () => {
    const ids = ['--id', 'dedup-check-then-insert', 'deadline-after-effect', 'v1-lists-write-tools'];
    const { whole, files } = await wholeAndShards('mutants', [
      'mutants',
      ...ids,
      '--runs',
      '1',
      '--workers',
      '1',
    ]);
    expect(whole.code).toBe(1);
    const merged = await runCli(['merge', ...files]);
    expect(merged.stdout).toEqual(whole.stdout);
    expect(merged.code).toBe(1);
  });

  it('fuzz: two shards merge into the whole run, exit 0', async () => {
    const out = join(dir, 'failures');
    const args = [
      'fuzz',
      '--property',
      'versions',
      'malformed',
      '--runs',
      '3',
      '--workers',
      '1',
      '--out',
      out,
    ];
    const { whole, files } = await wholeAndShards('fuzz', args);
    expect(whole.code).toBe(0);
    const merged = await runCli(['merge', ...files]);
    expect(merged.stdout).toEqual(whole.stdout);
    expect(merged.code).toBe(0);
  });

  it('ablate: two shards merge into the whole run', async () => {
    const args = ['ablate', '--rule', 'CETP-2.1-06', 'CETP-4.3-05', '--runs', '2', '--workers', '1'];
    const { whole, files } = await wholeAndShards('ablate', args);
    const merged = await runCli(['merge', ...files]);
    expect(merged.stdout).toEqual(whole.stdout);
    expect(merged.code).toBe(0);
  });

  const fuzzReport = (seed: number, id: string) => ({
    seed,
    passed: true,
    properties: [{ id, rules: [], runs: 1, status: 'passed', exercised: {} }],
  });

  it.each([
    ['different seeds', [fuzzReport(1, 'versions'), fuzzReport(2, 'malformed')], 'b.json: /seed: 2 but'],
    [
      'overlapping shards',
      [fuzzReport(1, 'versions'), fuzzReport(1, 'versions')],
      "b.json: /properties/0/id: 'versions' is in",
    ],
    [
      'different commands',
      [fuzzReport(1, 'versions'), { rules: [] }],
      'b.json: (root): a ablate report, but',
    ],
    [
      'an unknown item',
      [fuzzReport(1, 'versions'), fuzzReport(1, 'nope')],
      "b.json: /properties/0/id: unknown fuzz item 'nope'",
    ],
    [
      'a wrong field type',
      [fuzzReport(1, 'versions'), { mutants: [{ id: 'x', killed: 'yes' }] }],
      'b.json: /mutants/0/killed: must be boolean',
    ],
    ['not a report', [fuzzReport(1, 'versions'), { hello: 1 }], 'b.json: (root): not the --json report'],
    ['not JSON', [fuzzReport(1, 'versions'), '{'], 'b.json: not JSON'],
  ])('%s: exit 2 naming file and field', async (_, [a, b], message) => {
    const r = await runCli(['merge', written('a.json', a), written('b.json', b), '--json']);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout[0] ?? '{}') as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_merge_input');
    expect(error.message).toContain(message);
  });
});
