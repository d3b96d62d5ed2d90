/**
 * `--workers N` on mutants, ablate, vectors run and fuzz: one item (planted bug, rule, vector file,
 * property) per job, joined in catalogue order, so `--workers 1` (the CLI's own thread) and
 * `--workers 2` or `3` (the CLI's thread and one or two worker threads taking jobs from one shared
 * counter; worker threads only with user code) print the same --json bytes, write the same replay
 * files and exit with the same code — including when something fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablateRule } from '../fuzz/hunt.ts';
import { tailsOf } from '../harness/fuzz.ts';
import { loadCorpus, runInputs } from '../vectors/corpus.ts';
import { DEFAULT_VECTORS_DIR } from './commands/vectors.ts';
import { runCli, tempDir } from './testing.ts';

/** Runs `args` on one and on two workers: both answers, which the test compares. */
async function oneAndTwo(args: readonly string[]) {
  const one = await runCli([...args, '--workers', '1']);
  const two = await runCli([...args, '--workers', '2']);
  return { one, two };
}

describe('--workers: identical results for any number of workers', () => {
  it('fuzz with a planted bug: the same JSON (but the --out folder), exit code and replay files on 1 and 3 threads', async () => {
    const args = ['fuzz', '--json', '--mutant', 'v1-lists-write-tools', '--runs', '20', '--seed', '5'];
    const properties = ['--property', 'versions', 'malformed', 'idempotency', 'large-results'];
    const outputs = [];
    for (const workers of ['1', '3']) {
      const dir = tempDir('cetp-sim-workers-');
      const result = await runCli([...args, ...properties, '--workers', workers, '--out', dir]);
      const files = readdirSync(dir)
        .sort()
        .map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
      outputs.push({
        code: result.code,
        stdout: result.stdout.map((l) => l.replaceAll(dir, '<out>')),
        files,
      });
    }
    const [one, three] = outputs;
    expect(one?.code).toBe(1);
    expect(three).toEqual(one);
    expect(one?.files.map(([name]) => name)).toContain('versions-5.replay.json');
  });

  it('mutants on three threads: the same as on one', async () => {
    const args = [
      'mutants',
      '--json',
      '--id',
      'dedup-check-then-insert',
      'v1-lists-write-tools',
      'dedup-ignores-args',
    ];
    const one = await runCli([...args, '--runs', '3', '--workers', '1']);
    const three = await runCli([...args, '--runs', '3', '--workers', '3']);
    expect(three).toEqual(one);
    expect(one.stdout).toHaveLength(1);
  });

  it('mutants: planted bugs that survive a tiny budget, exit 1 either way', async () => {
    const { one, two } = await oneAndTwo([
      'mutants',
      '--json',
      '--id',
      'dedup-check-then-insert',
      'v1-lists-write-tools',
      '--runs',
      '1',
      '--strategy',
      'fifo',
      // Seed 1: both survive one run (at seed 0 the first run already races the duplicates).
      '--seed',
      '1',
    ]);
    expect(one.code).toBe(1);
    expect(two.code).toBe(one.code);
    expect(two.stdout).toEqual(one.stdout);
    const { mutants } = JSON.parse(one.stdout[0] ?? '{}') as { mutants: { id: string; killed: boolean }[] };
    expect(mutants.map((m) => m.id)).toEqual(['dedup-check-then-insert', 'v1-lists-write-tools']);
    expect(mutants[0]?.killed).toBe(false);
  });

  it('ablate: two rules, each with the properties that catch it', async () => {
    const { one, two } = await oneAndTwo([
      'ablate',
      '--json',
      '--rule',
      'CETP-2.1-06',
      'CETP-4.3-05',
      '--runs',
      '5',
    ]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(two.stdout).toEqual(one.stdout);
    const { rules } = JSON.parse(one.stdout[0] ?? '{}') as { rules: { id: string; caughtBy: unknown[] }[] };
    expect(rules.map((r) => r.id)).toEqual(['CETP-2.1-06', 'CETP-4.3-05']);
    expect(rules[0]?.caughtBy.length).toBeGreaterThan(0);
  });

  it('ablate: the jobs of one rule and property each join to what one job of the whole rule finds', async () => {
    const args = [
      'ablate',
      '--json',
      '--rule',
      'CETP-2.2-14',
      '--runs',
      '5',
      '--seed',
      '3',
      '--strategy',
      'random',
    ];
    const { one, two } = await oneAndTwo(args);
    expect(two.stdout).toEqual(one.stdout);
    const whole = await ablateRule('CETP-2.2-14', { seed: 3, runsPerProperty: 5, tails: tailsOf('random') });
    expect(whole.caughtBy.length).toBeGreaterThan(1);
    const { rules } = JSON.parse(one.stdout[0] ?? '{}') as { rules: { caughtBy: unknown[] }[] };
    expect(rules[0]?.caughtBy).toEqual(
      whole.caughtBy.map(({ property, checker }) => ({ property, checker })),
    );
  });

  it('vectors run: vectors of three files, one failing against a planted bug, in corpus order', async () => {
    const ids = ['--id', 'env-success', 'neg-invalid-session', 'desc-v1-list-read-only'];
    const reference = await oneAndTwo(['vectors', 'run', '--json', ...ids]);
    expect(reference.one.code).toBe(0);
    expect(reference.two.stdout).toEqual(reference.one.stdout);
    const leaky = ['--provider', 'src/cli/testdata/leaky-alerts.provider.ts', '--fixture', 'alerts'];
    const failing = await oneAndTwo(['vectors', 'run', '--json', ...leaky, ...ids]);
    expect(failing.one.code).toBe(1);
    expect(failing.two.code).toBe(1);
    expect(failing.two.stdout).toEqual(failing.one.stdout);
    const { vectors } = JSON.parse(failing.one.stdout[0] ?? '{}') as { vectors: { id: string }[] };
    const corpusOrder = runInputs(loadCorpus(DEFAULT_VECTORS_DIR))
      .flatMap((f) => (f.vectors ?? []).map((v) => v.id))
      .filter((id) => ids.includes(id));
    expect(vectors.map((v) => v.id)).toEqual(corpusOrder);
    expect(corpusOrder).toHaveLength(3);
  });
});
