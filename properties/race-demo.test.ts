import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RaceInput, raceProperty, runRace } from '../src/fuzz/race-demo.ts';

/**
 * Proof that the scheduler hunts races and that shrinking minimises the schedule: the decisions
 * and faults are fast-check input, so a failure shrinks to the minimal interleaving.
 */
describe('race hunting with a shrinkable schedule', () => {
  it('finds the check-then-insert double insert and shrinks it to a handful of decisions', async () => {
    const details = await fc.check(raceProperty(false), { seed: 42, numRuns: 300 });
    expect(details.failed).toBe(true);
    const [shrunk] = details.counterexample as [RaceInput];
    // Shrunk together: the faults disappear and the schedule is only the choices that matter.
    expect(shrunk.faults).toEqual([]);
    expect(shrunk.decisions.length).toBeGreaterThan(0);
    expect(shrunk.decisions.length).toBeLessThanOrEqual(6);
    // FIFO (an empty schedule) does not find it: the shrunk choices are what make the race.
    expect((await runRace({ decisions: [], faults: [] }, false)).inserts).toBe(1);
    const first = await runRace(shrunk, false);
    const again = await runRace(shrunk, false);
    expect(first.inserts).toBe(2);
    expect(again.traceHash).toBe(first.traceHash);
  });

  it('the same property holds for an atomic insert', async () => {
    const details = await fc.check(raceProperty(true), { seed: 42, numRuns: 300 });
    expect(details.failed).toBe(false);
  });
});
