/**
 * Side-by-side comparison of two checkouts under the same load: CPU time (user + system) per
 * operation of the kernel cases and the ten-step scenario run, in the tree given as the argument
 * (the best of three timed repetitions after two warm-ups). Run it alternately for both trees:
 *   for i in 1 2 3; do for t in /tmp/main-copy .; do npx tsx bench/ab-cpu.ts $t; done; done
 * CPU time is far steadier than wall time on a shared host (bench/README.md, issue 16 part B).
 */
import { resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const kernel = await import(`${root}/bench/kernel.bench.ts`);
const { runScenario } = await import(`${root}/src/fuzz/scenario/runner.ts`);
const { REFERENCE } = await import(`${root}/src/fuzz/scenario/model.ts`);
const { BENCH_FIXTURE, TEN_STEP_SCENARIO } = await import(`${root}/bench/scenarios.ts`);

async function cpuMs(fn: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const cases: [string, number, () => Promise<void>][] = [
  ['binder round trip', 20_000, () => kernel.binderRoundTrips(20_000)],
  ['execute_tool round trip', 2_000, () => kernel.executeRoundTrips(2_000)],
  ['scheduler step', 200_000, () => kernel.schedulerSteps(200_000)],
  [
    'scenario run',
    100,
    async () => {
      for (let i = 0; i < 100; i++) await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
    },
  ],
];
const perCpuSecond: Record<string, number> = {};
for (const [name, count, fn] of cases) {
  await fn();
  await fn();
  const ms = Math.min(await cpuMs(fn), await cpuMs(fn), await cpuMs(fn));
  perCpuSecond[name] = Math.round((count / ms) * 1000);
}
console.log(JSON.stringify({ root, perCpuSecond }));
