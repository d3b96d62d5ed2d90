/**
 * Prints, per raw-driver and consumer property, the share of runs (at the CI budget, or `--runs N`)
 * in which each attack, clock crossing, lifecycle follow-up and method race happened, and the
 * floors a property misses (src/fuzz/suites.ts `floors`), with the tails `npm test` uses. `npx tsx bench/frequencies.ts [--runs N]
 * [--seed S] [property...]`. Deterministic for a seed (no timing).
 */

import { floorGaps } from '../src/check/frequencies.ts';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const argv = process.argv.slice(2);
const flag = (name: string): number | undefined => {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  return v;
};
const runs = flag('--runs');
const seed = flag('--seed') ?? 0;
const only = argv;
for (const def of PROPERTIES) {
  if (only.length > 0 && !only.includes(def.id)) continue;
  const n = runs ?? def.ciRuns;
  const result = await fuzzProperty(def, { seed, runs: n, tails: ['fifo', 'random', 'pct'] });
  const f = result.frequencies;
  const shares = Object.entries(f.counts)
    .filter(([, c]) => c > 0)
    .map(([l, c]) => `${l}=${Math.round((100 * c) / f.runs)}%`);
  console.log(`${def.id} (${result.status}, ${f.runs} runs): ${shares.join(' ')}`);
  const gaps = floorGaps(f, def.floors ?? {});
  if (gaps.length > 0)
    console.log(
      `  BELOW FLOOR: ${gaps.map((g) => `${g.label} ${Math.round(g.share * 100)}%<${g.floor * 100}%`).join(', ')}`,
    );
}
