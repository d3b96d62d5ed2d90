/**
 * One size's cost (cost.ts, measureCost) in a process of its own, for isolated.ts: prints one JSON
 * line (CostPoint) on stdout.
 *
 *   node --import tsx bench/boundary/cost-child.ts <sizeBytes> [msPerSize]
 */
import { DEFAULT_COST_BUDGET, measureCost } from './cost.ts';

const sizeBytes = Number(process.argv[2]);
const msPerSize = Number(process.argv[3] ?? DEFAULT_COST_BUDGET.msPerSize);
if (!Number.isInteger(sizeBytes) || sizeBytes <= 0 || !(msPerSize > 0)) {
  process.stderr.write('usage: cost-child.ts <sizeBytes> [msPerSize]\n');
  process.exit(2);
}
console.log(JSON.stringify(await measureCost(sizeBytes, { ...DEFAULT_COST_BUDGET, msPerSize })));
