/**
 * The inline path against its floors at a few sizes, measured side by side (interleaved samples in
 * one process), repeated: what `npm run bench -- boundary` records for these sizes, without the rest
 * of the suite (issue 18, part 1). Wall time; on a loaded host compare the ratios, not the ms.
 *
 *   npx tsx bench/boundary/ratio.ts [KiB …]        default: 16 64 128 192
 */
import { DEFAULT_COST_BUDGET, measureCost } from './cost.ts';

const sizes = process.argv.slice(2).map(Number);
const kibs = sizes.length > 0 ? sizes : [16, 64, 128, 192];
const budget = { ...DEFAULT_COST_BUDGET, maxSamples: 400, msPerSize: 4_000 };
for (let round = 0; round < 2; round++) {
  for (const kib of kibs) {
    const p = await measureCost(kib * 1024, budget);
    console.log(
      `${String(kib).padStart(4)} KiB ${p.path}: path ${p.pathMs} ms, floor ${p.floorMs} ms, full floor ${p.fullFloorMs} ms → ×${p.ratio} (×${p.fullRatio} of the full floor), ${p.samples} samples`,
    );
  }
}
