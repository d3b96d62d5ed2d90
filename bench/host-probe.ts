/**
 * A host-speed probe: a fixed workload that uses no cetp-sim code, timed next to a benchmark so a
 * reader can tell a slow host from slow code. This host is a shared VM whose speed swings by up to 2×
 * for minutes at a time with no steal time reported; the probe, run in the same process between a
 * benchmark's rounds, shows whether the CPU was slow while the rounds ran.
 *
 * The workload has the same character as a scenario run — small objects, JSON text both ways, Map
 * churn, short strings, a promise hop every few items — not a pure arithmetic loop.
 */

/**
 * Probe items per second on the machine the committed results were recorded on (AMD EPYC, 2 cores,
 * Node 20.20.2), in a quiet stretch (one-second probes between scenario rounds, 2026-12-02 ~22:00
 * UTC, pinned to one core or not: 770,000 – 845,000). On another machine the ratio only says how that
 * machine compares. What the probe tracks is a slower CPU — in a slow stretch of this host it read
 * 0.61× while the scenario rate fell to 0.56× of its quiet figure — but it moves little when a
 * neighbour competes for caches and memory (another busy process on the second core took 3 – 6% off
 * the probe and 10 – 25% off the scenario).
 */
export const QUIET_PROBE_RATE = 800_000;

const BATCH = 2_000;

/** One batch of probe items; returns a checksum so no work can be optimised away. */
async function batch(offset: number): Promise<number> {
  let sum = 0;
  const seen = new Map<string, { a: number; b: string; c: unknown[] }>();
  for (let i = 0; i < BATCH; i++) {
    const n = offset + i;
    const text = JSON.stringify({ a: n, b: `item-${n}`, c: [n, n + 1, { d: n % 7 }] });
    const value = JSON.parse(text) as { a: number; b: string; c: unknown[] };
    seen.set(value.b, value);
    sum += value.c.length + (seen.get(`item-${n - 1}`)?.a ?? 0);
    if (i % 20 === 0) await Promise.resolve();
  }
  return sum + seen.size;
}

/** Runs the probe for at least `ms` and returns its rate in items per second. */
export async function probeHost(ms = 250): Promise<number> {
  const started = performance.now();
  let items = 0;
  let checksum = 0;
  while (performance.now() - started < ms) {
    checksum += await batch(items);
    items += BATCH;
  }
  const elapsed = performance.now() - started;
  if (checksum < 0) throw new Error('unreachable: the probe checksum is a sum of non-negative numbers');
  return (items * 1000) / elapsed;
}
