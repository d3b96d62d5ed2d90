/**
 * Runs a zoo program under fast-check's own `fc.scheduler()`: a scheduling point is
 * `s.schedule(Promise.resolve(), label)`, which fast-check releases in an order it draws itself; a
 * mutex waiter is a plain promise that, once resolved, passes a scheduling point again before it
 * retries. The property fails on the program's assertion or when the scheduler goes idle with main
 * not finished (deadlock). Runs to first failure = fast-check's own `numRuns` of a failed check
 * (shrinking off).
 */
import fc from 'fast-check';
import {
  ZooAssertionFailed,
  type ZooMutex,
  type ZooProgram,
  type ZooRuntime,
  type ZooThread,
  type ZooVerdict,
} from './runtime.ts';

const NEVER = new Promise<never>(() => {});

class FcRuntime implements ZooRuntime {
  exited = false;
  readonly failures: string[] = [];
  /** What threads wait on now (for the deadlock verdict). */
  readonly blocked = new Set<string>();
  private waits = 0;

  constructor(private readonly s: fc.Scheduler) {}

  async racy(label: string): Promise<void> {
    await this.point(label);
  }

  private async point(label: string): Promise<void> {
    if (this.exited) await NEVER;
    await this.s.schedule(Promise.resolve(), label);
    // A thread released after main exited takes no further step (the process is gone).
    if (this.exited) await NEVER;
  }

  async spawn(name: string, body: () => Promise<void>): Promise<ZooThread> {
    await this.point(`create ${name}`);
    const finished = body().catch((error: unknown) => {
      if (error instanceof ZooAssertionFailed) this.failures.push(error.message);
      else throw error;
    });
    return {
      join: async () => {
        await this.point(`join ${name}`);
        this.blocked.add(`join ${name}`);
        await finished;
        this.blocked.delete(`join ${name}`);
      },
    };
  }

  mutex(name: string): ZooMutex {
    let held = false;
    let waiting: (() => void)[] = [];
    return {
      lock: async () => {
        await this.point(`lock ${name}`);
        while (held) {
          const what = `${++this.waits}: lock ${name}`;
          this.blocked.add(what);
          await new Promise<void>((resolve) => waiting.push(resolve));
          this.blocked.delete(what);
          await this.point(`relock ${name}`);
        }
        held = true;
      },
      unlock: async () => {
        await this.point(`unlock ${name}`);
        held = false;
        const woken = waiting;
        waiting = [];
        for (const wake of woken) wake();
      },
    };
  }

  check(condition: boolean, message: string): void {
    if (!condition) throw new ZooAssertionFailed(message);
  }

  async exit(): Promise<void> {
    await this.point('exit');
    this.exited = true;
  }
}

/** One run under a given fc.scheduler instance. */
export async function runOnFcScheduler(program: ZooProgram, s: fc.Scheduler): Promise<ZooVerdict> {
  const rt = new FcRuntime(s);
  let mainDone = false;
  const main = program
    .main(rt)
    .then(() => {
      mainDone = true;
    })
    .catch((error: unknown) => {
      if (error instanceof ZooAssertionFailed) rt.failures.push(error.message);
      else throw error;
    });
  await s.waitIdle();
  if (rt.failures.length > 0) return { kind: 'assertion', message: rt.failures[0] ?? '' };
  if (!mainDone && !rt.exited) return { kind: 'deadlock', blocked: [...rt.blocked] };
  void main;
  return { kind: 'ok' };
}

/** Runs to the first failure under fc.scheduler() with fast-check's seed `seed` (null: not within budget). */
export async function fcRunsToFailure(
  program: ZooProgram,
  seed: number,
  budget: number,
): Promise<number | null> {
  const property = fc.asyncProperty(fc.scheduler(), async (s) => {
    const verdict = await runOnFcScheduler(program, s);
    return verdict.kind === 'ok';
  });
  const details = await fc.check(property, { seed, numRuns: budget, endOnFailure: true });
  return details.failed ? details.numRuns : null;
}
