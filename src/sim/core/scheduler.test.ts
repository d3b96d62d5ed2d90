import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.ts';
import { SimUsageError } from './errors.ts';
import { Rng } from './rng.ts';
import { Scheduler, TIMED_OUT } from './scheduler.ts';
import { makeStrategy, type StrategySpec } from './strategy.ts';

function makeScheduler(spec: StrategySpec = { kind: 'fifo' }, stepBudget = 10_000, seed = 'test') {
  const clock = new VirtualClock(0);
  const scheduler = new Scheduler(clock, makeStrategy(spec, new Rng(seed), 100), { stepBudget });
  return { clock, scheduler };
}

/** Three tasks that each log their name at three scheduling points. */
function interleaving(spec: StrategySpec, seed = 'x') {
  const { scheduler } = makeScheduler(spec, 10_000, seed);
  const log: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    scheduler.spawn(name, async () => {
      for (let i = 0; i < 3; i++) {
        log.push(`${name}${i}`);
        await scheduler.yield();
      }
    });
  }
  return { scheduler, log, done: scheduler.run() };
}

describe('Scheduler', () => {
  it('fifo runs ready tasks in the order they became ready (round robin on yield)', async () => {
    const { log, done } = interleaving({ kind: 'fifo' });
    expect((await done).kind).toBe('completed');
    expect(log.join(' ')).toBe('a0 b0 c0 a1 b1 c1 a2 b2 c2');
  });

  it('records a decision only at steps with more than one ready task', async () => {
    const { scheduler, done } = interleaving({ kind: 'random' }, 'seed-1');
    await done;
    // 3 tasks × (3 yields + 1 finishing resume) = 12 steps; the last task alone needs no decision.
    expect(scheduler.step).toBe(12);
    expect(scheduler.decisions.length).toBeLessThan(12);
    expect(scheduler.decisions.every((d) => d >= 0 && d < 3)).toBe(true);
  });

  it('replaying the recorded decisions of a random run reproduces it exactly', async () => {
    for (const seed of ['s1', 's2', 's3', 's4', 's5']) {
      const first = interleaving({ kind: 'random' }, seed);
      await first.done;
      const again = interleaving({ kind: 'replay', decisions: first.scheduler.decisions });
      await again.done;
      expect(again.log).toEqual(first.log);
      expect(again.scheduler.decisions).toEqual(first.scheduler.decisions);
    }
  });

  it('different random seeds explore different interleavings', async () => {
    const orders = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const run = interleaving({ kind: 'random' }, `seed-${i}`);
      await run.done;
      orders.add(run.log.join(' '));
    }
    expect(orders.size).toBeGreaterThan(5);
  });

  it('a replay list that runs out continues as fifo; out-of-range choices wrap', async () => {
    const run = interleaving({ kind: 'replay', decisions: [1, 7] });
    await run.done;
    // choice 0: ready [a,b,c] → 1 = b; choice 1: ready [a,c,b] → 7 % 3 = 1 = c; then fifo.
    expect(run.log.slice(0, 3)).toEqual(['b0', 'c0', 'a0']);
  });

  it('pct is deterministic for a seed and respects priorities between change points', async () => {
    const a = interleaving({ kind: 'pct', depth: 2 }, 'pct-seed');
    await a.done;
    const b = interleaving({ kind: 'pct', depth: 2 }, 'pct-seed');
    await b.done;
    expect(a.log).toEqual(b.log);
    // With depth 1 (no change points) the highest-priority task runs to completion first.
    const c = interleaving({ kind: 'pct', depth: 1 }, 'pct-seed');
    await c.done;
    const first = c.log[0]?.[0];
    expect(c.log.slice(0, 3)).toEqual([`${first}0`, `${first}1`, `${first}2`]);
  });

  it('virtual time advances only when no task is ready, to the earliest timed wait', async () => {
    const { scheduler, clock } = makeScheduler();
    const seen: [string, number][] = [];
    scheduler.spawn('slow', async () => {
      await scheduler.sleep(500);
      seen.push(['slow', clock.elapsedRealtime()]);
    });
    scheduler.spawn('fast', async () => {
      await scheduler.sleep(100);
      seen.push(['fast', clock.elapsedRealtime()]);
      await scheduler.yield();
      seen.push(['fast-again', clock.elapsedRealtime()]);
    });
    expect((await scheduler.run()).kind).toBe('completed');
    expect(seen).toEqual([
      ['fast', 100],
      ['fast-again', 100],
      ['slow', 500],
    ]);
  });

  it('a waiter woken before anyone waits keeps the value (no lost wake-up)', async () => {
    const { scheduler } = makeScheduler();
    const got: number[] = [];
    scheduler.spawn('t', async () => {
      const w = scheduler.waiter<number>('early');
      expect(w.wake(7)).toBe(true);
      got.push(await w.wait());
    });
    await scheduler.run();
    expect(got).toEqual([7]);
  });

  it('waitFor returns TIMED_OUT after the timeout and ignores a later wake', async () => {
    const { scheduler, clock } = makeScheduler();
    const w = scheduler.waiter<string>('reply');
    let result: unknown;
    scheduler.spawn('waiter', async () => {
      result = await w.waitFor(1000);
    });
    scheduler.spawn('late', async () => {
      await scheduler.sleep(2000);
      expect(w.wake('too late')).toBe(false);
    });
    await scheduler.run();
    expect(result).toBe(TIMED_OUT);
    expect(clock.elapsedRealtime()).toBe(2000);
  });

  it('fires each timeout at its own time when an earlier timed wait ended early (woken)', async () => {
    const { scheduler, clock } = makeScheduler();
    const early = scheduler.waiter<string>('early');
    const fired: string[] = [];
    scheduler.spawn('short', async () => {
      const r = await early.waitFor(100);
      fired.push(`short:${String(r)}@${clock.elapsedRealtime()}`);
    });
    scheduler.spawn('long', async () => {
      await scheduler.sleep(500);
      fired.push(`long@${clock.elapsedRealtime()}`);
    });
    scheduler.spawn('waker', async () => {
      await scheduler.yield();
      early.wake('woken');
    });
    scheduler.spawn('ticker', async () => {
      for (let t = 0; t < 6; t++) {
        await scheduler.sleep(90);
        fired.push(`tick@${clock.elapsedRealtime()}`);
      }
    });
    await scheduler.run();
    // The woken wait leaves a stale earliest timeout (100) behind; no timer may fire before its time.
    expect(fired).toEqual([
      'short:woken@0',
      'tick@90',
      'tick@180',
      'tick@270',
      'tick@360',
      'tick@450',
      'long@500',
      'tick@540',
    ]);
  });

  it('reports a liveness failure naming each blocked task and what it waits for', async () => {
    const { scheduler } = makeScheduler();
    scheduler.spawn('consumer', async () => {
      await scheduler.waiter<void>('reply that never comes').wait();
    });
    scheduler.spawn('idle-worker', async () => scheduler.waiter<void>('work').wait(), { daemon: true });
    const outcome = await scheduler.run();
    expect(outcome).toEqual({
      kind: 'liveness',
      blocked: [{ task: 'consumer', on: 'reply that never comes', owner: null }],
    });
  });

  it('ends a run whose task awaits a promise outside the simulation as stalled, naming the task', async () => {
    const { scheduler } = makeScheduler();
    const log: string[] = [];
    scheduler.spawn(
      'worker',
      async () => {
        await scheduler.yield();
        log.push('awaiting forever');
        await new Promise<void>(() => {});
        log.push('never');
      },
      { owner: 'com.example.app' },
    );
    scheduler.spawn('other', async () => {
      for (let i = 0; i < 3; i++) await scheduler.yield();
    });
    const outcome = await scheduler.run();
    expect(outcome).toEqual({ kind: 'stalled', task: 'worker', owner: 'com.example.app', steps: 3 });
    expect(log).toEqual(['awaiting forever']);
  });

  it('a task that awaits settled promises outside the simulation (microtasks only) does not stall', async () => {
    const { scheduler } = makeScheduler();
    scheduler.spawn('worker', async () => {
      for (let i = 0; i < 3; i++) {
        await Promise.resolve(i);
        await scheduler.yield();
      }
    });
    expect((await scheduler.run()).kind).toBe('completed');
  });

  it('a finished run leaves no stall watch behind (runs back to back in one macrotask keep nothing alive)', async () => {
    // A campaign's runs are microtasks only; a stall watch left in Node's immediate queue after its
    // run ended would keep that run's whole world alive until the campaign yields (an OOM in a
    // 10-minute campaign). Count the pending immediates before and after 20 runs.
    const pending = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Immediate').length;
    const before = pending();
    for (let i = 0; i < 20; i++) {
      const { done } = interleaving({ kind: 'random' }, `run-${i}`);
      expect((await done).kind).toBe('completed');
    }
    expect(pending()).toBe(before);
  });

  it('a task coming back after its run stalled changes nothing', async () => {
    const { scheduler } = makeScheduler();
    let release: () => void = () => {};
    scheduler.spawn('late', async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      await scheduler.yield();
    });
    expect((await scheduler.run()).kind).toBe('stalled');
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(scheduler.finished).toBe(true);
    expect(scheduler.step).toBe(1);
  });

  it('stops at the step budget', async () => {
    const { scheduler } = makeScheduler({ kind: 'fifo' }, 50);
    scheduler.spawn('spinner', async () => {
      for (;;) await scheduler.yield();
    });
    expect(await scheduler.run()).toEqual({ kind: 'budget', steps: 50 });
  });

  it('killed tasks never resume and are not reported as blocked', async () => {
    const { scheduler } = makeScheduler();
    const log: string[] = [];
    scheduler.spawn(
      'victim',
      async () => {
        log.push('victim start');
        await scheduler.sleep(100);
        log.push('victim resumed');
      },
      { owner: 'app' },
    );
    scheduler.spawn('killer', async () => {
      await scheduler.yield();
      scheduler.killOwner('app', 'killed');
      log.push('killed');
    });
    expect((await scheduler.run()).kind).toBe('completed');
    expect(log).toEqual(['victim start', 'killed']);
  });

  it('waiting on two simulation primitives at once is a usage error (spawn a task per branch)', async () => {
    const { scheduler } = makeScheduler();
    scheduler.spawn('bad', async () => {
      await Promise.all([scheduler.yield(), scheduler.yield()]);
    });
    const outcome = await scheduler.run();
    expect(outcome.kind).toBe('crash');
  });

  it('calling a primitive outside any task throws SimUsageError', () => {
    const { scheduler } = makeScheduler();
    expect(() => scheduler.yield()).toThrow(SimUsageError);
  });
});

describe('the freezer at the end of a run', () => {
  it('a task of a frozen process blocked on its own held-back work is reported as frozen, not as blocked', async () => {
    const { scheduler } = makeScheduler();
    const done = scheduler.waiter<void>('work of the same process');
    scheduler.spawn('waiter', () => done.wait(), { owner: 'p' });
    scheduler.spawn(
      'worker',
      async () => {
        await scheduler.sleep(1_000);
        done.wake();
      },
      { owner: 'p' },
    );
    scheduler.spawn('freezer', async () => {
      await scheduler.sleep(500);
      scheduler.freezeOwner('p');
    });
    const outcome = await scheduler.run();
    expect(outcome.kind).toBe('liveness');
    // Both held back by the freezer: thawed, the worker would wake the waiter.
    expect(outcome.kind === 'liveness' && outcome.blocked.map((b) => [b.task, b.on])).toEqual([
      ['waiter', 'process p frozen'],
      ['worker', 'process p frozen'],
    ]);
  });
});
