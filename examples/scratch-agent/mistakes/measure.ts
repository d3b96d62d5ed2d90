/**
 * Fuzzes every mistake of the catalogue with the consumer-driven properties at their CI budgets,
 * over several campaign seeds, and prints which oracle caught it, in how many of the seeds, and
 * after how many runs (the table in docs/consumer-mistakes.md):
 *
 *   npx tsx examples/scratch-agent/mistakes/measure.ts [--seeds N] [--id MISTAKE…]
 */
import { fuzzConsumer } from '../../../src/index.ts';
import { MISTAKES } from './catalogue.ts';
import { removeVariants, writeVariant } from './variant.ts';

const args = process.argv.slice(2);
const seedsAt = args.indexOf('--seeds');
const seeds = seedsAt >= 0 ? Number(args[seedsAt + 1]) : 3;
const ids = args.includes('--id') ? args.slice(args.indexOf('--id') + 1) : null;

console.log(
  '| mistake | expected oracle | caught (seeds) | runs to failure (per seed) | oracles that fired |',
);
console.log('|---|---|---|---|---|');
for (const mistake of MISTAKES.filter((m) => ids === null || ids.includes(m.id))) {
  const { consumer } = (await import(writeVariant(mistake))) as {
    consumer: Parameters<typeof fuzzConsumer>[0];
  };
  let caught = 0;
  const runs: string[] = [];
  const fired = new Set<string>();
  for (let seed = 0; seed < seeds; seed++) {
    const report = await fuzzConsumer(consumer, { seed, replayDir: null });
    const failed = report.properties.filter((p) => p.status === 'failed');
    if (failed.length > 0) caught++;
    runs.push(failed.map((p) => `${p.id} ${p.failure?.runsToFailure ?? '?'}`).join(', ') || '—');
    for (const p of failed) for (const v of p.violations) fired.add(v.checker);
  }
  console.log(
    `| \`${mistake.id}\` | ${mistake.oracle ?? '(none)'} | ${caught}/${seeds} | ${runs.join('; ')} | ${[...fired].join(', ') || '—'} |`,
  );
}
removeVariants(); // the patched copies this script wrote
