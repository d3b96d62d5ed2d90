/**
 * The inline path against its floors at a few sizes, as `npm run bench -- boundary` measures them
 * (each size in fresh processes, isolated.ts; floors interleaved with the path in each), without the
 * rest of the suite (issue 18, part 1). Wall time; on a loaded host compare the ratios, not the ms.
 *
 *   npx tsx bench/boundary/ratio.ts [KiB …]        default: 16 64 128 192
 */

import { measureCostIsolated } from './isolated.ts';
import { KIB } from './payload.ts';

const PROCESSES = 5;
const sizes = process.argv.slice(2).map(Number);
const kibs = sizes.length > 0 ? sizes : [16, 64, 128, 192];
const points = measureCostIsolated(
  kibs.map((k) => k * KIB),
  PROCESSES,
  4_000,
  (p, round) =>
    console.log(
      `[${round + 1}/${PROCESSES}] ${String(p.sizeBytes / KIB).padStart(4)} KiB ${p.path}: path ${p.pathMs} ms, floor ${p.floorMs} ms, full floor ${p.fullFloorMs} ms → ×${p.ratio} (×${p.fullRatio} of the full floor), ${p.samples} samples`,
    ),
);
for (const p of points)
  console.log(
    `${String(p.sizeBytes / KIB).padStart(4)} KiB: median ×${p.ratio} (${p.ratios.join(', ')}), full floor ×${p.fullRatio}`,
  );
