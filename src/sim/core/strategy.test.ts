import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.ts';
import { Rng } from './rng.ts';
import { Scheduler } from './scheduler.ts';
import { campaignStrategy, makeStrategy, type Strategy, type StrategySpec } from './strategy.ts';

/** Three tasks logging at three scheduling points each; returns the log. */
async function threeTasks(strategy: Strategy): Promise<string[]> {
  const scheduler = new Scheduler(new VirtualClock(0), strategy, { stepBudget: 1_000 });
  const log: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    scheduler.spawn(name, async () => {
      for (let i = 0; i < 3; i++) {
        log.push(name);
        await scheduler.yield();
      }
    });
  }
  await scheduler.run();
  return log;
}

const switches = (log: readonly string[]) => log.filter((t, i) => i > 0 && t !== log[i - 1]).length;

async function switchCounts(spec: StrategySpec, seeds = 40): Promise<Set<number>> {
  const counts = new Set<number>();
  for (let seed = 0; seed < seeds; seed++)
    counts.add(switches(await threeTasks(makeStrategy(spec, new Rng(seed), 100))));
  return counts;
}

describe('PCT', () => {
  it('depth 1 runs each task to completion in priority order', async () => {
    expect(await switchCounts({ kind: 'pct', depth: 1 })).toEqual(new Set([2]));
  });

  it('a change point preempts the running task; with k far above the run length none fires', async () => {
    const counted = await switchCounts({ kind: 'pct', depth: 2, stepsEstimate: 10, unit: 'choice' });
    expect([...counted].some((n) => n > 2)).toBe(true);
    // k = 10,000 steps for a 12-step run: the change point lands after the run (PCT degenerates).
    expect(await switchCounts({ kind: 'pct', depth: 2, stepsEstimate: 10_000 })).toEqual(new Set([2]));
  });

  it("'below-parent' spawn: a parent keeps running past its spawns until it blocks", async () => {
    const orders = new Set<string>();
    for (const spawn of ['below-parent', 'random'] as const) {
      for (let seed = 0; seed < 30; seed++) {
        const strategy = makeStrategy({ kind: 'pct', depth: 1, spawn }, new Rng(seed), 100);
        const scheduler = new Scheduler(new VirtualClock(0), strategy, { stepBudget: 1_000 });
        const log: string[] = [];
        scheduler.spawn('parent', async () => {
          for (const child of ['x', 'y', 'z']) {
            scheduler.spawn(child, async () => {
              log.push(child);
            });
            await scheduler.yield();
          }
          log.push('parent done');
        });
        await scheduler.run();
        const parentFirst = log[0] === 'parent done';
        if (spawn === 'below-parent') expect(parentFirst, `seed ${seed}`).toBe(true);
        else orders.add(String(parentFirst));
      }
    }
    // With the paper's random priorities, a child sometimes outranks its parent.
    expect(orders).toEqual(new Set(['true', 'false']));
  });
});

describe('campaignStrategy', () => {
  it('the portfolio spends its first run on FIFO, then rotates through its members', () => {
    const campaign = campaignStrategy({ kind: 'portfolio' }, new Rng(1));
    const names: string[] = [];
    for (let run = 0; run < 6; run++) {
      names.push(campaign.next().name);
      campaign.observe({ steps: 20, choices: 12, failed: false });
    }
    expect(names).toEqual(['fifo', 'random', 'pct', 'random', 'pct', 'random']);
  });

  it('learns k from the runs it observed: change points then land inside short runs', async () => {
    // 12-step runs with 8 choices. Unlearned, k is the initial estimate (50 choices) and most change
    // points fall after the run; after observing the runs, every change point falls inside one.
    const preempted = async (learn: boolean) => {
      const campaign = campaignStrategy({ kind: 'pct', depth: 3, unit: 'choice' }, new Rng(2));
      if (learn) campaign.observe({ steps: 12, choices: 8, failed: false });
      let n = 0;
      for (let run = 0; run < 40; run++) if (switches(await threeTasks(campaign.next())) > 2) n++;
      return n;
    };
    const [unlearned, learned] = [await preempted(false), await preempted(true)];
    expect(learned).toBeGreaterThan(2 * unlearned);
  });

  it('is deterministic: the same rng gives the same schedules', async () => {
    const logs = async () => {
      const campaign = campaignStrategy({ kind: 'portfolio' }, new Rng('same'));
      const out: string[] = [];
      for (let run = 0; run < 5; run++) out.push((await threeTasks(campaign.next())).join(''));
      return out;
    };
    expect(await logs()).toEqual(await logs());
  });
});
