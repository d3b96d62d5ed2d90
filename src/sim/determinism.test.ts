import { describe, expect, it } from 'vitest';
import { busyWorld } from './testing.ts';

/** The determinism law (docs/design.md): same seed, same inputs, same code ⇒ the same trace hash. */
describe('determinism', () => {
  it('200 seeds of a busy scenario, run twice each, give identical trace hashes', async () => {
    const hashes = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const first = await busyWorld(seed).run();
      const second = await busyWorld(seed).run();
      expect(second.traceHash, `seed ${seed}`).toBe(first.traceHash);
      expect(second.decisions).toEqual(first.decisions);
      hashes.add(first.traceHash);
    }
    // The scenario is busy enough that seeds explore different interleavings.
    expect(hashes.size).toBeGreaterThan(150);
  });

  it('a run is re-run bit for bit from (seed, replay of its decisions, faults)', async () => {
    for (const seed of [3, 17, 99]) {
      const original = busyWorld(seed, { kind: 'random' });
      const report = await original.run();
      const replay = await busyWorld(seed, { kind: 'replay', decisions: report.decisions }).run();
      expect(replay.traceHash).toBe(report.traceHash);
      expect(replay.steps).toBe(report.steps);
    }
  });

  it('pct runs are reproducible too', async () => {
    const a = await busyWorld(5, { kind: 'pct', depth: 3 }).run();
    const b = await busyWorld(5, { kind: 'pct', depth: 3 }).run();
    expect(b.traceHash).toBe(a.traceHash);
  });

  it('two worlds can run interleaved in one test without sharing state', async () => {
    const [a, b] = await Promise.all([busyWorld(8).run(), busyWorld(8).run()]);
    expect(a.traceHash).toBe(b.traceHash);
  });
});
