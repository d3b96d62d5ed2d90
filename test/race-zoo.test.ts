/**
 * The race zoo (bench/race-zoo/): the ported SCTBench programs' bugs are found by a strategy within a
 * bound, are not found by FIFO where that is the point, and the oracles pass the fixed programs (so a
 * found bug is the program's, not the harness's). Counts only; no timing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcRunsToFailure, runOnFcScheduler } from '../bench/race-zoo/fc-engine.ts';
import { CONTESTANTS, type Contestant, simRunsToFailure } from '../bench/race-zoo/measure.ts';
import { zooProgram } from '../bench/race-zoo/programs.ts';
import type { ZooProgram, ZooThread } from '../bench/race-zoo/runtime.ts';
import { runOnSim } from '../bench/race-zoo/sim-engine.ts';
import { Rng } from '../src/sim/core/rng.ts';
import { campaignStrategy, makeStrategy } from '../src/sim/core/strategy.ts';

function program(id: string): ZooProgram {
  const p = zooProgram(id);
  if (!p) throw new Error(`no zoo program ${id}`);
  return p;
}

function contestant(name: string): Contestant {
  const c = CONTESTANTS.find((x) => x.name === name);
  if (!c) throw new Error(`no contestant ${name}`);
  return c;
}

/** reorder_bad.c with the fix: the set threads write a and b in one atomic step (reorder's ok variant). */
const reorderFixed: ZooProgram = {
  id: 'reorder_fixed',
  source: 'test',
  threads: 6,
  bug: 'assertion',
  deep: false,
  async main(rt) {
    let a = 0;
    let b = 0;
    const threads: ZooThread[] = [];
    for (let i = 0; i < 4; i++)
      threads.push(
        await rt.spawn(`set${i}`, async () => {
          await rt.racy('a = 1; b = -1');
          a = 1;
          b = -1;
        }),
      );
    threads.push(
      await rt.spawn('check', async () => {
        await rt.racy('read a, b');
        rt.check((a === 0 && b === 0) || (a === 1 && b === -1), 'reorder_fixed: out of step');
      }),
    );
    for (const t of threads) await t.join();
  },
};

/** deadlock01_bad.c with the fix: both threads take a before b. */
const deadlockFixed: ZooProgram = {
  id: 'deadlock01_fixed',
  source: 'test',
  threads: 3,
  bug: 'deadlock',
  deep: false,
  async main(rt) {
    const a = rt.mutex('a');
    const b = rt.mutex('b');
    const body = async () => {
      await a.lock();
      await b.lock();
      await b.unlock();
      await a.unlock();
    };
    const t1 = await rt.spawn('thread1', body);
    const t2 = await rt.spawn('thread2', body);
    await t1.join();
    await t2.join();
  },
};

describe('race zoo', () => {
  it('reorder_10 and reorder_20: FIFO never reaches the bug; PCT finds it within 2,000 runs in each of 3 trials', async () => {
    for (const id of ['reorder_10', 'reorder_20']) {
      const fifo = await runOnSim(program(id), makeStrategy({ kind: 'fifo' }, new Rng(0), 100));
      expect(fifo.verdict.kind).toBe('ok');
      for (let trial = 0; trial < 3; trial++) {
        const runs = await simRunsToFailure(program(id), contestant('pct-4'), trial, 2_000);
        expect(runs, `${id} trial ${trial}`).not.toBeNull();
      }
    }
  });

  it('the assertion oracle fires on the port and only there: fixed reorder passes 500 random and PCT runs', async () => {
    for (const name of ['random', 'pct-3', 'portfolio']) {
      expect(await simRunsToFailure(reorderFixed, contestant(name), 0, 500)).toBeNull();
      expect(await simRunsToFailure(program('reorder_5'), contestant(name), 0, 2_000)).not.toBeNull();
    }
  });

  it('deadlock01: FIFO completes, random finds the deadlock within 50 runs, same-order locking never deadlocks', async () => {
    const fifo = await runOnSim(program('deadlock01'), makeStrategy({ kind: 'fifo' }, new Rng(0), 100));
    expect(fifo.verdict.kind).toBe('ok');
    const campaign = campaignStrategy({ kind: 'random' }, new Rng('deadlock01'));
    let found: string[] | null = null;
    for (let run = 0; run < 50 && found === null; run++) {
      const r = await runOnSim(program('deadlock01'), campaign.next());
      if (r.verdict.kind === 'deadlock') found = [...r.verdict.blocked];
    }
    expect(found?.sort()).toEqual(['main: join thread1', 'thread1: lock b', 'thread2: lock a']);
    expect(await simRunsToFailure(deadlockFixed, contestant('random'), 0, 300)).toBeNull();
  });

  it('a run is reproduced exactly by its seed (runs to failure and decisions)', async () => {
    const a = await simRunsToFailure(program('account'), contestant('portfolio'), 4, 2_000);
    const b = await simRunsToFailure(program('account'), contestant('portfolio'), 4, 2_000);
    expect(a).not.toBeNull();
    expect(a).toBe(b);
  });

  it('fc.scheduler runs the same programs: it finds twostage and deadlock01, and passes the fixed ones', async () => {
    expect(await fcRunsToFailure(program('twostage'), 0, 500)).not.toBeNull();
    expect(await fcRunsToFailure(program('deadlock01'), 0, 500)).not.toBeNull();
    expect(await fcRunsToFailure(reorderFixed, 0, 200)).toBeNull();
    expect(await fcRunsToFailure(deadlockFixed, 0, 200)).toBeNull();
    // Each oracle reports its own kind: deadlock01 fails as a deadlock, lazy01 as an assertion.
    for (const [id, kind] of [
      ['deadlock01', 'deadlock'],
      ['lazy01', 'assertion'],
    ] as const) {
      const details = await fc.check(
        fc.asyncProperty(fc.scheduler(), async (s) => (await runOnFcScheduler(program(id), s)).kind !== kind),
        { numRuns: 500, seed: 0, endOnFailure: true },
      );
      expect(details.failed, id).toBe(true);
    }
  });
});
