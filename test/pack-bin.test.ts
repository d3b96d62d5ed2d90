/**
 * Which code bin/cetp-sim.js runs: the TypeScript sources in a checkout (src/ beside bin/), the
 * compiled dist/ in an installed package (no src/), or what CETP_SIM_FROM says — so a test or a
 * developer in the repository never runs a dist/ built before the last edit. And, run from the
 * sources, a user module's `import … from 'cetp-sim'` loads those same sources in the worker
 * (the "cetp-sim-source" export condition), not dist/.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A package layout with the real bin/cetp-sim.js and stand-in mains that say which one ran. */
function layout(parts: { source: boolean; dist: boolean; installed?: boolean }): string {
  const root = mkdtempSync(join(tmpdir(), 'cetp-sim-bin-'));
  made.push(root);
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(REPO, 'bin', 'cetp-sim.js'), join(root, 'bin', 'cetp-sim.js'));
  if (parts.installed ?? true) symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  const main = (from: string) =>
    `export async function main(args${from === 'source' ? ': string[]' : ''}) {\n` +
    `  console.log(JSON.stringify({ from: '${from}', args }));\n  return 0;\n}\n`;
  if (parts.source) {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), main('source'));
  }
  if (parts.dist) {
    mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'src', 'cli', 'main.js'), main('dist'));
  }
  return root;
}

function bin(root: string, from?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CETP_SIM_FROM;
  if (from !== undefined) env.CETP_SIM_FROM = from;
  const ran = spawnSync(process.execPath, [join(root, 'bin', 'cetp-sim.js'), 'fuzz', '--runs', '1'], {
    env,
    encoding: 'utf8',
  });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

describe('bin/cetp-sim.js: sources in a checkout, dist/ when installed', () => {
  it('runs the sources when src/ is beside bin/, even with a dist/ built', () => {
    const ran = bin(layout({ source: true, dist: true }));
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ from: 'source', args: ['fuzz', '--runs', '1'] });
  });

  it('runs dist/ in an installed package (no src/)', () => {
    const ran = bin(layout({ source: false, dist: true }));
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ from: 'dist', args: ['fuzz', '--runs', '1'] });
  });

  it('CETP_SIM_FROM=dist runs a checkout’s dist/; CETP_SIM_FROM=source its sources', () => {
    const root = layout({ source: true, dist: true });
    expect(JSON.parse(bin(root, 'dist').stdout).from).toBe('dist');
    expect(JSON.parse(bin(root, 'source').stdout).from).toBe('source');
  });

  it('says what to do, exit 2, when dist/ is asked for and not built', () => {
    const ran = bin(layout({ source: true, dist: false }), 'dist');
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('npm run build');
    expect(ran.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('says what to do, exit 2, in a checkout whose dependencies were never installed', () => {
    const ran = bin(layout({ source: true, dist: false, installed: false }));
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/^cetp-sim: tsx is not installed in .*: run `npm ci` there first\.\n$/);
  });

  it('refuses an unknown CETP_SIM_FROM with exit 2', () => {
    const ran = bin(layout({ source: true, dist: true }), 'elsewhere');
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('CETP_SIM_FROM must be "dist" or "source"');
  });
});

describe('a user module importing cetp-sim by name, run from the sources', () => {
  it('gets the very modules the worker runs (one World class), not dist/', () => {
    const out = mkdtempSync(join(tmpdir(), 'cetp-sim-selfref-'));
    made.push(out);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.CETP_SIM_FROM;
    const ran = spawnSync(
      process.execPath,
      [
        join(REPO, 'bin', 'cetp-sim.js'),
        'fuzz',
        '--provider',
        join(REPO, 'test', 'pack-fixtures', 'mine.provider.ts'),
        '--property',
        'idempotency',
        '--runs',
        '5',
        '--out',
        out,
        '--json',
      ],
      { cwd: REPO, env, encoding: 'utf8' },
    );
    // mine.provider.ts throws from install() when the World it imports is not the worker's.
    expect(ran.stderr).not.toContain('two copies of cetp-sim');
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).passed).toBe(true);
  });
});
