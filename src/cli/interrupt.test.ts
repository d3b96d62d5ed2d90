/**
 * SIGINT/SIGTERM during `fuzz` (issue #32, item 6): the campaign stops, the report so far is printed
 * (text and --json, marked interrupted), every replay file already written is kept, and the exit code
 * is 130 / 143. The CLI runs in a child process; the signal is sent once the first failure's replay
 * file exists (a marker, not a timing), while the next property is still fuzzing out its time share.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/root.ts';
import { tempDir } from './testing.ts';

const temps: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  // A campaign that did not stop on the signal must not outlive its test.
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Starts a campaign whose first property fails at once and whose second fuzzes for a long while. */
function campaign(out: string, extra: readonly string[]): { child: ChildProcess; ended: Promise<Ended> } {
  const child = spawn(
    process.execPath,
    [
      join(PACKAGE_ROOT, 'bin/cetp-sim.js'),
      'fuzz',
      '--mutant',
      'v1-lists-write-tools',
      '--property',
      'versions',
      'malformed',
      '--time',
      '600',
      '--workers',
      '1',
      '--out',
      out,
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const ended = new Promise<Ended>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, out: stdout, err: stderr }));
  });
  children.push(child);
  return { child, ended };
}

/** Waits (polling) until `path` exists or the child ended; never asserts on how long it took. */
async function waitFor(path: string, ended: Promise<Ended>): Promise<void> {
  let over = false;
  void ended.then(() => {
    over = true;
  });
  while (!existsSync(path) && !over) await new Promise((r) => setTimeout(r, 100));
}

describe('an interrupted campaign keeps its work', () => {
  it('SIGINT with --json: one JSON object marked interrupted, the failure so far with its replay file, exit 130', async () => {
    const out = tempDir('cetp-sim-sigint-');
    temps.push(out);
    const replay = join(out, 'versions-0.replay.json');
    const { child, ended } = campaign(out, ['--json']);
    await waitFor(replay, ended);
    child.kill('SIGINT');
    const r = await ended;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0] ?? '{}');
    expect(report).toMatchObject({ passed: false, interrupted: 'SIGINT' });
    expect(report.properties[0]).toMatchObject({ id: 'versions', status: 'failed', replayFile: replay });
    expect(report.properties.map((p: { id: string }) => p.id)).not.toContain('malformed');
    expect(JSON.parse(readFileSync(replay, 'utf8')).property).toBe('versions');
  }, 120_000);

  it('SIGTERM in text: the report so far, the failure and its replay command, INTERRUPTED, exit 143', async () => {
    const out = tempDir('cetp-sim-sigterm-');
    temps.push(out);
    const replay = join(out, 'versions-0.replay.json');
    const { child, ended } = campaign(out, []);
    await waitFor(replay, ended);
    child.kill('SIGTERM');
    const r = await ended;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(143);
    expect(r.out).toContain('FAILED versions');
    expect(r.out).toContain(`npx cetp-sim replay ${replay}`);
    expect(r.out).toMatch(/INTERRUPTED \(SIGTERM\)/);
    expect(existsSync(replay)).toBe(true);
  }, 120_000);
});
