/**
 * The default campaign's runs per CPU-second in one process, start-up left out, in the checkout at
 * argv[2] (this one by default): every property of the fuzzed suites at its CI budget (seed 1)
 * untimed, so V8 optimises the path, then at its default budget (ciRuns × 5, seed 0: the runs of
 * `cetp-sim fuzz --workers 1`) timed by the process's CPU time (user + system, every thread). Prints
 * one JSON line with the total and each property's CPU ms.
 * bench/ab.ts runs it once per tree per round (the figure `campaign-rate`); alone it says which
 * property a change moved:
 *
 *   npx tsx bench/ab/campaign-rate.ts [root] [property,…]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const only = process.argv[3]?.split(',');

interface Def {
  readonly id: string;
  readonly ciRuns: number;
}
const { PROPERTIES } = (await import(pathToFileURL(resolve(root, 'src/fuzz/suites.ts')).href)) as {
  PROPERTIES: readonly Def[];
};
const { fuzzProperty } = (await import(pathToFileURL(resolve(root, 'src/fuzz/fuzz.ts')).href)) as {
  fuzzProperty: (def: Def, options: { seed: number; runs: number }) => Promise<{ runs: number }>;
};
const defs = PROPERTIES.filter((d) => only === undefined || only.includes(d.id));

async function campaign(
  timed: boolean,
): Promise<{ runs: number; cpuMs: number; byProperty: Record<string, number> }> {
  const byProperty: Record<string, number> = {};
  let runs = 0;
  let cpuMs = 0;
  for (const def of defs) {
    const before = process.cpuUsage();
    const result = await fuzzProperty(
      def,
      timed ? { seed: 0, runs: def.ciRuns * 5 } : { seed: 1, runs: def.ciRuns },
    );
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    runs += result.runs;
    cpuMs += ms;
    if (timed) byProperty[def.id] = Math.round(ms);
  }
  return { runs, cpuMs, byProperty };
}

await campaign(false);
const { runs, cpuMs, byProperty } = await campaign(true);
console.log(
  JSON.stringify({
    root,
    runs,
    cpuMs: Math.round(cpuMs),
    runsPerCpuSecond: runs / (cpuMs / 1000),
    byProperty,
  }),
);
