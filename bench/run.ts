/**
 * Runs the benchmark suites and records their figures in bench/results/.
 *   npm run bench            all suites
 *   npm run bench -- kernel  one suite
 */

import { type BenchCase, printFigures, recordResults, runSuite } from './harness.ts';
import { kernelCases } from './kernel.bench.ts';

const suites: Record<string, BenchCase[]> = { kernel: kernelCases };

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in suites)) {
    console.error(`unknown suite "${name}"; suites: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
}
for (const [name, cases] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`suite ${name}`);
  const figures = await runSuite(name, cases);
  printFigures(figures);
  recordResults(new URL(`./results/${name}.json`, import.meta.url).pathname, name, figures);
}
