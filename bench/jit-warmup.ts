/**
 * What one thread's campaign costs the CPU beyond its own thread (issue 18, part 2: why a second
 * worker thread buys less than a second core). Runs every property's campaign in rounds on this
 * thread and, per round, compares this thread's CPU time (Linux /proc/thread-self/schedstat) with
 * the whole process's (process.cpuUsage): the difference is V8's helper threads — concurrent
 * TurboFan compilation, concurrent marking and parallel scavenges. CPU time, so valid on a loaded host.
 *
 *   npx tsx bench/jit-warmup.ts [runs per property per round=100] [rounds=6]
 *   node --no-concurrent-recompilation --import tsx bench/jit-warmup.ts   # compilation on this thread
 *   node --single-threaded-gc --import tsx bench/jit-warmup.ts            # GC on this thread
 */
import { readFileSync } from 'node:fs';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const threadCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const runs = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 6);
for (let round = 0; round < rounds; round++) {
  const thread0 = threadCpuMs();
  const process0 = processCpuMs();
  let n = 0;
  for (const def of PROPERTIES)
    n += (await fuzzProperty(def, { seed: round, runs, tails: ['fifo', 'random', 'pct'] })).runs;
  const mine = threadCpuMs() - thread0;
  const helpers = processCpuMs() - process0 - mine;
  console.log(
    `round ${round}: ${n} runs, this thread ${mine.toFixed(0)} ms CPU (${(mine / n).toFixed(2)} ms a run), ` +
      `helper threads ${helpers.toFixed(0)} ms (${((100 * helpers) / mine).toFixed(0)}% of this thread)`,
  );
}
