import { describe, expect, it } from 'vitest';
import { median, roundsFigure } from '../bench/harness.ts';

const CASE = { name: 'scenario run', unit: 'runs/s', target: 2_000 } as const;
const rounds = (...pairs: [number, number][]) =>
  pairs.map(([value, hostProbe]) => ({ value, perCpuSecond: value, hostProbe }));

describe('bench harness: a case measured in rounds', () => {
  it('takes the middle of an odd number of values and the mean of the middle two of an even number', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('judges the target on the median round, not on the fastest or the mean', () => {
    // Mean 2,050 and fastest 2,600 would pass; the median round (1,900) does not.
    const f = roundsFigure(CASE, rounds([1_900, 800_000], [1_850, 790_000], [2_600, 810_000]));
    expect(f.value).toBe(1_900);
    expect(f.meetsTarget).toBe(false);
    expect(f.samples).toBe(3);
    expect(roundsFigure(CASE, rounds([2_000, 1], [2_100, 1])).meetsTarget).toBe(true);
  });

  it('records every round and the host probe against the quiet reference', () => {
    const measured = rounds([2_500, 400_000], [2_400, 420_000], [2_450, 380_000]);
    const f = roundsFigure(CASE, measured, 800_000);
    expect(f.rounds).toEqual(measured);
    expect(f.hostProbe).toEqual({ median: 400_000, quietReference: 800_000, ratio: 0.5 });
    expect(f.rme).toBeGreaterThan(0);
  });

  it('has no target verdict for a case without a target, and refuses an empty measurement', () => {
    expect(roundsFigure({ name: 'x', unit: 'u' }, rounds([5, 5])).meetsTarget).toBeNull();
    expect(() => roundsFigure(CASE, [])).toThrow(/no rounds/);
  });
});
