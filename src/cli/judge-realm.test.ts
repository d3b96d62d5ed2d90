/**
 * The judge in a realm user code never enters (issue #31), end to end through the CLI: a module that
 * reaches the judgement of its runs in its own thread — fast-check, a package it may import, is the
 * instance the worker's property loop runs, and the module patches its AsyncProperty so that every
 * run "holds" — passed 200 runs of a planted bug before the judge moved out (exit 0); now the CLI's
 * thread judges every run again from its record, and the forge fails at the run the control fails at,
 * naming the forged verdict; its replay fails too. The CLI's thread (this test's: `main` runs in it)
 * imports no user module, judges the runs itself, and its fast-check was never patched.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userModulesImportedHere } from './module-loader.ts';
import { moduleFuzzArgs, runCli, tempDir } from './testing.ts';
import { MODULE_FORGES_VERDICT, runsJudgedHere } from './worker/judge.ts';

const HOSTILE = 'src/cli/testdata/hostile';

interface Report {
  properties?: {
    status: string;
    runs: number;
    replayFile?: string;
    violations?: { checker: string; message: string }[];
  }[];
}

async function fuzz(module: string, out: string) {
  const { code, stdout } = await runCli(
    moduleFuzzArgs({
      role: 'provider',
      module: `${HOSTILE}/${module}`,
      runs: 200,
      properties: ['idempotency'],
      out,
      // Where each campaign fails and by what is asked, not how small its run shrinks: both unshrunk.
      extra: ['--mutant', 'dedup-check-then-insert', '--no-shrink'],
    }),
  );
  const [first] = (JSON.parse(stdout[0] ?? '{}') as Report).properties ?? [];
  return { code, first };
}

describe('the judge apart from the judged', () => {
  it("a module that patches the worker's property loop (fast-check's AsyncProperty.prototype.run) to make every run hold still fails where the unpatched control fails, naming the forge; its replay fails too", async () => {
    const judgedBefore = runsJudgedHere();
    const forged = await fuzz('forges-property-loop.provider.ts', tempDir('cetp-sim-realm-'));
    const control = await fuzz('alerts.provider.ts', tempDir('cetp-sim-realm-'));
    expect(control.code).toBe(1);
    expect(forged.code, JSON.stringify(forged.first?.violations)).toBe(1);
    expect(forged.first?.status).toBe('failed');
    // Caught at the run the control is caught at: the judge judged every run as it came.
    expect(forged.first?.runs).toBe(control.first?.runs);
    const checkers = forged.first?.violations?.map((v) => v.checker) ?? [];
    expect(checkers[0]).toBe(MODULE_FORGES_VERDICT);
    expect(forged.first?.violations?.[0]?.message).toMatch(/did not report run \d+ failing/);
    for (const c of control.first?.violations?.map((v) => v.checker) ?? []) expect(checkers).toContain(c);
    // Judged in this thread — the CLI's — from the records: at least every run of both campaigns.
    expect(runsJudgedHere() - judgedBefore).toBeGreaterThanOrEqual(
      (forged.first?.runs ?? 0) + (control.first?.runs ?? 0),
    );

    // The replay runs the module again in a worker and is judged here too: it still fails.
    const file = forged.first?.replayFile;
    expect(file).toBeDefined();
    const replayed = await runCli([
      'replay',
      file as string,
      '--provider',
      `${HOSTILE}/forges-property-loop.provider.ts`,
      '--json',
    ]);
    expect(replayed.code, replayed.stdout.join('')).toBe(1);
    expect(replayed.stdout.join('')).toMatch(/single-effect/);
  }, 300_000);

  it("the judge's thread loads no user module: none was imported in it, and the forger's patch never reached its fast-check", async () => {
    // Runs after (and, alone, with) a campaign of the forger in this thread.
    if (runsJudgedHere() === 0) await fuzz('forges-property-loop.provider.ts', tempDir('cetp-sim-realm-'));
    expect(runsJudgedHere()).toBeGreaterThan(0);
    expect(userModulesImportedHere()).toEqual([]);
    const run = (
      Object.getPrototypeOf(fc.asyncProperty(fc.constant(0), async () => true)) as { run: () => unknown }
    ).run;
    expect(run.name).toBe('run');
    expect(String(run)).not.toMatch(/forged/);
  }, 300_000);
});
