/**
 * SIGINT/SIGTERM during `mutants` and `ablate` (issue #32, item 6, beyond `fuzz`): the report of what
 * was finished so far is printed, marked interrupted, and the exit code is 130 / 143. The CLI runs in
 * a child process on two worker threads (so its own thread is free to answer the signal); the signal
 * is sent once the first result line is out (a marker, not a timing). Both commands also use the
 * CLI's own thread for jobs, and print their result lines only once that thread has taken its last
 * job: the signal then lands as the sweep ends, while the CLI closes its worker threads. So the hunt
 * is the whole sweep: `mutants` hunts every 4th planted bug (`--shard 1/4`), `ablate`
 * every 25th rule (`--shard 1/25`, 3 of 75) at 20 runs per job.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/root.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Runs the CLI; once stdout matches `marker`, sends `signal`. Resolves when the child closes. */
function interrupted(args: readonly string[], marker: RegExp, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin/cetp-sim.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  children.push(child);
  let out = '';
  let sent = false;
  child.stdout?.on('data', (d) => {
    out += d;
    if (!sent && marker.test(out)) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise<{ code: number | null; out: string; sent: boolean }>((resolve) => {
    child.on('close', (code) => resolve({ code, out, sent }));
  });
}

describe('an interrupted hunt prints what it found so far', () => {
  it('mutants, SIGINT: the planted bugs hunted so far, INTERRUPTED, exit 130', async () => {
    const ended = await interrupted(
      ['mutants', '--workers', '2', '--runs', '500', '--shard', '1/4'],
      /killed\s+\S+ by /,
      'SIGINT',
    );
    expect(ended.sent).toBe(true);
    expect(ended.code, ended.out).toBe(130);
    expect(ended.out).toMatch(/INTERRUPTED \(SIGINT\): [1-9]\d* of [1-9]\d* planted bug\(s\) hunted/);
    expect(ended.out).toMatch(/mutant\s+killed by/); // the table of those hunted so far
  }, 180_000);

  it('ablate, SIGTERM: the rules ablated so far, INTERRUPTED, exit 143', async () => {
    const ended = await interrupted(
      ['ablate', '--workers', '2', '--runs', '20', '--shard', '1/25'],
      /CETP-\S+ (caught by|not caught)/,
      'SIGTERM',
    );
    expect(ended.sent).toBe(true);
    expect(ended.code, ended.out).toBe(143);
    expect(ended.out).toMatch(/INTERRUPTED \(SIGTERM\): [1-9]\d* of \d+ rule\(s\) ablated/);
  }, 180_000);
});
