/**
 * A job on the CLI's own thread is watched too (cli-watchdog.ts): one that never finishes ends
 * `hung` — or, if it holds the thread in a synchronous loop, the process ends with exit code 3 and
 * says so — instead of hanging the CLI. Outcomes are asserted, not times.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CliThreadWatchdog } from './cli-watchdog.ts';

const MODULE = fileURLToPath(new URL('./cli-watchdog.ts', import.meta.url));

/** A fresh node process (through tsx) that runs `body` with `watchdog` in scope. */
function child(body: string) {
  const script = `import { CliThreadWatchdog } from ${JSON.stringify(MODULE)};
const watchdog = new CliThreadWatchdog();
${body}`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('the watchdog of the CLI thread', () => {
  it('passes a job that finishes through, with its value', async () => {
    const watchdog = new CliThreadWatchdog();
    const ended = await watchdog.watch('test', { budgetMs: 60_000, startupMs: 60_000 }, async (beat) => {
      beat(1);
      return 42;
    });
    expect(ended).toEqual({ value: 42 });
  });

  it('ends a job that awaits forever (the event loop still turning) hung, naming its last run', async () => {
    const watchdog = new CliThreadWatchdog();
    const alive = setInterval(() => {}, 50);
    try {
      const ended = await watchdog.watch('test', { budgetMs: 300, startupMs: 300 }, (beat) => {
        beat(1);
        beat(2);
        return new Promise<never>(() => {});
      });
      expect(ended).toEqual({
        hung: { run: 1, reason: "it did not finish within the watchdog's 0.3 s of wall time" },
      });
    } finally {
      clearInterval(alive);
    }
  });

  it('stops a synchronous loop on the CLI thread: exit code 3 and the error on stderr', () => {
    const result = child(`
await watchdog.watch('mutant', { budgetMs: 300, startupMs: 300 }, async (beat) => { beat(1); for (;;) {} });
console.log('never');`);
    expect(result.status).toBe(3);
    expect(result.stdout).not.toContain('never');
    expect(result.stderr).toContain('error job_hung');
  });

  it('names a job whose promise can never settle when nothing else is left to run: exit code 3', () => {
    const result = child(`
await watchdog.watch('ablate', { budgetMs: 60000, startupMs: 60000 }, () => new Promise(() => {}));
console.log('never');`);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('error job_hung: the ablate job');
  });
});
