/**
 * Kernel benchmarks (issue: the simulated runtime): a bare Binder round trip — ContentResolver-style
 * call → echo provider → reply with a small Bundle, through parcelling, thread and buffer accounting
 * and the trace — and a bare scheduler step. Target: ≥ 100,000 round trips per second on one core.
 */

import { AGENT, RawClient, TEST_AUTHORITY, testProviderWorld, writeTool } from '../src/providers/testing.ts';
import { Bundle } from '../src/sim/binder/bundle.ts';
import { appSpec, clientSpec, EchoProvider } from '../src/sim/testing.ts';
import { World } from '../src/sim/world.ts';
import type { BenchCase } from './harness.ts';

/** Sequential round trips from one client thread through an unstable client. */
export async function binderRoundTrips(count: number): Promise<void> {
  const world = new World({ stepBudget: count * 10 + 1000 });
  world.install(appSpec('com.bench.echo', { authority: 'echo' }), () => ({
    providers: { Provider: new EchoProvider() },
  }));
  world.install(clientSpec('com.bench.client', ['com.bench.echo']), () => ({}));
  const extras = new Bundle();
  extras.putString('request_id', '8f14e45f-ceea-467f-a8d2-2d2b5e7c3a10');
  extras.putInt('protocol_version', 2);
  world.spawnIn('com.bench.client', 'main', async (ctx) => {
    const client = await ctx.contentResolver.acquireUnstableContentProviderClient('echo');
    for (let i = 0; i < count; i++) await client?.call('ping', null, extras);
  });
  const report = await world.run();
  if (report.outcome.kind !== 'completed') throw new Error(`bench world ended ${report.outcome.kind}`);
}

/** Two tasks yielding to each other: `count` scheduler steps. */
export async function schedulerSteps(count: number): Promise<void> {
  const world = new World({ stepBudget: count + 10 });
  for (const name of ['a', 'b']) {
    world.spawn(name, async () => {
      for (let i = 0; i < count / 2; i++) await world.scheduler.yield();
    });
  }
  await world.run();
}

/**
 * Full synchronous execute_tool round trips: small args, input and output schema validation, a
 * de-duplicated durable commit (request record + business row in one transaction), inline result.
 */
export async function executeRoundTrips(count: number): Promise<void> {
  const world = testProviderWorld(
    { tools: [writeTool('add_row')] },
    { stepBudget: count * 40 + 5000, recordContentCalls: false },
  );
  let failures = 0;
  world.spawnIn(AGENT, 'bench', async (ctx) => {
    const client = new RawClient(ctx, TEST_AUTHORITY);
    await client.negotiate([]);
    for (let i = 0; i < count; i++) {
      const reply = await client.execute('add_row', { n: i });
      if (reply.getString('status') !== 'success') failures++;
    }
  });
  const report = await world.run();
  if (report.outcome.kind !== 'completed' || failures > 0)
    throw new Error(`execute bench: ${report.outcome.kind}, ${failures} failures`);
}

const ROUND_TRIPS = 10_000;
const EXECUTES = 2_000;
const STEPS = 20_000;

export const kernelCases: BenchCase[] = [
  {
    name: 'binder round trip (echo, small Bundle)',
    unit: 'round trips/s',
    perIteration: ROUND_TRIPS,
    target: 100_000,
    fn: () => binderRoundTrips(ROUND_TRIPS),
  },
  {
    name: 'execute_tool round trip (sync write, schemas, durable dedup, inline)',
    unit: 'executions/s',
    perIteration: EXECUTES,
    target: 30_000,
    fn: () => executeRoundTrips(EXECUTES),
  },
  {
    name: 'scheduler step (two tasks yielding)',
    unit: 'steps/s',
    perIteration: STEPS,
    fn: () => schedulerSteps(STEPS),
  },
];
