/**
 * The inline path of two checkouts side by side, against the same floor, in one process (issue 18,
 * part 1: a change to the inline path must show its effect on a loaded host). Each round runs, for
 * each checkout in alternating order, a batch of calls through its boundary world (bench/boundary/
 * world.ts: SDK render, Binder, consumer parse and validation), and a batch of this checkout's floor
 * (cost.ts: JSON.stringify + one copy + JSON.parse) for the same value. Each batch is timed by the
 * process's CPU time (`process.cpuUsage`), which a loaded host descheduling the process does not
 * inflate. Prints, per checkout, the median µs per call and the median ratio to the floor.
 *
 *   npx tsx bench/boundary/ab-inline.ts <base checkout> <after checkout> [KiB=64] [rounds=30] [calls=100]
 *
 * A checkout is a directory with this repository's sources (`git archive <ref> | tar -x -C dir`,
 * with node_modules linked in).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from '../harness.ts';
import { statementOfSize } from './payload.ts';

type WorldModule = typeof import('./world.ts');

async function load(dir: string): Promise<WorldModule> {
  return (await import(pathToFileURL(resolve(dir, 'bench/boundary/world.ts')).href)) as WorldModule;
}

const [baseDir, afterDir, kibArg, roundsArg, callsArg] = process.argv.slice(2);
if (!baseDir || !afterDir) {
  console.error('usage: npx tsx bench/boundary/ab-inline.ts <base> <after> [KiB] [rounds] [calls]');
  process.exit(2);
}
const kib = Number(kibArg ?? 64);
const rounds = Number(roundsArg ?? 30);
const calls = Number(callsArg ?? 100);
const value = statementOfSize(kib * 1024);

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** µs of CPU per call, `calls` calls through one checkout's path (in a fresh world; the JIT stays warm). */
async function pathBatch(world: WorldModule): Promise<number> {
  const w = world.boundaryWorld(value);
  let micros = 0;
  await world.runInConsumer(w, async (bridge) => {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++)
      world.expectOk(await bridge.execute(world.TEST_PACKAGE, world.EXPORT_TOOL, {}), 'export');
    micros = cpuMicros(before);
  });
  return micros / calls;
}

let sink = 0;
function floorBatch(): number {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const text = JSON.stringify(value);
    sink += Buffer.from(text, 'utf8').length;
    sink += (JSON.parse(text) as unknown[]) === null ? 1 : 0;
  }
  return cpuMicros(before) / calls;
}

const sides: [string, WorldModule][] = [
  ['base', await load(baseDir)],
  ['after', await load(afterDir)],
];
const us: Record<string, number[]> = { base: [], after: [], floor: [] };
const ratio: Record<string, number[]> = { base: [], after: [] };
for (let i = 0; i < 3; i++) for (const [, world] of sides) await pathBatch(world); // warm-up
for (let round = 0; round < rounds; round++) {
  const floorBefore = floorBatch();
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  const batch: Record<string, number> = {};
  for (const [name, world] of order) batch[name] = await pathBatch(world);
  const floor = (floorBefore + floorBatch()) / 2;
  us.floor?.push(floor);
  for (const [name] of sides) {
    us[name]?.push(batch[name] ?? 0);
    ratio[name]?.push((batch[name] ?? 0) / floor);
  }
}
if (sink < 0) throw new Error('unreachable');
const r2 = (x: number) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    kib,
    rounds,
    calls,
    microsPerCall: {
      base: Math.round(median(us.base ?? [])),
      after: Math.round(median(us.after ?? [])),
      floor: Math.round(median(us.floor ?? [])),
    },
    ratioToFloor: { base: r2(median(ratio.base ?? [])), after: r2(median(ratio.after ?? [])) },
  }),
);
