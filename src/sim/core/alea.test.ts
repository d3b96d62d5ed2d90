import fc from 'fast-check';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { Alea } from './alea.ts';

/** seedrandom's alea is the reference: every seed, the same stream, bit for bit. */
function sameStream(seed: string, draws: number): void {
  const reference = seedrandom.alea(seed);
  const ours = new Alea(seed);
  for (let i = 0; i < draws; i++) expect(ours.next()).toBe(reference());
}

describe('Alea (the world PRNG, as seedrandom computes it)', () => {
  it('draws the same stream as seedrandom.alea for the seeds the world forks', () => {
    for (const seed of ['0', '1', '4294967295', '1/world', '7/world/com.example.alerts/process#3', ''])
      sameStream(seed, 2_000);
  });

  it('draws the same stream for any seed text (long, astral, control characters)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (seed) => sameStream(seed, 40)),
      { numRuns: 500 },
    );
  });

  it('keeps every draw in [0, 1)', () => {
    const a = new Alea('range');
    const outside: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      const x = a.next();
      if (!(x >= 0 && x < 1)) outside.push(x);
    }
    expect(outside).toEqual([]);
  });
});
