import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bareProvider, brokenTools } from '../cli/testdata/broken/kit.ts';
import undeclared from '../cli/testdata/undeclared-alerts.provider.ts';
import { referenceConsumer } from '../consumer/index.ts';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import { PROPERTIES as DEFS } from '../fuzz/suites.ts';
import {
  CliError,
  fuzzConsumer,
  fuzzProvider,
  fuzzReference,
  PLANTED_BUGS,
  PROPERTY_CATALOGUE,
  replay,
  replayCommand,
} from './index.ts';
import { verdictMessage } from './message.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cetp-sim-harness-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('the property catalogue (public)', () => {
  it('lists every property of the suites with its rule ids and checkers', () => {
    expect(PROPERTY_CATALOGUE.map((p) => p.id)).toEqual(DEFS.map((d) => d.id));
    for (const p of PROPERTY_CATALOGUE) {
      expect(p.ruleIds).toContain(p.area);
      expect(p.checkers.length).toBeGreaterThan(0);
      for (const c of p.checkers) for (const rule of c.ruleIds) expect(p.ruleIds).toContain(rule);
    }
    expect(PLANTED_BUGS.map((b) => b.id)).toContain('dedup-ignores-args');
    for (const bug of PLANTED_BUGS)
      for (const killer of bug.killers) expect(PROPERTY_CATALOGUE.map((p) => p.id)).toContain(killer);
    expect(PROPERTY_CATALOGUE.filter((p) => p.drives === 'consumer').map((p) => p.id)).toEqual([
      'consumer',
      'consumer-versions',
      'hostile',
    ]);
  });
});

describe('fuzzProvider / fuzzReference', () => {
  it('passes a working provider, with what it exercised, and writes no replay', async () => {
    const dir = tempDir();
    const report = await fuzzProvider(ALERTS, { property: 'malformed', runs: 20, cwd: dir });
    expect(report.passed).toBe(true);
    const [p] = report.properties;
    expect(p).toMatchObject({ id: 'malformed', status: 'passed', passed: true, runs: 20, replay: null });
    expect(p?.exercised.calls).toBeGreaterThan(0);
    expect(p?.exercised.answered).toBeGreaterThan(0);
    expect(p?.blindOracles).toEqual([]);
  });

  it('fails a planted bug: violations with rule ids and evidence, a replay file that replay() reproduces', async () => {
    const dir = tempDir();
    const report = await fuzzReference({
      property: ['idempotency'],
      mutant: 'dedup-ignores-args',
      seed: 5,
      runs: 300,
      cwd: dir,
    });
    expect(report.passed).toBe(false);
    const [p] = report.properties;
    if (!p?.replay) throw new Error('no replay file written');
    expect(p.status).toBe('failed');
    expect(p.replay).toBe(join(dir, '.cetp-sim', 'failures', 'idempotency-5.replay.json'));
    expect(p.replayCommand).toBe('npx cetp-sim replay .cetp-sim/failures/idempotency-5.replay.json');
    const binding = p.violations.find((v) => v.checker === 'args-binding');
    expect(binding?.ruleIds).toContain('CETP-6-04');
    expect((binding?.evidence.events.length ?? 0) + (binding?.evidence.calls.length ?? 0)).toBeGreaterThan(0);
    expect(p.trace).toContain('binder.call');
    const again = await replay(p.replay);
    expect(again.passed).toBe(false);
    expect(again.violations.map((v) => v.checker)).toContain('args-binding');
    expect(again.traceHash).toBe(p.failure?.traceHash);
    expect(again.recordedTraceHash).toBe(p.failure?.traceHash);
  });

  it('runs under the Android release profile it is given, recorded in the replay file (issue 35)', async () => {
    const dir = tempDir();
    // Unshrunk: the profile is the campaign's, recorded whether or not its failure is shrunk.
    const options = {
      property: ['idempotency'],
      mutant: 'dedup-ignores-args',
      seed: 5,
      runs: 300,
      shrink: false,
      cwd: dir,
    };
    const report = await fuzzReference({ ...options, android: 16 });
    const replayPath = report.properties[0]?.replay;
    if (!replayPath) throw new Error('no replay file written');
    // Without the option the file has no android field (the default profile, as before).
    expect(JSON.parse(readFileSync(replayPath, 'utf8')).variant.android).toBe(16);
    expect((await replay(replayPath)).passed).toBe(false);
    const wrong = await rejection(fuzzReference({ ...options, runs: 1, android: 13 as 14 }));
    expect(wrong.code).toBe('invalid_option');
    expect(wrong.message).toContain('android must be one of 14, 15, 16');
  });

  it('names the effect oracles that could not judge a provider that declares no effects', async () => {
    const report = await fuzzProvider(undeclared.providers, {
      property: 'idempotency',
      runs: 40,
      replayDir: null,
    });
    expect(report.properties[0]?.exercised.writesSucceeded).toBeGreaterThan(0);
    expect(report.properties[0]?.blindOracles).toContain('single-effect');
  });

  it('calls a provider that answers nothing vacuous, never passed', async () => {
    const silent = bareProvider(() => null);
    // (Under `malformed` it is not even vacuous: a null reply to a malformed request fails malformed-refused.)
    const report = await fuzzProvider(silent, { property: 'identity', runs: 5, replayDir: null });
    expect(report.passed).toBe(false);
    const [p] = report.properties;
    expect(p).toMatchObject({ status: 'vacuous', passed: false, replay: null });
    expect(p?.vacuity).toMatch(/none was answered/);
    expect(verdictMessage(p as NonNullable<typeof p>)).toMatch(/exercised nothing: .*none was answered/);
  });

  it('fails, in this process, a provider whose tools await forever or spin: the simulation ends the run', async () => {
    const never = brokenTools(() => new Promise(() => {}));
    const spins = brokenTools(async (call) => {
      for (;;) await call.context.yield();
    });
    for (const fixture of [never, spins]) {
      const report = await fuzzProvider(fixture, { property: 'malformed', runs: 10, replayDir: null });
      expect(report.properties[0]?.status).toBe('failed');
      expect(report.properties[0]?.violations.length).toBeGreaterThan(0);
    }
  });

  it('refuses bad input with a structured error naming the field', async () => {
    const badEffect = { ...ALERTS, effects: { ...ALERTS.effects, get_quote: 'banana' } };
    const bad = await rejection(fuzzProvider(badEffect, { runs: 1 }));
    expect(bad.code).toBe('invalid_fixture');
    expect(bad.message).toContain('providers[0].effects.get_quote');
    // Derivable fields may be left out, but one that contradicts the provider's list_tools is named.
    const lying = { ...ALERTS, effects: { ...ALERTS.effects, get_quote: 'delete' } };
    const contradiction = await rejection(fuzzProvider(lying, { runs: 1 }));
    expect(contradiction.code).toBe('invalid_fixture');
    expect(contradiction.message).toContain('providers[0].effects');
    const unknown = await rejection(fuzzProvider(ALERTS, { property: 'nope', runs: 1 }));
    expect(unknown.code).toBe('unknown_property');
    expect(unknown.message).toContain('valid: idempotency');
    const missing = await rejection(fuzzProvider(ALERTS, { module: './no-such-module.ts', runs: 1 }));
    expect(missing.code).toBe('module_not_found');
    const runs = await rejection(fuzzProvider(ALERTS, { runs: 0 }));
    expect(runs.code).toBe('invalid_option');
    const mutant = await rejection(fuzzReference({ mutant: 'no-such-bug', property: 'malformed', runs: 1 }));
    expect(mutant.code).toBe('unknown_mutant');
  });
});

describe('fuzzConsumer', () => {
  it('judges a consumer by the consumer-driven properties, and fails one with a planted bug', async () => {
    const good = await fuzzConsumer(referenceConsumer, {
      property: 'consumer-versions',
      runs: 10,
      replayDir: null,
    });
    expect(good.properties.map((p) => [p.id, p.status])).toEqual([['consumer-versions', 'passed']]);
    const bad = await fuzzConsumer(referenceConsumer, {
      property: 'consumer-versions',
      mutant: 'consumer-downgrades-to-v1',
      runs: 200,
      replayDir: null,
    });
    expect(bad.passed).toBe(false);
    expect(bad.properties[0]?.violations.length).toBeGreaterThan(0);
  });
});

/** The alerts fixture with the planted bug dedup-ignores-args: idempotency fails on it. */
const DEDUP_IGNORES_ARGS: typeof ALERTS = {
  ...ALERTS,
  install: (world, variant) => ALERTS.install(world, { ...variant, providerBugs: ['dedup-ignores-args'] }),
};

/**
 * Idempotency fuzzed on DEDUP_IGNORES_ARGS (300 runs from `seed`, in `cwd`), recorded as from `module`.
 * Unshrunk: its tests ask what the replay file and command name, which the first failing run's file
 * names as a shrunk one would (the shrunk replay is the planted-bug test's above).
 */
function huntDedupIgnoresArgs(seed: number, cwd: string, module?: string) {
  return fuzzProvider(DEDUP_IGNORES_ARGS, {
    property: 'idempotency',
    seed,
    runs: 300,
    shrink: false,
    cwd,
    ...(module === undefined ? {} : { module }),
  });
}

describe('replay()', () => {
  it('refuses a file recorded with a module unless that implementation is handed over', async () => {
    const dir = tempDir();
    const report = await huntDedupIgnoresArgs(5, dir, '../../src/fuzz/scenario/fixtures.ts').catch(
      (e: unknown) => e,
    );
    // The module option must name a file that exists relative to cwd: here it does not.
    expect(report).toBeInstanceOf(CliError);
    const file = join(dir, 'broken.provider.ts');
    writeFileSync(file, 'export const providers = [];\n');
    const found = await huntDedupIgnoresArgs(1, dir, './broken.provider.ts');
    const p = found.properties[0];
    if (!p?.replay) throw new Error('no replay file written');
    expect(p.replayCommand).toBe(
      'npx cetp-sim replay .cetp-sim/failures/idempotency-1.replay.json --provider ./broken.provider.ts',
    );
    expect(JSON.parse(readFileSync(p.replay, 'utf8')).modules).toEqual({ provider: './broken.provider.ts' });
    const refused = await rejection(replay(p.replay));
    expect(refused.code).toBe('replay_needs_module');
    const broken = { ...ALERTS, install: ALERTS.install };
    const fixed = await replay(p.replay, { providers: broken });
    expect(fixed.passed).toBe(true); // the reference app: the bug is gone, the same scenario passes
  });

  it('says when the replay command cannot name the code under test (no module given)', async () => {
    const dir = tempDir();
    const report = await huntDedupIgnoresArgs(1, dir);
    const p = report.properties[0];
    if (!p) throw new Error('no report');
    expect(p.replayCommand).toBe('npx cetp-sim replay .cetp-sim/failures/idempotency-1.replay.json');
    expect(p.replayCommandLacks).toEqual(['provider']);
    expect(verdictMessage(p)).toContain('(no --provider: the command would run the reference apps;');
  });

  it('names a missing or malformed file', async () => {
    expect((await rejection(replay('/no/such/file.replay.json'))).code).toBe('replay_file_not_found');
    const dir = tempDir();
    const file = join(dir, 'x.replay.json');
    writeFileSync(file, '{"format":"cetp-sim/replay@1"}');
    expect((await rejection(replay(file))).code).toBe('replay_invalid');
  });
});

describe('the package', () => {
  it("exports the vitest entry as 'cetp-sim/vitest', with vitest an optional peer dependency", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.exports['./vitest']).toEqual({
      'cetp-sim-source': './src/vitest.ts',
      types: './dist/src/vitest.d.ts',
      default: './dist/src/vitest.js',
    });
    expect(pkg.peerDependencies.vitest).toMatch(/^\^4\./);
    expect(pkg.peerDependenciesMeta.vitest.optional).toBe(true);
  });
});

describe('replayCommand', () => {
  it('names the modules and quotes paths with spaces', () => {
    expect(replayCommand('a b/x.replay.json', { provider: './p.ts', consumer: './c.ts' })).toBe(
      'npx cetp-sim replay "a b/x.replay.json" --provider ./p.ts --consumer ./c.ts',
    );
  });
});
