/**
 * One size's inline calls, over and over, for a CPU profile of the path (issue 18, part 1: what of
 * a 64 KiB call is not proportional to its bytes):
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/boundary/profile-inline.ts [KiB] [calls]
 *
 * Prints the median wall ms per call after the warm-up. Not part of `npm run bench`.
 */
import { statementOfSize } from './payload.ts';
import { boundaryWorld, EXPORT_TOOL, expectOk, runInConsumer, TEST_PACKAGE } from './world.ts';

const kib = Number(process.argv[2] ?? 64);
const calls = Number(process.argv[3] ?? 400);
const world = boundaryWorld(statementOfSize(kib * 1024));
const times: number[] = [];
await runInConsumer(world, async (bridge) => {
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    expectOk(await bridge.execute(TEST_PACKAGE, EXPORT_TOOL, {}), 'export');
    if (i >= 20) times.push(performance.now() - started);
  }
});
times.sort((a, b) => a - b);
console.log(
  `${kib} KiB inline: median ${times[Math.floor(times.length / 2)]?.toFixed(3)} ms per call over ${times.length} calls`,
);
