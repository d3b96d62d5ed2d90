/**
 * The Java vector runner (runners/java, issue 21), proven against the simulation from outside the
 * TypeScript process: runners/java/build.sh builds its core with plain javac and runs its JUnit
 * tests; then the whole corpus runs through the Java runner against `cetp-sim serve --stdio` and
 * every vector's verdict must equal the TypeScript runner's on the same corpus, computed now (not a
 * frozen list: the corpus may be regenerated); and every planted bug some vector catches in
 * TypeScript is caught by the same vectors through Java. The Android side is
 * test/android-runner.test.ts. scripts/java-deps.sh installs Debian's libandroid-json-java / junit4
 * as root when they are missing, and this file prints that it did. CETP_SIM_SKIP_JAVA=1, or no
 * javac, skips with one line (CI=true without the packages: a failure).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MUTANTS } from '../src/fuzz/mutants.ts';
import { PACKAGE_ROOT } from '../src/harness/root.ts';
import { blobReader, loadCorpus, runInputs } from '../src/vectors/corpus.ts';
import { REFERENCE_FIXTURES } from '../src/vectors/fixtures.ts';
import { PROFILES } from '../src/vectors/format.ts';
import { killMatrix } from '../src/vectors/kills.ts';
import { runJson } from '../src/vectors/reports.ts';
import { runVectors } from '../src/vectors/run.ts';

const SKIPPED = 3;
/**
 * The corpus `cetp-sim vectors` reads by default (src/cli/commands/vectors.ts's DEFAULT_VECTORS_DIR),
 * named here so this file does not import the CLI: it runs in a shared worker (vitest.projects.ts).
 */
const DEFAULT_VECTORS_DIR = join(PACKAGE_ROOT, 'vectors');
const SERVE = 'node bin/cetp-sim.js serve --stdio';
let build: { status: number | null; output: string; classpath: string } = {
  status: null,
  output: '',
  classpath: '',
};

function skipUnlessBuilt(skip: (note?: string) => void): void {
  if (build.status === SKIPPED && process.env.CI !== 'true') {
    skip(
      build.output
        .trim()
        .split('\n')
        .find((l) => l.includes('SKIPPED')) ?? 'java runner: SKIPPED',
    );
  }
  expect(build.status, build.output).toBe(0);
}

function java(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  // The client compiler only, as runners/java/build.sh runs it: less CPU for a run this short.
  const r = spawnSync(
    'java',
    ['-XX:TieredStopAtLevel=1', '-cp', build.classpath, 'org.cetp.vectors.Main', ...args],
    {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** id → status, in corpus order. */
function verdicts(report: { vectors: readonly { id: string; status: string }[] }): Record<string, string> {
  return Object.fromEntries(report.vectors.map((v) => [v.id, v.status]));
}

const corpus = loadCorpus(DEFAULT_VECTORS_DIR);
const files = runInputs(corpus);

describe('the Java vector runner', () => {
  beforeAll(() => {
    const r = spawnSync('bash', ['runners/java/build.sh'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    });
    const output = `${r.stdout}\n${r.stderr}`;
    build = { status: r.status, output, classpath: /classpath: (.*)$/m.exec(r.stdout)?.[1] ?? '' };
    // Said once, where a person reads it: an install as root, or why the Java tests are skipped.
    for (const line of output.split('\n')) {
      if (/^java-deps: installing|SKIPPED/.test(line)) console.warn(line);
    }
  }, 600_000);

  it('builds with javac --release 11 and passes its JUnit tests', (ctx) => {
    skipUnlessBuilt(ctx.skip);
    expect(build.output).toMatch(/^OK \(\d+ tests\)$/m);
  });

  it('runs the whole corpus through cetp-sim serve with the TypeScript runner’s verdict for every vector', async (ctx) => {
    skipUnlessBuilt(ctx.skip);
    const ts = runJson(
      await runVectors(files, { fixtures: REFERENCE_FIXTURES, profiles: PROFILES, blob: blobReader(corpus) }),
    );
    const r = java(['--dir', DEFAULT_VECTORS_DIR, '--serve', SERVE, '--json']);
    expect(r.stderr).not.toMatch(/Exception|error /);
    const jv = JSON.parse(r.stdout) as typeof ts & { counts: Record<string, number> };
    expect(Object.keys(verdicts(jv))).toEqual(Object.keys(verdicts(ts)));
    expect(verdicts(jv)).toEqual(verdicts(ts));
    expect(jv.claims).toEqual(ts.claims);
    expect(jv.counts).toEqual({ ...ts.counts, error: 0 });
    expect(jv.ok).toBe(ts.ok);
    expect(r.status).toBe(ts.ok ? 0 : 1);
    expect(jv.vectors.length).toBeGreaterThan(50);
  }, 600_000);

  it('catches, through Java, every planted bug some vector catches, with the same vectors', async (ctx) => {
    skipUnlessBuilt(ctx.skip);
    const rows = await killMatrix(files, MUTANTS, blobReader(corpus));
    const caught = rows.filter((row) => row.killedBy.length > 0);
    expect(caught.filter((row) => row.component === 'provider').length).toBeGreaterThan(10);
    // Each bug against the vectors that catch it in TypeScript (the whole corpus per bug would cost
    // minutes; the reference run above already checks that the other vectors agree).
    const specs = caught.map((row) => `${row.id}:${row.killedBy.join('+')}`);
    const r = java(['--dir', DEFAULT_VECTORS_DIR, '--serve', SERVE, '--kill-matrix', specs.join(',')]);
    expect(r.status, r.stderr).toBe(0);
    const jv = JSON.parse(r.stdout) as { mutants: { id: string; killedBy: string[]; errors: string[] }[] };
    expect(jv.mutants.map((m) => ({ id: m.id, killedBy: [...m.killedBy].sort(), errors: m.errors }))).toEqual(
      caught.map((row) => ({ id: row.id, killedBy: [...row.killedBy].sort(), errors: [] })),
    );
  }, 600_000);
});
