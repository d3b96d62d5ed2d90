/**
 * The fault-free twin's replays per CPU-second in the checkout at argv[2] (this one by default): the
 * ten-step benchmark scenario is run once, then `faults-transparent`'s twin of it (a fresh world
 * replaying the requests that took effect, src/fuzz/fault-free-replay.ts) is made `warm` times to
 * let V8 optimise the path and `count` times timed by the process's CPU time (user + system, every
 * thread). Prints one JSON line with a digest of the twin's record: two trees that replay
 * differently print different digests. bench/ab.ts runs it once per tree per round.
 *
 *   npx tsx bench/ab/twin-rate.ts [root] [count=1500] [warm=1500]
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const count = Number(process.argv[3] ?? 1_500);
const warm = Number(process.argv[4] ?? 1_500);
const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);

type Run = (
  fixture: unknown,
  scenario: unknown,
  variant: unknown,
) => Promise<{ observation: unknown; context: unknown }>;
const { runScenario } = (await load('src/fuzz/scenario/runner.ts')) as { runScenario: Run };
const { replayFaultFree } = (await load('src/fuzz/fault-free-replay.ts')) as {
  replayFaultFree: (input: unknown) => Promise<unknown>;
};
const { REFERENCE } = (await load('src/fuzz/scenario/model.ts')) as { REFERENCE: unknown };
const { BENCH_FIXTURE, TEN_STEP_SCENARIO } = (await load('bench/scenarios.ts')) as {
  BENCH_FIXTURE: { providers: unknown; actors: readonly string[] };
  TEN_STEP_SCENARIO: { seed: number; actors: Record<string, readonly unknown[] | undefined> };
};

const run = await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
const input = {
  seed: TEN_STEP_SCENARIO.seed,
  providers: BENCH_FIXTURE.providers,
  actors: BENCH_FIXTURE.actors.filter((a) => (TEN_STEP_SCENARIO.actors[a]?.length ?? 0) > 0),
  variant: REFERENCE,
  observation: run.observation,
  context: run.context,
};
const record = JSON.stringify(await replayFaultFree(input));
for (let i = 0; i < warm; i++) await replayFaultFree(input);
const before = process.cpuUsage();
for (let i = 0; i < count; i++) await replayFaultFree(input);
const used = process.cpuUsage(before);
const cpuMs = (used.user + used.system) / 1000;
const digest = createHash('sha256').update(record).digest('hex').slice(0, 16);
console.log(JSON.stringify({ root, count, cpuMs, replaysPerCpuSecond: count / (cpuMs / 1000), digest }));
