/**
 * The vitest entry as a user meets it (issue 17): test/harness-project/ is a small project with its
 * own vitest config and test files written the way a user writes them (`import { describeProvider }
 * from 'cetp-sim/vitest'`, a provider module built on the public API only). Its vitest runs here as a
 * child process, as it runs in the user's CI: against the provider as shipped it passes; against the
 * same provider with a bug it fails, and the failure names the checker, the rule ids, the evidence,
 * the replay file and the exact `npx cetp-sim replay …` command — which, run, reproduces it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROJECT = join(ROOT, 'test', 'harness-project');
const FAILURES = join(PROJECT, '.cetp-sim');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CLI = join(ROOT, 'bin', 'cetp-sim.js');

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** The printed replay command, run as printed (the bin stands for `npx cetp-sim`). */
function cli(command: string) {
  const args = command.split(' ').slice(2);
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: PROJECT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, stdout: plain(r.stdout), output: plain(`${r.stdout}${r.stderr}`) };
}

interface FileRun {
  /** The exit code `npx vitest run FILE` gives for this file alone: 1 if any of its tests or suites failed. */
  readonly status: number;
  readonly tests: { readonly passed: number; readonly failed: number; readonly skipped: number };
  /** The reporter's lines about this file: its tests, their errors, its entries under "Failed …". */
  readonly output: string;
}

/** A verbose reporter line that begins a file's part: a test's result or a `FAIL` entry. */
const HEAD = /^\s*(?:[✓×↓]|FAIL)\s+(\S+\.fuzz\.ts)(?:\s|$)/u;

/** The lines of the reporter's `output` that belong to `file` (from its heads to the next head or rule). */
function partOf(output: string, file: string): string {
  let owner: string | undefined;
  const lines: string[] = [];
  for (const line of output.split('\n')) {
    const head = HEAD.exec(line);
    if (head) owner = head[1];
    else if (/^\s*⎯|^\s*(Test Files|Tests) /u.test(line)) owner = undefined;
    if (owner === file) lines.push(line);
  }
  return lines.join('\n');
}

interface JsonReport {
  testResults: { name: string; status: string; assertionResults: { status: string }[] }[];
}

/**
 * The project's vitest on several test files in one child process, in the project's directory, as
 * `npx vitest run --no-isolate FILE…` (one child and one vite for them all; `--no-isolate`, a user's
 * own choice of vitest's, runs the files one after the other in one worker that imports cetp-sim
 * once — isolated, each file's worker imported it afresh: 15.4 → 9.1 s of CPU for the seven files,
 * the same results): the verbose reporter's output, split by file, and each file's verdict from the
 * JSON reporter beside it.
 */
function vitest(...files: string[]) {
  const json = join(FAILURES, `report-${basename(files[0] ?? 'none')}.json`);
  const r = spawnSync(
    process.execPath,
    [
      VITEST,
      'run',
      '--no-isolate',
      // The transformed modules cached on disk (under .cetp-sim/, removed after the file): the
      // second child run (the pasted replays) reads cetp-sim's transforms from the first's.
      '--experimental.fsModuleCache',
      `--experimental.fsModuleCachePath=${join(FAILURES, 'vitest-cache')}`,
      '--reporter=verbose',
      '--reporter=json',
      `--outputFile.json=${json}`,
      '--config',
      'vitest.config.ts',
      ...files,
    ],
    {
      cwd: PROJECT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
    },
  );
  const output = plain(`${r.stdout}${r.stderr}`);
  if (!existsSync(json)) throw new Error(`vitest wrote no JSON report (exit ${r.status}):\n${output}`);
  const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
  const byFile = new Map<string, FileRun>();
  for (const file of files) {
    const result = report.testResults.find((t) => t.name === join(PROJECT, file));
    if (!result) throw new Error(`no result for ${file}:\n${output}`);
    const count = (status: string) => result.assertionResults.filter((a) => a.status === status).length;
    byFile.set(file, {
      status: result.status === 'failed' || count('failed') > 0 ? 1 : 0,
      tests: {
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped') + count('pending'),
      },
      output: partOf(output, file),
    });
  }
  return { status: r.status, output, file: (f: string) => byFile.get(f) ?? expect.unreachable(f) };
}

/** The seven project files, run together once (the first test to ask pays for it). */
const PROJECT_FILES = [
  'quotes.fuzz.ts',
  'broken.fuzz.ts',
  'mutant.fuzz.ts',
  'bad-fixture.fuzz.ts',
  'skipped.fuzz.ts',
  'agent.fuzz.ts',
  'agent-bug.fuzz.ts',
];
let projectRun: ReturnType<typeof vitest> | undefined;
const project = (file: string) => {
  projectRun ??= vitest(...PROJECT_FILES);
  return projectRun.file(file);
};
/** Long enough for the one child run of seven files on a loaded host. */
const LONG = 300_000;

beforeAll(() => rmSync(FAILURES, { recursive: true, force: true }));
afterAll(() => rmSync(FAILURES, { recursive: true, force: true }));

describe('a user project fuzzing its provider with cetp-sim/vitest (issue 17)', () => {
  it(
    'the seven files in one vitest run: its summary and exit code',
    () => {
      project('quotes.fuzz.ts');
      const r = projectRun ?? expect.unreachable();
      expect(r.output).toMatch(/Test Files\s+4 failed \| 2 passed \| 1 skipped \(7\)/);
      expect(r.output).toMatch(/Tests\s+3 failed \| 4 passed \| 4 skipped \(11\)/);
      expect(r.status, r.output).toBe(1);
    },
    LONG,
  );

  it(
    'passes against the provider as shipped: one vitest test per property, each green',
    () => {
      const r = project('quotes.fuzz.ts');
      expect(r.output).toMatch(/✓ .*idempotency \(CETP-9-05\)/);
      expect(r.output).toMatch(/✓ .*malformed \(CETP-9-03\)/);
      expect(r.tests).toEqual({ passed: 2, failed: 0, skipped: 0 });
      expect(r.status, r.output).toBe(0);
    },
    LONG,
  );

  it(
    'fails against the provider with a bug, with checker, rule ids, evidence, replay file and command',
    () => {
      const r = project('broken.fuzz.ts');
      expect(r.status, r.output).toBe(1);
      expect(r.tests).toEqual({ passed: 1, failed: 1, skipped: 0 });
      expect(r.output).toContain(
        'FAIL  broken.fuzz.ts > cetp-sim: provider quotes > idempotency (CETP-9-05)',
      );
      expect(r.output).toContain('PropertyFailure: cetp-sim property idempotency failed');
      // The checker that caught it, with its class and rule ids, the message and the evidence.
      expect(r.output).toMatch(/✗ args-binding \(correctness; rules CETP-6-03 CETP-6-04 CETP-4\.3-14\)/);
      expect(r.output).toMatch(/bound to create_alert, was answered (accepted|success) for other tool\/args/);
      expect(r.output).toMatch(/evidence: (trace events #\d+|calls #\d+)/);
      const file = join(FAILURES, 'failures', 'idempotency-0.replay.json');
      expect(r.output).toContain(`replay file: ${file}`);
      const command =
        'npx cetp-sim replay .cetp-sim/failures/idempotency-0.replay.json --provider ./broken.provider.ts';
      expect(r.output).toContain(`reproduce: ${command}`);
      expect(r.output).toContain('minimal trace:');
      expect(existsSync(file)).toBe(true);
      const replayFile = JSON.parse(readFileSync(file, 'utf8')) as { modules?: unknown; property: string };
      expect(replayFile).toMatchObject({
        property: 'idempotency',
        modules: { provider: './broken.provider.ts' },
      });

      // The printed command, run as printed: the failure comes back, with the recorded trace.
      const replay = cli(command);
      expect(replay.stdout).toContain('still fails: 1 violation(s)');
      expect(replay.stdout).toContain('args-binding');
      expect(replay.output).not.toMatch(/DETERMINISM BREAK|differs from the recorded/);
      expect(replay.status, replay.output).toBe(1);

      // Pasted back into a test file (`{ replay: FILE }`): one test re-running that scenario — still
      // failing against the buggy provider, passing against the provider as shipped.
      // Both pasted files run in one vitest run, each judged on its own.
      mkdirSync(join(FAILURES, 'pasted'), { recursive: true });
      const cases = [
        ['broken', '../../broken.provider.ts', 1],
        ['quotes', '../../quotes.provider.ts', 0],
      ] as const;
      for (const [name, module] of cases) {
        writeFileSync(
          join(FAILURES, 'pasted', `${name}.fuzz.ts`),
          `import { describeProvider } from 'cetp-sim/vitest';\nimport { providers } from '${module}';\n` +
            `describeProvider(providers, { replay: ${JSON.stringify(file)} });\n`,
        );
      }
      const both = vitest(...cases.map(([name]) => `.cetp-sim/pasted/${name}.fuzz.ts`));
      expect(both.status, both.output).toBe(1);
      for (const [name, , expected] of cases) {
        const pasted = both.file(`.cetp-sim/pasted/${name}.fuzz.ts`);
        expect(pasted.output).toContain(`replays ${file}`);
        if (expected === 1) expect(pasted.output).toContain('property idempotency still fails');
        else expect(pasted.output).not.toContain('still fails');
        expect(pasted.status, pasted.output).toBe(expected);
      }
    },
    LONG,
  );

  it(
    'a spec author: the reference with a planted bug fails, and the printed command needs no module',
    () => {
      const r = project('mutant.fuzz.ts');
      expect(r.status, r.output).toBe(1);
      expect(r.output).toContain(
        'cetp-sim: the reference implementations with dedup-ignores-args > idempotency',
      );
      expect(r.output).toMatch(/✗ args-binding \(correctness; rules CETP-6-03 CETP-6-04 CETP-4\.3-14\)/);
      const command = 'npx cetp-sim replay .cetp-sim/failures/idempotency-1.replay.json';
      expect(r.output).toContain(`reproduce: ${command}\n`);
      expect(r.output).not.toContain('re-run in this test file'); // describeReference takes no { replay }
      expect(r.output).not.toContain('no --provider');
      const replay = cli(command);
      expect(replay.stdout).toContain('args-binding');
      expect(replay.status, replay.output).toBe(1);
    },
    LONG,
  );

  it(
    'a malformed fixture fails its block once, with a message naming the field and no stack into cetp-sim',
    () => {
      const r = project('bad-fixture.fuzz.ts');
      expect(r.status, r.output).toBe(1);
      expect(r.output).toContain(
        'CliError: describeProvider: providers[0].tools must map at least one tool name to its args pool',
      );
      expect(r.tests).toEqual({ passed: 0, failed: 0, skipped: 2 });
      expect(r.output).not.toMatch(/❯ .*src\/harness\//);
      expect(projectRun?.output).not.toMatch(/❯ .*src\/harness\//);
    },
    LONG,
  );

  it(
    'offers .skip as vitest does: the tests are registered, and skipped',
    () => {
      const r = project('skipped.fuzz.ts');
      expect(r.output).toMatch(/↓ skipped\.fuzz\.ts > .*idempotency/);
      expect(r.tests).toEqual({ passed: 0, failed: 0, skipped: 2 });
      expect(r.status, r.output).toBe(0);
    },
    LONG,
  );

  it(
    'a consumer: passes as shipped, fails with a planted bug and a --consumer replay command that reproduces',
    () => {
      const good = project('agent.fuzz.ts');
      expect(good.output).toMatch(/✓ .*consumer-versions \(CETP-9-02\)/);
      expect(good.status, good.output).toBe(0);
      const bad = project('agent-bug.fuzz.ts');
      expect(bad.status, bad.output).toBe(1);
      expect(bad.output).toMatch(/✗ consumer-no-downgrade \(correctness; rules CETP-8-03 [^)]*\)/);
      const command =
        'npx cetp-sim replay .cetp-sim/failures/consumer-versions-0.replay.json --consumer ./agent.consumer.ts';
      expect(bad.output).toContain(`reproduce: ${command}`);
      const replay = cli(command);
      expect(replay.stdout).toContain('consumer-no-downgrade');
      expect(replay.status, replay.output).toBe(1);
    },
    LONG,
  );
});
