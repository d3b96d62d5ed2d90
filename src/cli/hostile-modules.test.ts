import { describe, expect, it } from 'vitest';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import { fuzzProvider } from '../harness/fuzz.ts';
import { moduleFuzzArgs, runCli, runCliProcess, tempDir } from './testing.ts';

const HOSTILE = 'src/cli/testdata/hostile';
const out = () => tempDir('cetp-sim-hostile-');

interface Report {
  error?: { code: string; message: string };
  properties?: { status: string; violations?: { checker: string; message: string }[] }[];
}

async function fuzz(
  flag: '--provider' | '--consumer',
  module: string,
  property: string,
  runs = 10,
  extra: readonly string[] = [],
) {
  const { code, stdout } = await runCli(
    moduleFuzzArgs({
      role: flag === '--provider' ? 'provider' : 'consumer',
      module: `${HOSTILE}/${module}`,
      runs,
      // Wall time: far above any run's, so the host's load never decides a verdict (none of these
      // modules blocks its thread; a thread that dies is reported at once, whatever the watchdog).
      watchdogSeconds: 120,
      properties: [property],
      out: out(),
      extra,
    }),
  );
  const report = JSON.parse(stdout[0] ?? '{}') as Report;
  return { code, report, verdicts: report.properties?.[0]?.violations ?? [] };
}

describe('a module that cannot be loaded or used: exit 2 with a reason', () => {
  it.each([
    [
      '--provider',
      'exit-at-import.provider.ts',
      'module_load_failed',
      /its thread exited with code 0 \(process\.exit/,
    ],
    ['--consumer', 'throws.consumer.ts', 'module_load_failed', /the module failed to load: no licence key/],
    ['--consumer', 'no-agent.consumer.ts', 'invalid_consumer_module', /consumer\.agent must be a function/],
    [
      '--provider',
      'list-never.provider.ts',
      'invalid_provider_module',
      /effects\.get_quote: cannot be derived: .*list_tools never answered \(the provider returned a Promise that never settles\)/,
    ],
    [
      '--provider',
      'globals-at-import.provider.ts',
      'module_patches_globals',
      /loading the module replaced Math\.random, Date\.now, JSON\.stringify — globals the simulation's determinism rests on \(restored\)/,
    ],
    [
      '--provider',
      'pollutes-at-import.provider.ts',
      'module_patches_globals',
      /loading the module replaced Array\.prototype\.includes — a global the simulation's determinism rests on \(restored\)/,
    ],
  ] as const)(
    '%s %s: %s',
    async (flag, module, code, message) => {
      const property = flag === '--consumer' ? 'consumer' : 'versions';
      const r = await fuzz(flag, module, property);
      expect(r.code).toBe(2);
      expect(r.report.error?.code).toBe(code);
      expect(r.report.error?.message).toMatch(message);
    },
    120_000,
  );
});

describe('a module that misbehaves in a run: exit 1, the run failed with a verdict and a reason', () => {
  it.each([
    [
      '--provider',
      'exit-in-tool.provider.ts',
      'versions',
      'watchdog',
      /thread exited with code 0 \(process\.exit/,
    ],
    [
      '--consumer',
      'list-never.consumer.ts',
      'consumer',
      'run-progress',
      /awaited something outside the simulation \(a promise that never settles/,
    ],
    [
      '--provider',
      'globals-in-install.provider.ts',
      'versions',
      'module-globals',
      /user code in this run replaced Math\.random — a global the simulation's determinism rests on \(restored\)/,
    ],
    [
      '--provider',
      'pollutes-in-install.provider.ts',
      'versions',
      'module-globals',
      /user code in this run changed Object\.prototype\.cetpPolluted \(added\) — a global/,
    ],
    [
      '--provider',
      'buffer-in-install.provider.ts',
      'versions',
      'module-globals',
      /user code in this run replaced Buffer\.byteLength — a global the simulation's determinism rests on \(restored\)/,
    ],
    [
      '--provider',
      'patches-hash-in-tool.provider.ts',
      'versions',
      'module-globals',
      /user code in this run replaced node:crypto\.createHash — a Node built-in module's export cetp-sim's own code computes with/,
    ],
    [
      '--consumer',
      'globals-in-agent.consumer.ts',
      'consumer',
      'module-globals',
      /user code in this run replaced Date\.now/,
    ],
  ] as const)(
    '%s %s (%s): %s',
    async (flag, module, property, checker, message) => {
      // Only whether the run fails, by which checker and why, is asked: the failing run unshrunk.
      const r = await fuzz(flag, module, property, 20, ['--no-shrink']);
      expect(r.code).toBe(1);
      expect(r.report.properties?.[0]?.status).toBe('failed');
      // A failed property always names a verdict: every violation a checker id and a message
      // (src/cli/judge.test.ts's last test asks the same of its own runs).
      expect(r.verdicts.length).toBeGreaterThan(0);
      for (const v of r.verdicts) {
        expect(v.checker, JSON.stringify(v)).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(v.message.length).toBeGreaterThan(0);
      }
      const verdict = r.verdicts.find((v) => v.checker === checker);
      expect(verdict?.message, JSON.stringify(r.verdicts)).toMatch(message);
    },
    180_000,
  );

  it('in the library too: the run fails with module-globals, and the global is put back', async () => {
    const random = Math.random;
    let installs = 0;
    const patcher = {
      ...ALERTS,
      name: 'patcher',
      install: (
        world: Parameters<typeof ALERTS.install>[0],
        variant: Parameters<typeof ALERTS.install>[1],
      ) => {
        if (++installs > 3) Math.random = () => 0.25;
        ALERTS.install(world, variant);
      },
    };
    const report = await fuzzProvider(patcher, { property: 'versions', runs: 10, replayDir: null });
    expect(Math.random).toBe(random);
    expect(report.properties[0]?.status).toBe('failed');
    expect(report.properties[0]?.violations.map((v) => v.checker)).toContain('module-globals');
    // The same fixture without the patch passes: the verdict is about the patch, not the fixture.
    expect((await fuzzProvider(ALERTS, { property: 'versions', runs: 10, replayDir: null })).passed).toBe(
      true,
    );
  }, 120_000);
});

describe('a module that allocates without bound', () => {
  // Under a small heap (NODE_OPTIONS, inherited by the worker threads) so the test stays small:
  // the worker that runs the module reaches its limit and dies; the CLI says so.
  const cli = (module: string) =>
    runCliProcess(
      moduleFuzzArgs({
        role: 'provider',
        module: `${HOSTILE}/${module}`,
        runs: 3,
        watchdogSeconds: 120,
        properties: ['versions'],
        out: out(),
      }),
      { env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=192' }, timeoutMs: 240_000 },
    );

  it('at import: exit 2, the thread that loaded it died of its memory limit', () => {
    const r = cli('alloc-at-import.provider.ts');
    expect(r.status, r.stderr).toBe(2);
    const { error } = JSON.parse(r.stdout) as Required<Pick<Report, 'error'>>;
    expect(error.code).toBe('module_load_failed');
    expect(error.message).toMatch(/memory limit/);
  }, 300_000);

  it('in a tool handler: exit 1, the run failed (watchdog) because its thread died of its memory limit', () => {
    const r = cli('alloc-in-tool.provider.ts');
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    const [verdict] = report.properties?.[0]?.violations ?? [];
    expect(verdict?.checker).toBe('watchdog');
    expect(verdict?.message).toMatch(/memory limit/);
  }, 300_000);
});
