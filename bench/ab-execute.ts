/**
 * Two checkouts' execute_tool round trips side by side, in one process (issue 16: the pipeline
 * must not make execute_tool slower). Each round runs the kernel suite's `executeRoundTrips` of
 * both checkouts, in alternating order, and times each by the process's CPU time — which a loaded
 * host descheduling this process does not inflate, unlike wall time. Prints the median rate of each
 * and the quartiles of the per-round ratio after ÷ base (1.0: the same).
 *
 *   npx tsx bench/ab-execute.ts <base checkout> <after checkout> [rounds=40] [calls per round=1000]
 *
 * A checkout is a directory with this repository's sources (`git archive <ref> | tar -x -C dir`,
 * with node_modules linked in).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type RoundTrips = (count: number) => Promise<void>;

async function load(dir: string): Promise<RoundTrips> {
  const url = pathToFileURL(resolve(dir, 'bench/kernel.bench.ts')).href;
  return ((await import(url)) as { executeRoundTrips: RoundTrips }).executeRoundTrips;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const [baseDir, afterDir, roundsArg, callsArg] = process.argv.slice(2);
if (!baseDir || !afterDir) {
  console.error('usage: npx tsx bench/ab-execute.ts <base checkout> <after checkout> [rounds] [calls]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 40);
const calls = Number(callsArg ?? 1000);
const sides: [string, RoundTrips][] = [
  ['base', await load(baseDir)],
  ['after', await load(afterDir)],
];
const rates: Record<string, number[]> = { base: [], after: [] };
for (let i = 0; i < 6; i++) for (const [, run] of sides) await run(calls); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of round % 2 === 0 ? sides : [...sides].reverse()) {
    const before = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(before);
    rates[name]?.push(calls / ((used.user + used.system) / 1e6));
  }
}
const base = rates.base ?? [];
const after = rates.after ?? [];
const ratios = base.map((b, i) => (after[i] ?? 0) / b).sort((a, b) => a - b);
const q = (p: number) => Number((ratios[Math.floor(p * (ratios.length - 1))] ?? 0).toFixed(3));
console.log(
  JSON.stringify({
    executionsPerCpuSecond: { base: Math.round(median(base)), after: Math.round(median(after)) },
    ratioAfterOverBase: { q1: q(0.25), median: q(0.5), q3: q(0.75) },
    rounds,
    calls,
  }),
);
