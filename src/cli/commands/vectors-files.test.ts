/**
 * `vectors generate|verify|run` touch only what is theirs (issue #32, items 1 and 2): generate writes
 * only into an empty folder or one holding a corpus it generated, removes only the files that corpus's
 * manifest lists, and refuses anything else naming the first foreign file — the user's files survive;
 * reading a corpus stays inside its folder (no `..`, no absolute path, no symlink, regular files only,
 * bounded sizes), refused with exit 2 naming the file before anything is opened.
 * The hostile cases run the CLI in a child process with a timeout: on a reader that follows them, a
 * FIFO or /dev/zero would block the test's own thread.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import { main } from '../main.ts';
import { memoryIo, scratchEach } from '../testing.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

const temp = scratchEach('cetp-vfiles-');
function corpusCopy(): string {
  const dir = join(temp(), 'corpus');
  cpSync(DEFAULT_VECTORS_DIR, dir, { recursive: true });
  return dir;
}

async function cli(...argv: string[]) {
  const io = memoryIo();
  const code = await main(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

/** The CLI in a child process, killed after 60 s (a hang is a failure, not a stuck test run). */
function spawnCli(...argv: string[]) {
  const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'bin/cetp-sim.js'), ...argv], {
    encoding: 'utf8',
    timeout: Number(process.env.CETP_TEST_SPAWN_MS ?? 60_000),
    killSignal: 'SIGKILL',
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function editManifest(dir: string, change: (m: { files: { path: string }[] }) => void): void {
  const path = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  change(manifest);
  writeFileSync(path, JSON.stringify(manifest));
}

describe('vectors generate --out: only into an empty folder or a corpus it generated', () => {
  it("refuses a folder of the user's files, naming the first, and deletes none (the issue's reproduction)", async () => {
    const gv = join(temp(), 'gv');
    mkdirSync(join(gv, 'notes'), { recursive: true });
    mkdirSync(join(gv, 'src', 'sub'), { recursive: true });
    writeFileSync(join(gv, 'notes', 't.txt'), 'x\n');
    writeFileSync(join(gv, 'src', 'm.c'), 'y\n');
    const r = await cli('vectors', 'generate', '--out', gv);
    expect(r.code).toBe(2);
    expect(r.err).toContain('notes/t.txt');
    expect(readFileSync(join(gv, 'notes', 't.txt'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(gv, 'src', 'm.c'), 'utf8')).toBe('y\n');
    expect(existsSync(join(gv, 'manifest.json'))).toBe(false);
  });

  it('writes into an empty folder, then regenerates over its own corpus', async () => {
    const out = join(temp(), 'fresh');
    mkdirSync(out);
    expect((await cli('vectors', 'generate', '--out', out)).code).toBe(0);
    expect((await cli('vectors', 'verify', '--dir', out)).code).toBe(0);
    expect((await cli('vectors', 'generate', '--out', out)).code).toBe(0);
    expect((await cli('vectors', 'generate', '--out', join(temp(), 'not-yet'))).code).toBe(0);
  });

  it('over its own corpus: removes only files the manifest lists; a foreign file is refused and kept', async () => {
    const dir = corpusCopy();
    // A stale file the old manifest lists goes; README.md and baselines/ are the corpus's own.
    editManifest(dir, (m) => {
      m.files.push({ ...(m.files[0] as { path: string }), path: 'envelope/old.json' });
    });
    writeFileSync(join(dir, 'envelope', 'old.json'), '{}');
    expect((await cli('vectors', 'generate', '--out', dir)).code).toBe(0);
    expect(existsSync(join(dir, 'envelope', 'old.json'))).toBe(false);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    expect(existsSync(join(dir, 'baselines', 'example.baseline.json'))).toBe(true);
    // A file no manifest lists, nested: refused, named, kept.
    mkdirSync(join(dir, 'envelope', 'drafts'));
    writeFileSync(join(dir, 'envelope', 'drafts', 'mine.json'), 'draft');
    const r = await cli('vectors', 'generate', '--out', dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('envelope/drafts/mine.json');
    expect(readFileSync(join(dir, 'envelope', 'drafts', 'mine.json'), 'utf8')).toBe('draft');
  });

  it("a manifest listing a path outside the folder deletes nothing there: exit 2 naming the manifest's field", async () => {
    const dir = corpusCopy();
    const victim = join(dir, '..', 'victim.txt');
    writeFileSync(victim, 'keep');
    editManifest(dir, (m) => {
      m.files.push({ ...(m.files[0] as { path: string }), path: '../victim.txt' });
    });
    const r = await cli('vectors', 'generate', '--out', dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/manifest\.json: \$\.files\[\d+\]\.path/);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });

  it('a baselines/*.json that is not JSON: exit 2 naming the file and why, not exit 3', async () => {
    const dir = corpusCopy();
    writeFileSync(join(dir, 'baselines', 'broken.json'), 'not json');
    const r = await cli('vectors', 'generate', '--out', dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('broken.json');
    expect(r.err).toContain('not JSON');
  });
});

describe('vectors export --adb: only into an empty folder or an earlier export', () => {
  it("re-exports over its own scripts; a folder with the user's files is refused and kept", async () => {
    const adb = join(temp(), 'adb');
    expect((await cli('vectors', 'export', '--adb', adb)).code).toBe(0);
    expect(existsSync(join(adb, 'NOT-EXPORTED.md'))).toBe(true);
    expect((await cli('vectors', 'export', '--adb', adb)).code).toBe(0);
    mkdirSync(join(adb, 'notes'));
    writeFileSync(join(adb, 'notes', 'keep.txt'), 'mine');
    const r = await cli('vectors', 'export', '--adb', adb);
    expect(r.code).toBe(2);
    expect(r.err).toContain(join(adb, 'notes'));
    expect(readFileSync(join(adb, 'notes', 'keep.txt'), 'utf8')).toBe('mine');
  });
});

describe('reading a corpus stays inside its folder', () => {
  it("a manifest path '../../etc/passwd' is refused by name and never read", async () => {
    const dir = corpusCopy();
    editManifest(dir, (m) => {
      (m.files[0] as { path: string }).path = '../../../../../../../../etc/passwd';
    });
    const r = await cli('vectors', 'verify', '--dir', dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/manifest\.json: \$\.files\[0\]\.path: .*outside the corpus folder/);
    expect(r.err).not.toContain('root:');
    expect(r.err).not.toMatch(/SHA-256 [0-9a-f]{64}/);
  });

  it('an absolute manifest path is refused by name', async () => {
    const dir = corpusCopy();
    editManifest(dir, (m) => {
      (m.files[0] as { path: string }).path = '/dev/zero';
    });
    const r = spawnCli('vectors', 'verify', '--dir', dir);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/manifest\.json: \$\.files\[0\]\.path: .*absolute/);
  });

  it('a vector file that is a symlink (to /dev/zero) is refused by name, not followed', () => {
    const dir = corpusCopy();
    rmSync(join(dir, 'envelope', 'envelope.json'));
    symlinkSync('/dev/zero', join(dir, 'envelope', 'envelope.json'));
    const r = spawnCli('vectors', 'verify', '--dir', dir);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err).toContain('envelope/envelope.json');
    expect(r.err).toContain('symbolic link');
  });

  it('a blob that is a FIFO is refused by name, not opened (it would block)', () => {
    const dir = corpusCopy();
    const blobs = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).blobs as { sha256: string }[];
    const blob = join(dir, 'blobs', (blobs[0] as { sha256: string }).sha256);
    rmSync(blob);
    expect(spawnSync('mkfifo', [blob]).status).toBe(0);
    for (const command of ['verify', 'run']) {
      const r = spawnCli('vectors', command, '--dir', dir, ...(command === 'run' ? ['--workers', '1'] : []));
      expect(r.signal).toBeNull();
      expect(r.code).toBe(2);
      expect(r.err).toContain(`blobs/${(blobs[0] as { sha256: string }).sha256}`);
      expect(r.err).toContain('not a regular file');
    }
  });

  it('a vector file larger than the bound is refused by name before it is read', async () => {
    const dir = corpusCopy();
    truncateSync(join(dir, 'envelope', 'envelope.json'), 64 * 1024 * 1024);
    const r = await cli('vectors', 'verify', '--dir', dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/envelope\/envelope\.json: \$: .*larger than/);
  });

  it('--baseline that is a FIFO is refused by name', () => {
    const fifo = join(temp(), 'baseline.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = spawnCli('vectors', 'run', '--baseline', fifo, '--id', 'env-success', '--workers', '1');
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err).toContain('not a regular file');
  });
});
