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
import { join } from 'node:path';
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

/** The project's vitest on one test file, in the project's directory, as `npx vitest run FILE`. */
function vitest(file: string) {
  const r = spawnSync(
    process.execPath,
    [VITEST, 'run', '--reporter=verbose', '--config', 'vitest.config.ts', file],
    {
      cwd: PROJECT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
    },
  );
  return { status: r.status, output: plain(`${r.stdout}${r.stderr}`) };
}

beforeAll(() => rmSync(FAILURES, { recursive: true, force: true }));
afterAll(() => rmSync(FAILURES, { recursive: true, force: true }));

describe('a user project fuzzing its provider with cetp-sim/vitest (issue 17)', () => {
  it('passes against the provider as shipped: one vitest test per property, each green', () => {
    const r = vitest('quotes.fuzz.ts');
    expect(r.output).toMatch(/✓ .*idempotency \(CETP-9-05\)/);
    expect(r.output).toMatch(/✓ .*malformed \(CETP-9-03\)/);
    expect(r.output).toMatch(/Tests\s+2 passed \(2\)/);
    expect(r.status, r.output).toBe(0);
  });

  it('fails against the provider with a bug, with checker, rule ids, evidence, replay file and command', () => {
    const r = vitest('broken.fuzz.ts');
    expect(r.status, r.output).toBe(1);
    expect(r.output).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/);
    expect(r.output).toContain('FAIL  broken.fuzz.ts > cetp-sim: provider quotes > idempotency (CETP-9-05)');
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
    mkdirSync(join(FAILURES, 'pasted'), { recursive: true });
    for (const [name, module, expected] of [
      ['broken', '../../broken.provider.ts', 1],
      ['quotes', '../../quotes.provider.ts', 0],
    ] as const) {
      writeFileSync(
        join(FAILURES, 'pasted', `${name}.fuzz.ts`),
        `import { describeProvider } from 'cetp-sim/vitest';\nimport { providers } from '${module}';\n` +
          `describeProvider(providers, { replay: ${JSON.stringify(file)} });\n`,
      );
      const pasted = vitest(`.cetp-sim/pasted/${name}.fuzz.ts`);
      expect(pasted.output).toContain(`replays ${file}`);
      if (expected === 1) expect(pasted.output).toContain('property idempotency still fails');
      expect(pasted.status, pasted.output).toBe(expected);
    }
  });

  it('a spec author: the reference with a planted bug fails, and the printed command needs no module', () => {
    const r = vitest('mutant.fuzz.ts');
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
  });

  it('a malformed fixture fails its block once, with a message naming the field and no stack into cetp-sim', () => {
    const r = vitest('bad-fixture.fuzz.ts');
    expect(r.status, r.output).toBe(1);
    expect(r.output).toContain(
      'CliError: describeProvider: providers[0].tools must map at least one tool name to its args pool',
    );
    expect(r.output).toMatch(/Tests\s+2 skipped \(2\)/);
    expect(r.output).not.toMatch(/❯ .*src\/harness\//);
  });

  it('offers .skip as vitest does: the tests are registered, and skipped', () => {
    const r = vitest('skipped.fuzz.ts');
    expect(r.output).toMatch(/Tests\s+2 skipped \(2\)/);
    expect(r.status, r.output).toBe(0);
  });

  it('a consumer: passes as shipped, fails with a planted bug and a --consumer replay command that reproduces', () => {
    const good = vitest('agent.fuzz.ts');
    expect(good.output).toMatch(/✓ .*consumer-versions \(CETP-9-02\)/);
    expect(good.status, good.output).toBe(0);
    const bad = vitest('agent-bug.fuzz.ts');
    expect(bad.status, bad.output).toBe(1);
    expect(bad.output).toMatch(/✗ consumer-no-downgrade \(correctness; rules CETP-8-03 [^)]*\)/);
    const command =
      'npx cetp-sim replay .cetp-sim/failures/consumer-versions-0.replay.json --consumer ./agent.consumer.ts';
    expect(bad.output).toContain(`reproduce: ${command}`);
    const replay = cli(command);
    expect(replay.stdout).toContain('consumer-no-downgrade');
    expect(replay.status, replay.output).toBe(1);
  });
});
