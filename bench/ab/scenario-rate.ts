/**
 * The ten-step benchmark scenario's runs per CPU-second in the checkout at argv[2] (this one by
 * default): a fresh process, `warm` runs to let V8 optimise the path, then `count` runs timed by the
 * process's CPU time (user + system, every thread: V8's compiler and GC helpers count). Prints one
 * JSON line. bench/ab.ts runs it once per tree per round; it imports the other tree's modules by
 * path, trying the engine's old and new places (properties/ before issue 33, src/fuzz/ after).
 *
 *   npx tsx bench/ab/scenario-rate.ts [root] [count=600] [warm=2500]
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const count = Number(process.argv[3] ?? 600);
const warm = Number(process.argv[4] ?? 2_500);

function firstExisting(...paths: string[]): string {
  for (const p of paths) if (existsSync(resolve(root, p))) return pathToFileURL(resolve(root, p)).href;
  throw new Error(`none of ${paths.join(', ')} in ${root}`);
}

type Run = (fixture: unknown, scenario: unknown, variant: unknown) => Promise<unknown>;
const { runScenario } = (await import(
  firstExisting('src/fuzz/scenario/runner.ts', 'src/fuzz/scenario/runner.ts')
)) as { runScenario: Run };
const { REFERENCE } = (await import(
  firstExisting('src/fuzz/scenario/model.ts', 'src/fuzz/scenario/model.ts')
)) as {
  REFERENCE: unknown;
};
const { BENCH_FIXTURE, TEN_STEP_SCENARIO } = (await import(firstExisting('bench/scenarios.ts'))) as {
  BENCH_FIXTURE: unknown;
  TEN_STEP_SCENARIO: unknown;
};

for (let i = 0; i < warm; i++) await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
const before = process.cpuUsage();
for (let i = 0; i < count; i++) await runScenario(BENCH_FIXTURE, TEN_STEP_SCENARIO, REFERENCE);
const used = process.cpuUsage(before);
const cpuMs = (used.user + used.system) / 1000;
console.log(JSON.stringify({ root, count, cpuMs, runsPerCpuSecond: count / (cpuMs / 1000) }));
