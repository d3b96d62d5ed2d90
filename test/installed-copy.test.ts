/**
 * Run from a checkout, the CLI's workers resolve `import … from 'cetp-sim'` with the
 * "cetp-sim-source" export condition, so that the checkout's own sources load (pack-bin.test.ts). A
 * user's project has its own *installed* copy, whose tarball has no src/: there the condition must not
 * send the import to a src/ that is not there (issue #32, item 7): the import resolves to the installed
 * copy's dist/. That copy is not the one the CLI runs, so the run is refused at load naming both copies
 * (issue #30: two copies of cetp-sim in one run change behaviour silently through `instanceof`), with
 * what to do — never "Cannot find module …/src/index.ts". The installed copy is simulated: the
 * package's real package.json and a dist/ that re-exports the checkout's sources.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("a user's project with cetp-sim installed (no src/ in the copy), run by a checkout's CLI", () => {
  it("the user's module resolves to the installed copy's dist/, and the run is refused naming both copies", () => {
    const project = mkdtempSync(join(tmpdir(), 'cetp-sim-user-project-'));
    made.push(project);
    const installed = join(project, 'node_modules', 'cetp-sim');
    mkdirSync(join(installed, 'dist', 'src'), { recursive: true });
    copyFileSync(join(REPO, 'package.json'), join(installed, 'package.json'));
    const sources = pathToFileURL(join(REPO, 'src', 'index.ts')).href;
    writeFileSync(join(installed, 'dist', 'src', 'index.js'), `export * from '${sources}';\n`);
    writeFileSync(join(project, 'package.json'), '{ "name": "user-project", "type": "module" }\n');
    copyFileSync(join(REPO, 'test', 'pack-fixtures', 'mine.provider.ts'), join(project, 'mine.provider.ts'));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.CETP_SIM_FROM;
    const ran = spawnSync(
      process.execPath,
      [
        join(REPO, 'bin', 'cetp-sim.js'),
        'fuzz',
        '--provider',
        './mine.provider.ts',
        '--property',
        'idempotency',
        '--runs',
        '3',
        '--workers',
        '1',
        '--out',
        join(project, 'replays'),
        '--json',
      ],
      { cwd: project, env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(ran.stderr).not.toContain('Cannot find module');
    expect(ran.status, ran.stdout + ran.stderr).toBe(2);
    const { error } = JSON.parse(ran.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('module_second_copy');
    expect(error.message).toContain(join('node_modules', 'cetp-sim', 'dist', 'src', 'index.js'));
    expect(error.message).toContain(join(REPO, 'src', 'index.ts'));
  });
});
