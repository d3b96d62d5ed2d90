/**
 * Runs the benchmark suites and records their figures in bench/results/.
 *   npm run bench                 every suite
 *   npm run bench -- kernel fuzz  some suites
 * Suites: kernel (Binder round trip, scheduler step, provider execute_tool), fuzz (scenario runs/s),
 * mutants (each planted bug's time to failure), mutant-depth (each planted bug's runs to failure over ten
 * seeds with the CLI's defaults), strategies (runs to expose planted races: PCT vs
 * uniform random vs FIFO), memory (heap after each round of a long campaign: it must plateau),
 * boundary (the inline/file result boundary: cost against the bytes' floor, memory of a 16 MiB file
 * result, concurrent inline results against Binder's shared buffer; also draws its SVG charts),
 * scaling (`--workers 1` vs `--workers 2`: a --time fuzz campaign's runs, mutants and ablate wall time),
 * race-zoo (SCTBench's buggy programs ported to the scheduler: runs to first failure per strategy and
 * under fc.scheduler; bench/race-zoo/, bench/README.md), serve (`serve --stdio` calls/s in one session of
 * 100, 1,000 and 10,000 pipelined calls; the per-call cost at 10,000 within 1.5x of that at 100),
 * profile (the default and a --provider campaign under V8's profiler: shares of CPU by category).
 * Several suites run one after another, each in a process of its own.
 *   npm run bench -- ab <ref> [rounds]  this checkout against <ref>, interleaved, as ratios (bench/ab.ts)
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { boundaryBenchmark } from './boundary.bench.ts';
import { renderCharts } from './charts.ts';
import { fuzzCases, timeToFailure } from './fuzz.bench.ts';
import { type BenchCase, printFigures, recordResults, runSuite } from './harness.ts';
import { kernelCases } from './kernel.bench.ts';
import { campaignMemory } from './memory.bench.ts';
import { DEPTH_MEDIAN_TARGET, mutantDepth } from './mutant-depth.ts';
import { profileBenchmark } from './profile.bench.ts';
import { renderRaceZooChart } from './race-zoo/chart.ts';
import { raceZooBenchmark } from './race-zoo/suite.ts';
import { scalingBenchmark } from './scaling.bench.ts';
import { serveBenchmark } from './serve.bench.ts';
import { strategyComparison } from './strategies.bench.ts';

if (process.argv[2] === 'ab') {
  const { abMain } = await import('./ab.ts');
  process.exit(await abMain(process.argv.slice(3)));
}

const timed: Record<string, BenchCase[]> = { kernel: kernelCases, fuzz: fuzzCases };
const custom = [
  'mutants',
  'mutant-depth',
  'strategies',
  'memory',
  'boundary',
  'scaling',
  'race-zoo',
  'serve',
  'profile',
];
const all = [...Object.keys(timed), ...custom];

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!all.includes(name)) {
    console.error(`unknown suite "${name}"; suites: ${all.join(', ')}`);
    process.exit(2);
  }
}
const selected = wanted.length === 0 ? all : wanted;
if (selected.length > 1) {
  // One process per suite: a suite's JIT type feedback and heap would otherwise colour the next
  // (the scenario rate measured ~40% lower right after the kernel suite than in a process of its own).
  let failed = false;
  for (const name of selected) {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: 'inherit',
    });
    if (child.status !== 0) failed = true;
  }
  process.exit(failed ? 1 : 0);
}
const run = (name: string) => selected.includes(name);
const resultPath = (name: string) => new URL(`./results/${name}.json`, import.meta.url).pathname;
const machine = () => ({
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
});

for (const [name, cases] of Object.entries(timed)) {
  if (!run(name)) continue;
  console.log(`suite ${name}`);
  const figures = await runSuite(name, cases);
  printFigures(figures);
  recordResults(resultPath(name), name, figures);
}

if (run('mutants')) {
  console.log('suite mutants (time to failure, default portfolio)');
  const ttf = await timeToFailure();
  for (const m of ttf.mutants) {
    console.log(
      `  ${m.id.padEnd(32)} ${m.killed ? `${m.msToFailure} ms, ${m.runsToFailure} runs, by ${m.killedBy}` : 'SURVIVED'}`,
    );
  }
  console.log(
    `median ${ttf.medianMs} ms, max ${ttf.maxMs} ms (target median < 1000 ms, max ≤ 10000 ms: ${ttf.meetsTarget ? 'met' : 'NOT met'})`,
  );
  writeFileSync(
    resultPath('mutants'),
    `${JSON.stringify({ suite: 'mutants', ...machine(), ...ttf }, null, 2)}\n`,
  );
}

if (run('mutant-depth')) {
  console.log('suite mutant-depth (runs to failure over seeds 0..9, `cetp-sim mutants` defaults)');
  const figures = await mutantDepth();
  console.log(
    `every bug killed at every seed and each median ≤ ${DEPTH_MEDIAN_TARGET} runs: ${figures.meetsTarget ? 'met' : `NOT met (survivors: ${figures.survivors.join(', ') || 'none'}; over: ${figures.overTarget.join(', ') || 'none'})`}`,
  );
  writeFileSync(
    resultPath('mutant-depth'),
    `${JSON.stringify({ suite: 'mutant-depth', ...machine(), ...figures }, null, 2)}\n`,
  );
}

if (run('strategies')) {
  console.log('suite strategies (runs to expose a planted race, 10 trials)');
  const figures = await strategyComparison();
  for (const f of figures)
    console.log(`  ${f.race.padEnd(30)} ${f.strategy.padEnd(12)} median ${f.median ?? 'not found'}`);
  writeFileSync(
    resultPath('strategies'),
    `${JSON.stringify({ suite: 'strategies', ...machine(), figures }, null, 2)}\n`,
  );
}

if (run('memory')) {
  console.log('suite memory (heap after a full GC, each round = every property × 100 runs)');
  const figures = await campaignMemory();
  console.log(
    `  heap by round (MB): ${figures.heapMbByRound.join(', ')}; growth over the last third: ${figures.lateGrowthMb} MB`,
  );
  writeFileSync(
    resultPath('memory'),
    `${JSON.stringify({ suite: 'memory', ...machine(), ...figures }, null, 2)}\n`,
  );
}

if (run('boundary')) {
  console.log('suite boundary (the inline/file result boundary; bench/README.md)');
  const results = await boundaryBenchmark();
  writeFileSync(
    resultPath('boundary'),
    `${JSON.stringify({ suite: 'boundary', ...machine(), ...results }, null, 2)}\n`,
  );
  for (const path of await renderCharts(results, new URL('./results/', import.meta.url)))
    console.log(`  wrote ${path}`);
}

if (run('scaling')) {
  console.log('suite scaling (--workers 1 vs 2, side by side; bench/scaling.bench.ts)');
  const results = await scalingBenchmark();
  const f = results.figures;
  console.log(
    `  fuzz runs ×${f.fuzzRunsRatio} (per wall second ×${f.fuzzRunsPerWallSecondRatio}), mutants ×${f.mutantsSpeedup} sooner, ablate ×${f.ablateSpeedup} sooner (goals 1.8, 1.7, 1.7: ${results.meetsGoals ? 'met' : 'NOT met'}); load ${JSON.stringify(results.host.before.loadAverage)} → ${JSON.stringify(results.host.after.loadAverage)}`,
  );
  writeFileSync(
    resultPath('scaling'),
    `${JSON.stringify({ suite: 'scaling', ...machine(), ...results }, null, 2)}\n`,
  );
}

if (run('serve')) {
  console.log('suite serve (calls/s in one serve session of 100, 1,000, 10,000 pipelined calls)');
  const results = await serveBenchmark((line) => console.log(line));
  console.log(
    `  per-call cost at 10,000 / at 100: x${results.perCallRatio} (goal ≤ ${results.goal}: ${results.meetsGoal ? 'met' : 'NOT met'})`,
  );
  writeFileSync(
    resultPath('serve'),
    `${JSON.stringify({ suite: 'serve', ...machine(), ...results }, null, 2)}\n`,
  );
}

if (run('race-zoo')) {
  console.log('suite race-zoo (runs to first failure, 20 trials per program and strategy; bench/README.md)');
  const results = await raceZooBenchmark(undefined, (line) => console.log(line));
  for (const g of results.goals)
    console.log(`  ${g.met ? 'met    ' : 'NOT met'} ${g.goal} ${g.program}: ${g.detail}`);
  writeFileSync(
    resultPath('race-zoo'),
    `${JSON.stringify({ suite: 'race-zoo', ...machine(), ...results }, null, 2)}\n`,
  );
  console.log(`  wrote ${await renderRaceZooChart(results, new URL('./results/', import.meta.url))}`);
}

if (run('profile')) {
  console.log(
    'suite profile (CPU profile of the default and a --provider campaign, by category; bench/README.md)',
  );
  const results = await profileBenchmark((line) => console.log(line));
  writeFileSync(
    resultPath('profile'),
    `${JSON.stringify({ suite: 'profile', ...machine(), ...results }, null, 2)}\n`,
  );
}
