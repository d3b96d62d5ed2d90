/**
 * Heap after a full GC as one property's campaign goes on (issue 18, part 3: a 10-minute
 * `fuzz --property malformed --time 600` reached 3.2 GB RSS). One line every `every` runs; a
 * campaign that holds nothing of its past runs stays flat after its first few hundred.
 *
 *   node --expose-gc --import tsx bench/memory-growth.ts [property=malformed] [runs=2000] [every=500]
 */
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const id = process.argv[2] ?? 'malformed';
const runs = Number(process.argv[3] ?? 2000);
const every = Number(process.argv[4] ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const def = PROPERTIES.find((p) => p.id === id);
if (!def) throw new Error(`no property ${id}`);
const started = performance.now();
await fuzzProperty(def, {
  seed: 1,
  runs,
  tails: ['fifo', 'random', 'pct'],
  probe: {
    started: (i) => {
      if (i % every !== 0) return;
      gc();
      const m = process.memoryUsage();
      console.log(
        `${id} run ${i}: heapUsed ${(m.heapUsed / 1e6).toFixed(1)} MB, rss ${(m.rss / 1e6).toFixed(0)} MB, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    },
  },
});
