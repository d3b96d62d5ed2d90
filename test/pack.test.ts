/**
 * cetp-sim as a user gets it: `npm pack` (which builds dist/ through `prepare`), the tarball
 * installed into a fresh project outside the repository, and then, from that project only:
 * (a) `npx cetp-sim fuzz` runs the compiled CLI, passes, and fails (exit 1, a replay file that
 *     `npx cetp-sim replay` re-runs) under a planted bug;
 * (b) a plain-JavaScript `--provider` module fuzzes;
 * (c) a TypeScript project with a stock strict NodeNext tsconfig (no exactOptionalPropertyTypes, no
 *     noUncheckedIndexedAccess, skipLibCheck off; lib ES2022 and @types/node, as a Node project sets
 *     it — the DOM's 39,000 lines of declarations were a third of the check's CPU) typechecks a
 *     provider written against the package's exported types, and that provider fuzzes.
 * The project installs from the npm cache alone when it holds everything (--offline, as after
 * `npm ci`), else with the registry for what is missing (--prefer-offline). `npm pack` after `npm ci`
 * does not compile again: scripts/build.mjs serves dist/ only when its stamp says it is the build of
 * exactly these sources (test/build-stamp.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = join(REPO, 'test', 'pack-fixtures');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};

/** The environment without what `npm test` itself sets for its scripts (or a forced CLI mode). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) {
    if (key.startsWith('npm_lifecycle_') || key.startsWith('npm_package_') || key === 'CETP_SIM_FROM')
      delete env[key];
  }
  return env;
}

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string): Ran {
  const result = spawnSync(command, args, {
    cwd,
    env: cleanEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === 'win32',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs, and fails the test with the command's output when it does not exit with `expected`. */
function expectExit(ran: Ran, expected: number, what: string): Ran {
  if (ran.status !== expected)
    throw new Error(`${what}: exit ${ran.status}, expected ${expected}\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** The vitest entry (src/vitest.ts) is built and exported once it exists. */
const HAS_VITEST_ENTRY = existsSync(join(REPO, 'src', 'vitest.ts'));

const npx = (project: string, ...args: string[]) => run('npx', ['--no', 'cetp-sim', ...args], project);

/**
 * The bin link the install made (node_modules/.bin/cetp-sim, what `npx cetp-sim` finds and runs),
 * run directly: npx's own start is ~0.5 s of CPU a call. The passing campaign, the planted bug and
 * the printed `npx cetp-sim replay` run through npx, as a user types them; the others, whose claims
 * are about the package and not about npx, through the link.
 */
const bin = (project: string, ...args: string[]) =>
  run(
    join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'cetp-sim.cmd' : 'cetp-sim'),
    args,
    project,
  );

/** The user project's own TypeScript compiler (`npx tsc -p` would read -p as npx's own option). */
const tsc = (config: string) =>
  run('node', [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], project);

/** One campaign of the compiled CLI in one thread, run once for the two tests that read it. */
const FUZZ_ARGS = ['fuzz', '--property', 'operations', 'versions', '--runs', '5', '--json'];
let oneThreadRan: Ran | undefined;
function oneThread(): Ran {
  oneThreadRan ??= expectExit(npx(project, ...FUZZ_ARGS), 0, 'npx cetp-sim fuzz');
  return oneThreadRan;
}

let root = '';
let project = '';
let tarball = '';
let packed: string[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cetp-sim-pack-'));
  project = join(root, 'project');
  const pack = expectExit(
    run('npm', ['pack', '--json', '--pack-destination', root], REPO),
    0,
    'npm pack (prepare builds dist/)',
  );
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = join(root, info[0]?.filename ?? '');
  packed = (info[0]?.files ?? []).map((f) => f.path);

  // A user's project: outside the repository, its own package.json, nothing of cetp-sim but the tarball.
  cpSync(FIXTURES, project, { recursive: true });
  // Kept out of the fixtures so the repository's own typecheck never sees it.
  writeFileSync(
    join(project, 'wrong.ts'),
    "import { ALERTS_PACKAGE } from 'cetp-sim';\nexport const packageName: number = ALERTS_PACKAGE;\n",
  );
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'user-project', private: true, type: 'module' }, null, 2)}\n`,
  );
  // Offline first: after `npm ci` the cache holds every package (and their metadata) this install
  // needs, and `--offline` asks the registry nothing. When it does not (ENOTCACHED), the same install
  // with the registry for what is missing.
  const install = (mode: string) =>
    run(
      'npm',
      [
        'install',
        mode,
        '--no-audit',
        '--no-fund',
        tarball,
        `typescript@${manifest.devDependencies.typescript}`,
        `@types/node@${manifest.devDependencies['@types/node']}`,
        // cetp-sim/vitest runs inside the user's vitest (an optional peer dependency).
        ...(HAS_VITEST_ENTRY ? [`vitest@${manifest.devDependencies.vitest}`] : []),
      ],
      project,
    );
  let installed = install('--offline');
  if (installed.status !== 0 && /ENOTCACHED/.test(`${installed.stdout}${installed.stderr}`))
    installed = install('--prefer-offline');
  expectExit(installed, 0, 'npm install of the tarball');
}, 900_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

// Each case spawns npx and the CLI: seconds on an idle machine, minutes on a loaded one.
describe('the npm package (npm pack, installed into a fresh project)', { timeout: 600_000 }, () => {
  it('ships compiled JavaScript, declarations, the CLI and its run-time data — no TypeScript sources, no tests', () => {
    expect(packed).toContain('bin/cetp-sim.js');
    expect(packed).toContain('dist/src/index.js');
    expect(packed).toContain('dist/src/index.d.ts');
    expect(packed).toContain('dist/src/cli/worker/worker.js');
    expect(packed).toContain('dist/src/cli/worker/boot.mjs');
    expect(packed).toContain('dist/rule-tests.json');
    // The build's stamp (its inputs' digests, with the build machine's paths) stays in the checkout.
    expect(packed).not.toContain('dist/build-stamp.json');
    expect(packed).toContain('spec/rules.json');
    expect(packed).toContain('vectors/manifest.json');
    const sources = packed.filter((p) => /\.[cm]?ts$/.test(p) && !p.endsWith('.d.ts'));
    expect(sources).toEqual([]);
    expect(packed.filter((p) => /\.test\.|testdata|^test\//.test(p))).toEqual([]);
    const installed = join(project, 'node_modules', manifest.name);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(readdirSync(installed).sort()).toEqual(
      expect.arrayContaining(['bin', 'dist', 'package.json', 'spec', 'vectors']),
    );
  });

  it('exports "." (and "./vitest" when built) with types; deep imports are refused', () => {
    const ran = expectExit(run('node', ['exports.mjs'], project), 0, 'node exports.mjs');
    const seen = JSON.parse(ran.stdout) as Record<string, unknown>;
    expect(seen.world).toBe('function');
    expect(seen.version).toBe(manifest.version);
    expect(seen.deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    if (HAS_VITEST_ENTRY) expect(seen.vitest).toBe('object');
  });

  it('(a) npx cetp-sim fuzz runs the compiled CLI and passes, byte for byte as the checkout’s sources do', () => {
    const ran = oneThread();
    const checkout = expectExit(
      run('node', [join(REPO, 'bin', 'cetp-sim.js'), ...FUZZ_ARGS], REPO),
      0,
      'checkout',
    );
    expect(ran.stdout).toBe(checkout.stdout);
    const report = JSON.parse(ran.stdout) as {
      passed: boolean;
      properties: { id: string; status: string }[];
    };
    expect(report.passed).toBe(true);
    expect(report.properties.map((p) => [p.id, p.status])).toEqual([
      ['operations', 'passed'],
      ['versions', 'passed'],
    ]);
  });

  it('(a) a planted bug fails the compiled CLI (exit 1), and npx cetp-sim replay re-runs the replay file', () => {
    const out = join(root, 'failures-a');
    const ran = expectExit(
      npx(
        project,
        'fuzz',
        '--property',
        'versions',
        '--runs',
        '10',
        '--mutant',
        'v1-lists-write-tools',
        '--out',
        out,
      ),
      1,
      'npx cetp-sim fuzz --mutant',
    );
    expect(ran.stdout).toContain('v1-read-only');
    expect(ran.stdout).toMatch(/reproduce: npx cetp-sim replay \S+versions-0\.replay\.json/);
    const replayed = npx(project, 'replay', join(out, 'versions-0.replay.json'));
    expectExit(replayed, 1, 'npx cetp-sim replay');
    expect(replayed.stdout).toContain('v1-read-only');
  });

  it('(a) rules --coverage from the package equals the checkout (spec data and the recorded test titles)', () => {
    const installed = expectExit(
      bin(project, 'rules', '--coverage', '--json'),
      0,
      'cetp-sim rules --coverage',
    );
    const checkout = expectExit(
      run('node', [join(REPO, 'bin', 'cetp-sim.js'), 'rules', '--coverage', '--json'], REPO),
      0,
      'cetp-sim rules --coverage in the checkout',
    );
    expect(installed.stdout).toBe(checkout.stdout);
  });

  it('(a) cetp-sim’s own code in two worker threads (compiled worker, no tsx) gives the one-thread verdicts', () => {
    const one = JSON.parse(oneThread().stdout) as { properties: unknown[] };
    const two = JSON.parse(
      expectExit(bin(project, ...FUZZ_ARGS, '--workers', '2'), 0, 'two workers').stdout,
    ) as {
      properties: unknown[];
    };
    const verdicts = (r: { properties: unknown[] }) =>
      r.properties.map((p) => {
        const { id, status, runs, exercised } = p as Record<string, unknown>;
        return { id, status, runs, exercised };
      });
    expect(verdicts(two)).toEqual(verdicts(one));
  });

  it('(b) a plain-JavaScript provider module fuzzes, and a planted bug reaches it', () => {
    const ran = expectExit(
      bin(
        project,
        'fuzz',
        '--provider',
        './my-alerts.provider.js',
        '--property',
        'versions',
        '--runs',
        '5',
        '--json',
      ),
      0,
      'cetp-sim fuzz --provider ./my-alerts.provider.js',
    );
    expect((JSON.parse(ran.stdout) as { passed: boolean }).passed).toBe(true);
    const broken = bin(
      project,
      'fuzz',
      '--provider',
      './my-alerts.provider.js',
      '--property',
      'versions',
      '--runs',
      '10',
      '--mutant',
      'v1-lists-write-tools',
      '--out',
      join(root, 'failures-b'),
    );
    expectExit(broken, 1, 'cetp-sim fuzz --provider ./my-alerts.provider.js --mutant');
    expect(broken.stdout).toContain('v1-read-only');
  });

  it('(c) a stock strict NodeNext TypeScript project typechecks against the exported types', () => {
    // One compiler run for both (tsconfig.wrong.json is tsconfig.json's provider plus wrong.ts; tsc
    // reports every error of the program): the provider has none, and the check can fail — a type
    // error against the package's declarations is reported, and it is the only one.
    const wrong = tsc('tsconfig.wrong.json');
    expect(wrong.status).not.toBe(0);
    const errors = wrong.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
    expect(errors.length, wrong.stdout).toBeGreaterThan(0);
    expect(
      errors.filter((line) => !line.startsWith('wrong.ts(')),
      wrong.stdout,
    ).toEqual([]);
    expect(wrong.stdout).toContain('TS2322');
  });

  it('(c) the TypeScript provider fuzzes through the installed CLI', () => {
    const ran = expectExit(
      bin(
        project,
        'fuzz',
        '--provider',
        './mine.provider.ts',
        '--property',
        'idempotency',
        // The wiring (the .ts module through the installed CLI's worker), not a hunt: 5 runs, as
        // test/pack-bin.test.ts runs it from the sources (20: ~0.5 s of CPU more).
        '--runs',
        '5',
        '--json',
      ),
      0,
      'cetp-sim fuzz --provider ./mine.provider.ts',
    );
    const report = JSON.parse(ran.stdout) as {
      passed: boolean;
      properties: { id: string; status: string }[];
    };
    expect(report.passed).toBe(true);
    expect(report.properties.map((p) => p.status)).toEqual(['passed']);
  });
});
