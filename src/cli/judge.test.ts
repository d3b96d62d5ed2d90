/**
 * The judge apart from the judged (issue #31), with the hostile modules of src/cli/testdata/hostile/
 * (user code by its marker: it may import only cetp-sim's public entries):
 * - forgers fail or are refused: a module importing cetp-sim's checker list (not a public export) is
 *   refused at load, naming the import; one patching `World.prototype.run` through the public API is
 *   refused at load, or fails the run with `module-globals` when it patches during the runs; a module
 *   whose `cetp-sim` is a second copy is refused, naming both;
 * - a module that calls out of the simulation (Math.random, setInterval, child_process.spawn,
 *   fs.writeFileSync) fails with `module-escapes-simulation` naming the call and its frame — or is
 *   refused, at load — and no process it started is left behind;
 * - what a module threw is named in --json, with its frame;
 * - a failed property always has at least one violation with a checker id.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Checker } from '../check/checker.ts';
import { ALL_CHECKERS } from '../check/checkers/index.ts';
import { fuzzProperty } from '../fuzz/fuzz.ts';
import { propertyById } from '../fuzz/suites.ts';
import { type CliRun, moduleFuzzArgs, runCli, runCliProcess, tempDir } from './testing.ts';

const HOSTILE = 'src/cli/testdata/hostile';
const out = () => tempDir('cetp-sim-judge-');

interface Verdict {
  checker: string;
  message: string;
}
interface Report {
  error?: { code: string; message: string };
  properties?: { status: string; violations?: Verdict[]; thrown?: { error: string; frame: string }[] }[];
}

/**
 * The CLI runs of this file by their arguments (but the --out folder, which no test reads): several
 * tests ask different things of the same run (an escape's verdict, its message, that it names a
 * checker), and each such run is made once — a `main()` call costs seconds of starting workers.
 */
const RUNS = new Map<string, Promise<CliRun>>();

async function fuzz(module: string, property: string, runs: number, ...extra: string[]) {
  const key = JSON.stringify([module, property, runs, extra]);
  const run =
    RUNS.get(key) ??
    runCli(
      moduleFuzzArgs({
        role: 'provider',
        module: module.includes('/') ? module : `${HOSTILE}/${module}`,
        runs,
        watchdogSeconds: 10,
        properties: [property],
        out: out(),
        extra,
      }),
    );
  RUNS.set(key, run);
  const { code, stdout } = await run;
  const report = JSON.parse(stdout[0] ?? '{}') as Report;
  const [first] = report.properties ?? [];
  if (first?.status === 'failed') expectNamedVerdicts(first.violations);
  return { code, report, first, verdicts: first?.violations ?? [] };
}

/** A failed property has at least one violation, each with a checker id and a message. */
function expectNamedVerdicts(violations: readonly Verdict[] | undefined): void {
  expect(violations?.length ?? 0, 'a failed property with no violation').toBeGreaterThan(0);
  for (const v of violations ?? []) {
    expect(v.checker, JSON.stringify(v)).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(v.message.length).toBeGreaterThan(0);
  }
}

describe('forgers fail or are refused', () => {
  it('a module that no-ops the checker list it imports from cetp-sim internals is refused at load (exit 2, naming the import); unpatched, the planted bug is caught', async () => {
    const forged = await fuzz(
      'forges-checkers.provider.ts',
      'idempotency',
      200,
      '--mutant',
      'dedup-check-then-insert',
      // Only whether the planted bug is caught is asked: the failing run unshrunk.
      '--no-shrink',
    );
    expect(forged.code).toBe(2);
    expect(forged.report.error?.code).toBe('module_imports_internals');
    expect(forged.report.error?.message).toMatch(
      /forges-checkers\.provider\.ts imports '\.\.\/\.\.\/\.\.\/check\/checkers\/index\.ts' \(src\/check\/checkers\/index\.ts\), a file of cetp-sim's own code; a module may import only 'cetp-sim'/,
    );
    // The checkers were never patched: the refused import never ran.
    expect(ALL_CHECKERS.every((c) => !c.check.toString().includes('=> []'))).toBe(true);
    const control = await fuzz(
      'alerts.provider.ts',
      'idempotency',
      200,
      '--mutant',
      'dedup-check-then-insert',
      '--no-shrink',
    );
    expect(control.code).toBe(1);
    expect(control.first?.status).toBe('failed');
  }, 240_000);

  it('the same app through the public API, unpatched and calling nothing outside: passes (no false alarm)', async () => {
    const r = await fuzz('alerts.provider.ts', 'versions', 20);
    expect(r.code, JSON.stringify(r.verdicts)).toBe(0);
    expect(r.first?.status).toBe('passed');
  }, 120_000);

  it('a module patching World.prototype.run through the public API as it loads is refused, naming it', async () => {
    const r = await fuzz('forges-world-run.provider.ts', 'versions', 10);
    expect(r.code).toBe(2);
    expect(r.report.error?.code).toBe('module_patches_globals');
    expect(r.report.error?.message).toMatch(
      /loading the module replaced cetp-sim's World\.prototype\.run — cetp-sim's own code, the test bed that judges the module \(restored\)/,
    );
  }, 120_000);

  it('a module patching the prototype of the world it is given during the runs fails with module-globals, naming it', async () => {
    const r = await fuzz('forges-in-install.provider.ts', 'versions', 20);
    expect(r.code).toBe(1);
    const verdict = r.verdicts.find((v) => v.checker === 'module-globals');
    expect(verdict?.message, JSON.stringify(r.verdicts)).toMatch(/cetp-sim's World\.prototype\.run/);
  }, 120_000);

  it("a module whose 'cetp-sim' is a second copy is refused (exit 2), naming both copies", async () => {
    const dir = out();
    const copy = join(dir, 'node_modules', 'cetp-sim');
    mkdirSync(copy, { recursive: true });
    writeFileSync(
      join(copy, 'package.json'),
      JSON.stringify({ name: 'cetp-sim', type: 'module', exports: { '.': './index.js' } }),
    );
    writeFileSync(join(copy, 'index.js'), "export const copy = 'second';\n");
    const module = join(dir, 'second.provider.mjs');
    writeFileSync(module, "import { copy } from 'cetp-sim';\nexport const providers = [copy];\n");
    const r = await fuzz(module, 'versions', 5);
    expect(r.code).toBe(2);
    expect(r.report.error?.code).toBe('module_second_copy');
    expect(r.report.error?.message).toContain(join(copy, 'index.js'));
    expect(r.report.error?.message).toMatch(/but the CLI runs cetp-sim from \/.*src\/index\.ts — two copies/);
  }, 120_000);
});

describe('a module that calls out of the simulation', () => {
  it.each([
    [
      'random-in-tool.provider.ts',
      /your module called Math\.random at src\/cli\/testdata\/hostile\/random-in-tool\.provider\.ts:4:\d+ .*seeded PRNG/,
    ],
    [
      'clock-in-tool.provider.ts',
      /your module called Date\.now at src\/cli\/testdata\/hostile\/clock-in-tool\.provider\.ts:4:\d+ .*clock/,
    ],
    [
      'network-in-tool.provider.ts',
      /your module called net\.connect at src\/cli\/testdata\/hostile\/network-in-tool\.provider\.ts:7:\d+ .*socket/,
    ],
    [
      'writes-file-in-tool.provider.ts',
      /your module called fs\.writeFileSync at src\/cli\/testdata\/hostile\/writes-file-in-tool\.provider\.ts:9:\d+ .*own storage/,
    ],
  ])(
    '%s fails with module-escapes-simulation, naming the call and its frame',
    async (module, message) => {
      const written = join(tmpdir(), 'cetp-sim-hostile-write.json');
      rmSync(written, { force: true });
      const r = await fuzz(module, 'versions', 20);
      expect(r.code).toBe(1);
      expect(r.verdicts[0]?.checker, JSON.stringify(r.verdicts)).toBe('module-escapes-simulation');
      expect(r.verdicts[0]?.message).toMatch(message);
      // A write is refused, not made.
      expect(existsSync(written)).toBe(false);
    },
    120_000,
  );

  it.each([
    [
      'interval-at-import.provider.ts',
      /loading the module, your module called setInterval at src\/cli\/testdata\/hostile\/interval-at-import\.provider\.ts:4:1/,
    ],
    [
      'random-at-import.provider.ts',
      /loading the module, your module called Math\.random at src\/cli\/testdata\/hostile\/random-at-import\.provider\.ts:4:\d+/,
    ],
  ])(
    '%s is refused at load (exit 2), naming the call and its frame',
    async (module, message) => {
      const r = await fuzz(module, 'versions', 5);
      expect(r.code).toBe(2);
      expect(r.report.error?.code).toBe('module_escapes_simulation');
      expect(r.report.error?.message).toMatch(message);
    },
    120_000,
  );

  /** `cetp-sim fuzz --json` of a hostile module on `versions`, as a process of its own. */
  const fuzzInAProcess = (module: string, runs: number) =>
    runCliProcess(
      moduleFuzzArgs({
        role: 'provider',
        module: `${HOSTILE}/${module}`,
        runs,
        properties: ['versions'],
        out: out(),
      }),
      { timeoutMs: 240_000 },
    );

  it('child_process.spawn in a handler: the run fails naming the call, and no process is left once the CLI exits', () => {
    const cli = fuzzInAProcess('spawn-in-tool.provider.ts', 20);
    expect(cli.status, cli.stderr).toBe(1);
    const report = JSON.parse(cli.stdout) as Report;
    const [verdict] = report.properties?.[0]?.violations ?? [];
    expect(verdict?.checker).toBe('module-escapes-simulation');
    expect(verdict?.message).toMatch(
      /your module called child_process\.spawn at src\/cli\/testdata\/hostile\/spawn-in-tool\.provider\.ts:10:\d+/,
    );
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps.stdout).not.toMatch(/sleep 31\.4159/);
  }, 300_000);

  // The escape's verdict and message too (as the it.each above asks of the other escapes): this
  // process's campaign is the only one of interval-in-tool.provider.ts here.
  it('setInterval in a handler: the run fails naming the call and its frame, and the CLI exits by itself (no timer outlives it)', () => {
    const cli = fuzzInAProcess('interval-in-tool.provider.ts', 5);
    // Killed by the timeout (a 60 s interval keeping the event loop alive) would give signal SIGTERM.
    expect(cli.signal).toBeNull();
    expect(cli.status, cli.stderr).toBe(1);
    const report = JSON.parse(cli.stdout) as Report;
    const [first] = report.properties ?? [];
    expect(first?.status).toBe('failed');
    expectNamedVerdicts(first?.violations);
    expect(first?.violations?.[0]?.checker).toBe('module-escapes-simulation');
    expect(first?.violations?.[0]?.message).toMatch(
      /your module called setInterval at src\/cli\/testdata\/hostile\/interval-in-tool\.provider\.ts:6:\d+ .*scheduler/,
    );
  }, 300_000);
});

describe('what the module threw is named', () => {
  it("a handler throwing Error('storage offline'): the message and the module's frame are in --json", async () => {
    const r = await fuzz('throws-in-tool.provider.ts', 'versions', 20);
    expect(r.code).toBe(1);
    expect(r.first?.thrown).toContainEqual({
      error: 'Error: storage offline',
      frame: expect.stringMatching(/^src\/cli\/testdata\/hostile\/throws-in-tool\.provider\.ts:6:\d+$/),
    });
  }, 120_000);
});

describe('a failed property always names a verdict', () => {
  it('a failing run whose scenario passes when run again at once: run-not-reproducible', async () => {
    const def = propertyById('versions');
    if (!def || def.kind === 'consumer') throw new Error('versions is a raw-driver property');
    let calls = 0;
    // Fails the first run it judges, never again: the counterexample's re-run passes.
    const flaky: Checker = {
      id: 'flaky',
      ruleIds: [],
      description: 'fails once',
      check: () =>
        calls++ === 0
          ? [{ checker: 'flaky', ruleIds: [], class: 'correctness', message: 'once', events: [], calls: [] }]
          : [],
    };
    const result = await fuzzProperty(
      { ...def, fixture: { ...def.fixture, checkers: [flaky] } },
      { seed: 1, runs: 5 },
    );
    expect(result.status).toBe('failed');
    const violations = result.failure?.run.violations ?? [];
    expect(violations.map((v) => v.checker)).toEqual(['run-not-reproducible']);
    expect(violations[0]?.message).toMatch(/run again at once broke nothing/);
    expect(result.failure?.replay.violations.map((v) => v.checker)).toEqual(['run-not-reproducible']);
  }, 60_000);

  // A tool that always throws fails at its first answer (app-internal-error), before the campaign's
  // tool-never-succeeds could. The runs are the ones the tests above made (RUNS): this test asks each
  // for its checker. The watchdog (exit-in-tool) and module-globals (globals-in-install) are asked the
  // same of the same modules' runs in src/cli/hostile-modules.test.ts, which makes them anyway.
  it('forged globals, an escape and a thrown error: each failure names its checker', async () => {
    for (const [module, checker] of [
      ['forges-in-install.provider.ts', 'module-globals'],
      ['random-in-tool.provider.ts', 'module-escapes-simulation'],
      ['throws-in-tool.provider.ts', 'app-internal-error'],
    ] as const) {
      const r = await fuzz(module, 'versions', 20);
      expect(r.code, module).toBe(1);
      expect(r.first?.status).toBe('failed');
      expect(r.verdicts.map((v) => v.checker)).toContain(checker);
    }
    // A load error is no property verdict: exit 2 with a code and a message.
    const load = await fuzz('random-at-import.provider.ts', 'versions', 5);
    expect(load.code).toBe(2);
    expect(load.report.error?.code).toMatch(/^[a-z_]+$/);
    expect(load.report.error?.message.length).toBeGreaterThan(0);
  }, 300_000);
});
