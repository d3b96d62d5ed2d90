import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROPERTIES } from '../fuzz/suites.ts';
import { consumerImpact } from './consumer-module.ts';
import { type CliRun, FAILING_VERSIONS_FUZZ, moduleFuzzArgs, onlyJson, runCli, tempDir } from './testing.ts';

interface FuzzJson {
  seed: number;
  passed: boolean;
  properties: {
    id: string;
    rules: string[];
    runs: number;
    status: string;
    exercised: Record<string, number>;
    replayFile?: string;
    traceHash?: string;
    violations?: { checker: string; ruleIds: string[]; message: string; evidence: unknown }[];
  }[];
  consumer?: { module: string; name: string; properties: string[]; note: string };
}

/** Runs the CLI in-process; a campaign on one thread unless the test says otherwise (no worker start-up). */
function run(args: readonly string[]): Promise<CliRun> {
  const oneThread = args[0] === 'fuzz' && !args.includes('--workers') ? ['--workers', '1'] : [];
  return runCli([...args, ...oneThread]);
}

const out = () => tempDir('cetp-sim-fuzz-');

describe('cetp-sim fuzz', () => {
  it('--json: the same arguments print identical JSON, with no wall-clock fields, for any --workers', async () => {
    const args = ['fuzz', '--json', '--runs', '5', '--seed', '3', '--property', 'versions', 'malformed'];
    const a = await run([...args, '--workers', '1', '--out', out()]);
    const b = await run([...args, '--workers', '1', '--out', out()]);
    const threads = await run([...args, '--workers', '2', '--out', out()]);
    expect(a.code).toBe(0);
    expect(a.stdout).toEqual(b.stdout);
    expect(threads.stdout).toEqual(a.stdout);
    const parsed = onlyJson<FuzzJson>(a.stdout);
    expect(parsed).toMatchObject({ seed: 3, passed: true });
    expect(parsed.properties.map((p) => [p.id, p.runs, p.status])).toEqual([
      ['versions', 5, 'passed'],
      ['malformed', 5, 'passed'],
    ]);
    expect(Object.keys(parsed.properties[0] ?? {})).toEqual([
      'id',
      'rules',
      'runs',
      'status',
      'exercised',
      'frequencies',
      'belowFloor',
    ]);
    // How often each attack and clock crossing happened, over the property's runs (issue 22).
    const frequencies = (parsed.properties[0] as { frequencies?: { runs: number; counts: object } })
      .frequencies;
    expect(frequencies?.runs).toBe(5);
    expect(Object.keys(frequencies?.counts ?? {})).toContain('attack:foreign-resume-token');
    // What the runs exercised of the implementations under test is reported, and was not nothing.
    const exercised = parsed.properties[0]?.exercised ?? {};
    expect(Object.keys(exercised)).toEqual([
      'calls',
      'answered',
      'succeeded',
      'effects',
      'writesSucceeded',
      'confirmations',
      'operationsFinished',
      'fileResults',
      'fileResultsJudged',
      'malformedCalls',
      'malformedRefused',
    ]);
    expect(exercised.calls).toBeGreaterThan(0);
    expect(exercised.succeeded).toBeGreaterThan(0);
  });

  it('a planted bug fails its property: exit 1, a replay file, its trace hash reproduced by replay --json', async () => {
    const dir = out();
    const fuzz = await run([...FAILING_VERSIONS_FUZZ, '--out', dir]);
    expect(fuzz.code).toBe(1);
    const [versions] = onlyJson<FuzzJson>(fuzz.stdout).properties;
    // The JSON carries each violation with its checker, rules, message and evidence.
    expect(versions?.violations?.[0]).toMatchObject({ checker: 'v1-read-only' });
    expect(versions?.violations?.[0]?.ruleIds).toContain('CETP-2.1-06');
    expect(versions?.violations?.[0]?.evidence).toHaveProperty('calls');
    expect(versions).toMatchObject({
      id: 'versions',
      status: 'failed',
      replayFile: join(dir, 'versions-0.replay.json'),
    });
    expect(versions?.rules).toContain('CETP-2.1-06');
    const file = JSON.parse(readFileSync(versions?.replayFile ?? '', 'utf8')) as {
      traceHash: string;
      format: string;
    };
    expect(file.format).toBe('cetp-sim/replay@1');
    expect(file.traceHash).toBe(versions?.traceHash);
    // Next to it, the shrunk run as a Mermaid sequence diagram.
    const diagram = readFileSync(join(dir, 'versions-0.mmd'), 'utf8');
    expect(diagram.startsWith('sequenceDiagram')).toBe(true);
    expect(diagram).toContain('list_tools');

    const replay = await run(['replay', versions?.replayFile ?? '', '--json']);
    expect(replay.code).toBe(1);
    expect(onlyJson(replay.stdout)).toMatchObject({
      failed: true,
      traceHash: file.traceHash,
      codeChanged: [],
    });
  });

  it('--no-shrink reports the failing run as found (shrunk 0 times), and its replay file fails too', async () => {
    const shrinksOf = async (extra: string[]) => {
      const dir = out();
      const fuzz = await run([...FAILING_VERSIONS_FUZZ, ...extra, '--out', dir]);
      expect(fuzz.code).toBe(1);
      const [versions] = onlyJson<FuzzJson>(fuzz.stdout).properties;
      expect(versions?.violations?.[0]).toMatchObject({ checker: 'v1-read-only' });
      const file = versions?.replayFile ?? '';
      const replay = await run(['replay', file, '--json']);
      expect(replay.code).toBe(1);
      return (JSON.parse(readFileSync(file, 'utf8')) as { fuzz: { shrinks: number } }).fuzz.shrinks;
    };
    expect(await shrinksOf(['--no-shrink'])).toBe(0);
    expect(await shrinksOf([])).toBeGreaterThan(0);
  });

  it('prints a failure with its rules, violation, minimal trace and replay command; --junit writes a report', async () => {
    const dir = out();
    const junit = join(dir, 'report.xml');
    const r = await run([
      'fuzz',
      '--mutant',
      'v1-lists-write-tools',
      '--property',
      'versions',
      '--out',
      dir,
      '--junit',
      junit,
    ]);
    expect(r.code).toBe(1);
    const text = r.stdout.join('\n');
    expect(text).toContain('FAILED versions');
    expect(text).toContain('rules: CETP-2.1-06');
    expect(text).toContain('v1-read-only');
    expect(text).toMatch(/binder\.call from=com\.fuzz\.agent\.\w to=com\.example\.alerts/);
    expect(text).not.toContain(' log ');
    expect(text).toContain(`npx cetp-sim replay ${join(dir, 'versions-0.replay.json')}`);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testcase classname="cetp-sim.fuzz" name="versions"');
    expect(xml).toContain('<failure message="[v1-read-only] v1 list_tools exposed');
  });

  it('--shard I/N runs the selected properties whose index i has i % N = I-1', async () => {
    const r = await run(['fuzz', '--json', '--runs', '1', '--shard', '2/3', '--out', out()]);
    expect(r.code).toBe(0);
    const expected = PROPERTIES.map((p) => p.id).filter((_, i) => i % 3 === 1);
    expect(expected.slice(0, 2)).toEqual(['confirmation', 'large-results']);
    expect(onlyJson<FuzzJson>(r.stdout).properties.map((p) => p.id)).toEqual(expected);
    const sub = await run([
      'fuzz',
      '--json',
      '--runs',
      '1',
      '--shard',
      '1/2',
      '--property',
      'versions',
      'identity',
      'malformed',
      '--out',
      out(),
    ]);
    expect(onlyJson<FuzzJson>(sub.stdout).properties.map((p) => p.id)).toEqual(['identity', 'malformed']);
  });

  it.each([
    [['--property', 'nope'], 'unknown_property', 'valid: idempotency, confirmation'],
    [['--mutant', 'nope'], 'unknown_mutant', 'valid: dedup-check-then-insert'],
    [['--shard', '0/2'], 'invalid_argument', 'I must be between 1 and 2'],
    [['--shard', 'two'], 'invalid_argument', '--shard must be I/N'],
    [['--runs', '3', '--time', '1'], 'conflicting_option', "'--runs <n>' cannot be used with option '--time"],
    [['--strategy', 'dfs'], 'invalid_argument', 'Allowed choices are fifo, random, pct, portfolio'],
    [['--time', '0'], 'invalid_argument', '--time must be a positive number'],
    [['--runs', '0'], 'invalid_argument', '--runs must be at least 1'],
    [['--provider', 'src/cli/testdata/missing.provider.ts'], 'module_not_found', 'no such file'],
    [
      ['--provider', 'src/cli/testdata/broken.provider.ts'],
      'invalid_provider_module',
      'providers[0].install must be a function',
    ],
    [
      ['--provider', 'src/cli/testdata/wrong-authority.provider.ts'],
      'invalid_provider_module',
      'declares no provider with authority',
    ],
    [
      ['--provider', 'src/cli/testdata/throws.provider.ts'],
      'module_load_failed',
      'cannot reach the build server',
    ],
    [
      ['--consumer', 'src/cli/testdata/my-alerts.provider.ts'],
      'invalid_consumer_module',
      "must export 'consumer'",
    ],
  ])('bad usage %j is exit 2 with a one-line JSON error', async (args, code, message) => {
    const r = await run(['fuzz', '--json', ...args]);
    expect(r.code).toBe(2);
    const { error } = onlyJson<{ error: { code: string; message: string } }>(r.stdout);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(error.message).not.toMatch(/\n\s+at /);
  });

  it('an unknown property without --json is one error line on stderr, no stack trace', async () => {
    const r = await run(['fuzz', '--property', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toMatch(/^error unknown_property: unknown property 'nope'; valid: /);
    expect(r.stderr.join('\n')).not.toMatch(/\n\s+at /);
  });
});

describe('cetp-sim fuzz --provider / --consumer', () => {
  it("fuzzes the user's provider module: a correct one passes, a buggy one fails", async () => {
    const good = await run(
      moduleFuzzArgs({
        role: 'provider',
        module: 'src/cli/testdata/my-alerts.provider.ts',
        runs: 5,
        properties: ['versions', 'idempotency'],
        out: out(),
      }),
    );
    expect(good.code).toBe(0);
    const dir = out();
    const bad = await run(
      moduleFuzzArgs({
        role: 'provider',
        module: 'src/cli/testdata/leaky-alerts.provider.ts',
        runs: 20,
        properties: ['versions'],
        out: dir,
      }),
    );
    expect(bad.code).toBe(1);
    const [versions] = onlyJson<FuzzJson>(bad.stdout).properties;
    const file = JSON.parse(readFileSync(versions?.replayFile ?? '', 'utf8')) as {
      modules: unknown;
      scenario: unknown;
    };
    expect(file.modules).toEqual({ provider: 'src/cli/testdata/leaky-alerts.provider.ts' });
    expect(JSON.stringify(file.scenario)).toContain('"provider":"leaky"');

    // The replay file names the module, but loads nothing by itself: replay says which flag to pass.
    const bare = await run(['replay', versions?.replayFile ?? '', '--json']);
    expect(bare.code).toBe(2);
    expect(onlyJson<{ error: { code: string; message: string } }>(bare.stdout).error).toMatchObject({
      code: 'replay_needs_module',
      message: expect.stringContaining('--provider src/cli/testdata/leaky-alerts.provider.ts'),
    });
    // Named on the command line, the same module runs again and reproduces the hash.
    const replay = await run([
      'replay',
      versions?.replayFile ?? '',
      '--json',
      '--provider',
      'src/cli/testdata/leaky-alerts.provider.ts',
    ]);
    expect(onlyJson(replay.stdout)).toMatchObject({
      failed: true,
      traceHash: versions?.traceHash,
      codeChanged: [],
    });
    // Another module does not install the provider the scenario calls: a clear mismatch.
    const other = await run([
      'replay',
      versions?.replayFile ?? '',
      '--json',
      '--provider',
      'src/cli/testdata/my-alerts.provider.ts',
    ]);
    expect(other.code).toBe(2);
    expect(onlyJson<{ error: { code: string } }>(other.stdout).error.code).toBe('replay_mismatch');
  });

  it('a consumer module replaces the reference consumer in the consumer-driven properties (only those, by default)', async () => {
    const r = await run(
      moduleFuzzArgs({
        role: 'consumer',
        module: 'src/cli/testdata/reference.consumer.ts',
        runs: 5,
        out: out(),
      }),
    );
    expect(r.code).toBe(0);
    const report = onlyJson<FuzzJson>(r.stdout);
    const driven = PROPERTIES.filter((d) => d.kind === 'consumer').map((d) => d.id);
    expect(report.properties.map((p) => p.id)).toEqual(driven);
    expect(report.consumer).toMatchObject({
      module: 'src/cli/testdata/reference.consumer.ts',
      name: 'reference',
      properties: driven,
    });
    // With --property, a raw-driver property runs too, and the module changes nothing there.
    const mixed = await run([
      'fuzz',
      '--runs',
      '2',
      '--property',
      'versions',
      '--consumer',
      'src/cli/testdata/reference.consumer.ts',
      '--out',
      out(),
    ]);
    expect(mixed.stdout.join('\n')).toContain(`loaded; ${consumerImpact([]).note}`);
  });

  it("a consumer module's own bug is found, and its replay file re-runs that consumer", async () => {
    const dir = out();
    const r = await run(
      moduleFuzzArgs({
        role: 'consumer',
        module: 'src/cli/testdata/forgetful.consumer.ts',
        runs: 300,
        properties: ['consumer'],
        out: dir,
      }),
    );
    expect(r.code).toBe(1);
    const [result] = onlyJson<FuzzJson>(r.stdout).properties;
    expect(result?.status).toBe('failed');
    const file = result?.replayFile ?? '';
    const replay = JSON.parse(readFileSync(file, 'utf8')) as { violations: { checker: string }[] };
    expect(replay.violations.map((v) => v.checker)).toContain('consumer-request-id-stable');
    const again = await run([
      'replay',
      '--json',
      file,
      '--consumer',
      'src/cli/testdata/forgetful.consumer.ts',
    ]);
    expect(again.code).toBe(1);
    expect(onlyJson<{ traceHash: string }>(again.stdout).traceHash).toBe(result?.traceHash);
  });
});
