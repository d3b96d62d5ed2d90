import { Writable } from 'node:stream';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { REFERENCE } from '../fuzz/scenario/model.ts';
import { selectProperties } from '../harness/selection.ts';
import { runCampaign, tailsOf } from './campaign.ts';
import type { Io } from './io.ts';
import { type ProgressOptions, progressStatus, startProgress } from './progress.ts';
import { tempDir } from './testing.ts';

const FUZZ: ProgressOptions = {
  json: false,
  noun: 'fuzz',
  units: 'properties',
  failure: 'failed',
  countsRuns: true,
};

/** A terminal stand-in: what the bar draws, escape codes removed. */
class FakeTerminal extends Writable {
  readonly isTTY = true;
  readonly columns = 200;
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping the bar's ANSI escape codes
    this.text += chunk.toString().replace(/\x1B(?:\[[0-9;?]*[A-Za-z]|[78])/g, '');
    done();
  }
}

function io(terminal?: FakeTerminal): Io & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    out: (line) => lines.push(line),
    err: (line) => lines.push(`ERR ${line}`),
    isTty: false,
    color: pc.createColors(false),
    ...(terminal ? { progressStream: terminal as unknown as NodeJS.WriteStream } : {}),
  };
}

describe('progress: the bar’s status', () => {
  it('shows runs done, failures so far and what runs now', () => {
    expect(progressStatus({ runsDone: 1234, failures: 1, running: ['idempotency'] }, FUZZ)).toBe(
      '1,234 runs · 1 failed · now idempotency',
    );
    expect(progressStatus({ runsDone: 1, failures: 0, running: [] }, FUZZ)).toBe('1 run · 0 failed');
  });

  it('names at most three running units, then counts the rest', () => {
    const running = ['idempotency', 'confirmation', 'identity', 'operations', 'versions'];
    expect(progressStatus({ runsDone: 0, failures: 0, running }, FUZZ)).toBe(
      '0 runs · 0 failed · now idempotency, confirmation, identity +2',
    );
  });

  it('leaves runs out for units without runs, and says what a failure is', () => {
    const mutants = {
      ...FUZZ,
      noun: 'mutants',
      units: 'planted bugs',
      failure: 'survived',
      countsRuns: false,
    };
    expect(progressStatus({ runsDone: 99, failures: 2, running: ['uid-after-await'] }, mutants)).toBe(
      '2 survived · now uid-after-await',
    );
  });
});

describe('progress without a terminal (CI, pipes)', () => {
  it('prints one plain line per finished unit, as it finishes, and nothing else', () => {
    const out = io();
    const progress = startProgress(out, 2, FUZZ);
    progress.begin('idempotency');
    progress.runs('idempotency', 10);
    progress.done('idempotency', '  ✓ idempotency  10 runs', { failed: false, runs: 10 });
    expect(out.lines).toEqual(['  ✓ idempotency  10 runs']);
    progress.begin('identity');
    progress.done('identity', '  ✗ identity failed after 3 run(s)', { failed: true, runs: 3 });
    progress.finish();
    expect(out.lines).toEqual(['  ✓ idempotency  10 runs', '  ✗ identity failed after 3 run(s)']);
  });

  it('prints no line for a unit whose command reports at the end (crashpoints)', () => {
    const out = io();
    const progress = startProgress(out, 1, { ...FUZZ, noun: 'crashpoints', units: 'flows' });
    progress.begin('sync-write');
    progress.done('sync-write', null, { failed: false, runs: 164 });
    progress.finish();
    expect(out.lines).toEqual([]);
  });

  it('prints nothing with --json (stdout is the JSON object)', () => {
    const out = io();
    const progress = startProgress(out, 1, { ...FUZZ, json: true });
    progress.begin('idempotency');
    progress.done('idempotency', 'a line', { failed: false, runs: 1 });
    progress.finish();
    expect(out.lines).toEqual([]);
  });
});

describe('progress on a terminal', () => {
  it('draws units done, runs done, failures and the running property on stderr; prints the lines after', () => {
    const terminal = new FakeTerminal();
    const out = io(terminal);
    const progress = startProgress(out, 2, FUZZ);
    progress.begin('idempotency');
    expect(terminal.text).toContain('0/2 properties · 0 runs · 0 failed · now idempotency');
    progress.runs('idempotency', 7);
    progress.done('idempotency', '  ✗ idempotency failed after 7 run(s)', { failed: true, runs: 7 });
    progress.begin('operations');
    progress.runs('operations', 5);
    expect(out.lines).toEqual([]); // held back while the bar is drawn
    // update() redraws at most 10 times a second; begin() always draws.
    progress.begin('versions');
    expect(terminal.text).toContain('1/2 properties · 12 runs · 1 failed · now operations, versions');
    progress.finish();
    expect(out.lines).toEqual(['  ✗ idempotency failed after 7 run(s)']);
    expect(terminal.text).not.toContain('failed after');
  });
});

describe('progress: live run counts from a campaign', () => {
  it('reports each property’s runs as they start, in-process and in a worker thread', async () => {
    const [def] = selectProperties(['versions']);
    if (!def) throw new Error('no versions property');
    for (const workers of [1, 2]) {
      const seen: number[] = [];
      const [entry] = await runCampaign([def, def], {
        seed: 0,
        runs: 4,
        timeSeconds: undefined,
        tails: tailsOf('portfolio'),
        variant: REFERENCE,
        outDir: tempDir('cetp-sim-progress-'),
        modules: {},
        cwd: process.cwd(),
        workers,
        watchdogMs: 60_000,
        now: () => 0,
        onRuns: (d, runs) => {
          if (d === def) seen.push(runs);
        },
      });
      expect(entry?.result.runs).toBe(4);
      // In-process every start is seen; a worker's heartbeat is sampled, so some may be skipped.
      if (workers === 1) expect(seen).toEqual([1, 2, 3, 4, 1, 2, 3, 4]);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((n) => n >= 1 && n <= 4)).toBe(true);
    }
  });
});
