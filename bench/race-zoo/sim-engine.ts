/**
 * Runs a zoo program once on cetp-sim's scheduler (src/sim/core/scheduler.ts) under a strategy: every
 * thread is a Task, a scheduling point is `Scheduler.yield()`, a mutex or join blocks on a Waiter. A
 * failed check ends the run as the task's failure; a run that ends with threads still blocked is the
 * deadlock oracle (the scheduler's liveness outcome).
 */
import { VirtualClock } from '../../src/sim/core/clock.ts';
import type { Scheduler as SchedulerType, Waiter } from '../../src/sim/core/scheduler.ts';
import { Scheduler } from '../../src/sim/core/scheduler.ts';
import type { Strategy } from '../../src/sim/core/strategy.ts';
import {
  ZooAssertionFailed,
  type ZooMutex,
  type ZooProgram,
  type ZooRuntime,
  type ZooThread,
  type ZooVerdict,
} from './runtime.ts';

/** Far above any zoo program's length (twostage_100, the longest, takes ~1,000 steps). */
const STEP_BUDGET = 100_000;

export interface SimRun {
  readonly verdict: ZooVerdict;
  readonly steps: number;
  /** Scheduling decisions (steps with more than one ready thread). */
  readonly choices: number;
  readonly decisions: readonly number[];
}

class SimRuntime implements ZooRuntime {
  constructor(private readonly scheduler: SchedulerType) {}

  racy(): Promise<void> {
    return this.scheduler.yield();
  }

  async spawn(name: string, body: () => Promise<void>): Promise<ZooThread> {
    await this.scheduler.yield();
    let done = false;
    const joiners: Waiter<void>[] = [];
    this.scheduler.spawn(name, async () => {
      await body();
      done = true;
      for (const w of joiners.splice(0)) w.wake();
    });
    return {
      join: async () => {
        await this.scheduler.yield();
        if (done) return;
        const w = this.scheduler.waiter<void>(`join ${name}`);
        joiners.push(w);
        await w.wait();
      },
    };
  }

  mutex(name: string): ZooMutex {
    const scheduler = this.scheduler;
    let held = false;
    let waiting: Waiter<void>[] = [];
    return {
      async lock() {
        await scheduler.yield();
        while (held) {
          // Woken by an unlock, the thread competes again: the strategy decides who gets the lock.
          const w = scheduler.waiter<void>(`lock ${name}`);
          waiting.push(w);
          await w.wait();
        }
        held = true;
      },
      async unlock() {
        await scheduler.yield();
        held = false;
        const woken = waiting;
        waiting = [];
        for (const w of woken) w.wake();
      },
    };
  }

  check(condition: boolean, message: string): void {
    if (!condition) throw new ZooAssertionFailed(message);
  }

  async exit(): Promise<void> {
    await this.scheduler.yield();
    const self = this.scheduler.currentTask;
    for (const task of this.scheduler.tasks()) if (task !== self) this.scheduler.kill(task, 'process exit');
  }
}

export async function runOnSim(program: ZooProgram, strategy: Strategy): Promise<SimRun> {
  const scheduler = new Scheduler(new VirtualClock(0), strategy, { stepBudget: STEP_BUDGET });
  scheduler.spawn('main', () => program.main(new SimRuntime(scheduler)));
  const outcome = await scheduler.run();
  const base = { steps: scheduler.step, choices: scheduler.decisions.length, decisions: scheduler.decisions };
  switch (outcome.kind) {
    case 'completed':
      return { ...base, verdict: { kind: 'ok' } };
    case 'liveness':
      return {
        ...base,
        verdict: { kind: 'deadlock', blocked: outcome.blocked.map((b) => `${b.task}: ${b.on}`) },
      };
    case 'crash':
      if (outcome.error instanceof ZooAssertionFailed)
        return { ...base, verdict: { kind: 'assertion', message: outcome.error.message } };
      throw outcome.error;
    default:
      throw new Error(`race zoo ${program.id}: the run ended ${outcome.kind}`);
  }
}
