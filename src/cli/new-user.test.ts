/**
 * What a new user meets first (issue #32, item 7): the `reproduce:` line of a failure names the
 * --provider/--consumer the campaign ran with (a replay file never loads code by itself, so without
 * them the line fails with exit 2); `cetp-sim vectors` without a subcommand is a usage error (exit 2)
 * that shows the subcommands; `fuzz --help` lists every exit code, 3 included; the tarball ships the
 * script its `prepare` runs.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/root.ts';
import { printFailure } from './failure-report.ts';
import { main } from './main.ts';
import { memoryIo } from './testing.ts';

async function cli(...argv: string[]) {
  const io = memoryIo();
  const code = await main(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('a new user', () => {
  it('the reproduce line carries the --provider and --consumer the run used', () => {
    const io = memoryIo();
    printFailure(io, {
      property: 'idempotency',
      title: 't',
      rules: [],
      violations: [],
      events: [],
      runsToFailure: 1,
      shrinks: 0,
      replayFile: 'out/idempotency-0.replay.json',
      modules: { provider: './my provider.ts', consumer: './agent.ts' },
    });
    const line = io.stdout.find((l) => l.includes('reproduce:'));
    expect(line).toContain(
      'npx cetp-sim replay out/idempotency-0.replay.json --provider "./my provider.ts" --consumer ./agent.ts',
    );
  });

  it('`vectors` without a subcommand: exit 2, with its subcommands listed', async () => {
    const r = await cli('vectors');
    expect(r.code).toBe(2);
    expect(`${r.out}\n${r.err}`).toMatch(/generate[\s\S]*verify[\s\S]*run[\s\S]*export/);
  });

  it('`fuzz --help` lists exit code 3', async () => {
    const r = await cli('fuzz', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Exit codes:[\s\S]*\b3 an internal error/);
  });

  it('the tarball ships the script `prepare` runs', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
    });
    expect(packed.status, packed.stderr).toBe(0);
    const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path);
    for (const script of ['prepare', 'install', 'postinstall', 'preinstall']) {
      const command = manifest.scripts[script];
      if (command === undefined) continue;
      for (const file of command.match(/[\w./-]+\.(?:mjs|cjs|js|sh)\b/g) ?? [])
        expect(files, `${script}: ${command}`).toContain(file);
    }
  });
});
