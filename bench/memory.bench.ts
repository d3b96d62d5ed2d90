/**
 * Memory over a long campaign: every property, round after round, with the heap measured after a
 * full GC at the end of each round. A long `cetp-sim fuzz --time …` must plateau, not grow with the
 * number of runs (an Ajv value-scope leak once made consumer campaigns grow ~60 KB per run).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export interface MemoryFigures {
  readonly rounds: number;
  readonly runsPerPropertyPerRound: number;
  /** heapUsed (MB) after a full GC, one value per round. */
  readonly heapMbByRound: readonly number[];
  /** Growth over the last third of the rounds (MB): after warm-up (bounded memos filling), ~0. */
  readonly lateGrowthMb: number;
}

export async function campaignMemory(rounds = 12, runs = 100): Promise<MemoryFigures> {
  const heapMbByRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const def of PROPERTIES)
      await fuzzProperty(def, { seed: round, runs, tails: ['fifo', 'random', 'pct'] });
    gc();
    heapMbByRound.push(Math.round(process.memoryUsage().heapUsed / 1e5) / 10);
  }
  const mid = heapMbByRound[Math.floor((rounds * 2) / 3)] ?? 0;
  const last = heapMbByRound.at(-1) ?? 0;
  return {
    rounds,
    runsPerPropertyPerRound: runs,
    heapMbByRound,
    lateGrowthMb: Math.round((last - mid) * 10) / 10,
  };
}
