/**
 * Bug-finding power as a regression test (issue 22): for every planted provider bug, the runs its
 * killer properties need at campaign seed 0 to fail first (`cetp-sim mutants`' scenarios, without
 * shrinking: src/fuzz/depth.ts) stay within a committed bound. A generator change that dilutes the
 * moves a bug needs — as the clock and attack moves once diluted the retry, reuse and duplicate moves
 * (dedup-check-then-insert went from 27 runs at seed 0 to 276) — fails here. Counts, deterministic for
 * the seed: not a timing assertion.
 *
 * The bounds: for each bug, the 99th percentile of runs to first failure for a generator with the kill
 * rate measured on this one (p per run of its first killer, over 300 sampled runs: ln(100)/p), rounded
 * up to ten, and at least 20. So a generator change that keeps a bug's kill rate trips its bound with
 * probability about 1%; one that divides it by three, about 80%. Medians over ten seeds:
 * bench/mutant-depth.ts (bench/results/mutant-depth.json). When a change is meant to trade power for
 * something else, re-measure (`npx tsx bench/run.ts mutant-depth`) and change the bound in the same
 * commit, saying why.
 */
import { describe, expect, it } from 'vitest';
import { DEPTH_BOUNDS, depthOf } from '../src/fuzz/depth.ts';
import { type Mutant, PROVIDER_MUTANTS } from '../src/fuzz/mutants.ts';
import { propertyById, type RawPropertyDef } from '../src/fuzz/suites.ts';

describe('bug-finding depth: runs to the first failure at seed 0 stay within their bounds', () => {
  for (const mutant of PROVIDER_MUTANTS) {
    const bound = DEPTH_BOUNDS[mutant.id] ?? 0;
    it(`${mutant.id} is found by ${mutant.killers.join(' or ')} within ${bound} runs`, async () => {
      expect(bound, `no depth bound committed for ${mutant.id}`).toBeGreaterThan(0);
      const depth = await depthOf(mutant, 0, bound);
      expect(depth.runs, `${mutant.id} not found within ${bound} runs at seed 0`).not.toBeNull();
      expect(depth.runs).toBeLessThanOrEqual(bound);
    });
  }

  it('fails on a diluted generator: idempotency as it was with the clock moves in its core mix', async () => {
    // The shape the clocks branch gave idempotency: `cross` weighted 4 against execute's 6 in every
    // actor's commands, no retry/reuse/duplicate moves of its own (seed 0 then needed 276 runs).
    const def = propertyById('idempotency') as RawPropertyDef;
    const diluted: RawPropertyDef = {
      ...def,
      shape: {
        ...def.shape,
        commands: [...def.shape.commands, 'cross'],
        weights: { cross: 4 },
        extras: [
          ['cross', 'collide'],
          ['cross', 'cross'],
        ],
        extraPercent: 90,
      },
    };
    const mutant = PROVIDER_MUTANTS.find((m) => m.id === 'dedup-check-then-insert') as Mutant;
    const bound = DEPTH_BOUNDS['dedup-check-then-insert'] ?? 0;
    const original = propertyById;
    const depth = await depthOf(mutant, 0, bound, undefined, (id) =>
      id === 'idempotency' ? diluted : original(id),
    );
    expect(depth.runs).toBeNull();
  });
});
