/**
 * Output paths are checked before the work starts (issue #32, item 5): an unwritable --out, --junit,
 * --ctrf or --adb, a special file (/dev/null, a FIFO) or a special file system (/proc) is exit 2 at
 * once with the OS's reason, and nothing runs; a read-only folder says EACCES, not ENOENT. The CLI runs
 * in a child process with a timeout: under /proc, Node's recursive mkdir never returns. A read-only
 * folder needs a user who is not root: as root the CLI is run as `nobody` (setpriv).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/root.ts';
import { tempDir } from './testing.ts';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = tempDir('cetp-outputs-');
  temps.push(dir);
  return dir;
}

const CLI = join(PACKAGE_ROOT, 'bin/cetp-sim.js');
const asRoot = process.getuid?.() === 0;

function spawnCli(argv: readonly string[], options: { asNobody?: boolean; cwd?: string } = {}) {
  const nobody = options.asNobody && asRoot;
  const command = nobody ? 'setpriv' : process.execPath;
  const args = nobody
    ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, ...argv]
    : [CLI, ...argv];
  const r = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: Number(process.env.CETP_TEST_SPAWN_MS ?? 60_000),
    killSignal: 'SIGKILL',
    cwd: options.cwd ?? tmpdir(),
    env: { ...process.env, HOME: options.cwd ?? tmpdir(), NO_COLOR: '1' },
  });
  return { code: r.status, signal: r.signal, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** A quick campaign that fails (so it writes a replay file), on the CLI's thread. */
const FAILING = ['fuzz', '--mutant', 'v1-lists-write-tools', '--property', 'versions', '--workers', '1'];

function refusedAtOnce(r: ReturnType<typeof spawnCli>, flag: string, why: RegExp): void {
  expect(r.signal).toBeNull();
  expect(r.code).toBe(2);
  expect(r.err).toContain(`output_unwritable: ${flag} `);
  expect(r.err).toMatch(why);
  // Nothing ran: no campaign header, no property line.
  expect(r.out).not.toContain('cetp-sim fuzz:');
  expect(r.out).not.toContain('versions');
}

describe('output paths are checked before anything runs', () => {
  it('fuzz --out under /proc: exit 2 at once (not a hang)', () => {
    refusedAtOnce(spawnCli([...FAILING, '--out', '/proc/x']), '--out', /procfs, a special file system/);
  });

  it('fuzz --junit to a device: exit 2 at once', () => {
    const dir = temp();
    refusedAtOnce(
      spawnCli([...FAILING, '--out', dir, '--junit', '/dev/null']),
      '--junit',
      /a device, not a regular file/,
    );
  });

  it('fuzz --junit to a directory: EISDIR at once', () => {
    const dir = temp();
    refusedAtOnce(spawnCli([...FAILING, '--out', dir, '--junit', dir]), '--junit', /EISDIR/);
  });

  it('fuzz --out under a regular file: ENOTDIR at once', () => {
    const dir = temp();
    refusedAtOnce(spawnCli([...FAILING, '--out', join(CLI, 'replays')]), '--out', /ENOTDIR/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fuzz --out and --junit in a read-only folder: EACCES (not ENOENT), at once; nothing left behind', () => {
    const home = temp();
    chmodSync(home, 0o777);
    const ro = join(home, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    const out = spawnCli([...FAILING, '--out', join(ro, 'replays')], { asNobody: true, cwd: home });
    refusedAtOnce(out, '--out', /EACCES/);
    expect(out.err).not.toContain('ENOENT');
    const junit = spawnCli([...FAILING, '--out', join(home, 'w'), '--junit', join(ro, 'deep', 'r.xml')], {
      asNobody: true,
      cwd: home,
    });
    refusedAtOnce(junit, '--junit', /EACCES/);
    chmodSync(ro, 0o755);
    expect(readdirSync(ro)).toEqual([]);
  });

  it('a writable --out that does not exist yet is fine, and not created unless something is written', () => {
    const dir = join(temp(), 'a', 'b');
    const r = spawnCli(['fuzz', '--property', 'versions', '--runs', '2', '--workers', '1', '--out', dir]);
    expect(r.code).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('crashpoints --out, vectors run --junit/--ctrf, vectors generate --out, vectors export --adb: the same', () => {
    const dir = temp();
    const cases: [string[], string][] = [
      [['crashpoints', '--flow', 'sync-write', '--workers', '1', '--out', '/proc/x'], '--out'],
      [['vectors', 'run', '--id', 'env-success', '--workers', '1', '--junit', '/proc/x/r.xml'], '--junit'],
      [['vectors', 'run', '--id', 'env-success', '--workers', '1', '--ctrf', '/dev/zero'], '--ctrf'],
      [['vectors', 'generate', '--out', '/proc/x'], '--out'],
      [['vectors', 'export', '--adb', '/proc/x'], '--adb'],
    ];
    for (const [argv, flag] of cases) {
      const r = spawnCli(argv, { cwd: dir });
      expect(r.signal, argv.join(' ')).toBeNull();
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toContain(`output_unwritable: ${flag} `);
    }
  });
});
