/**
 * A `--device-faults` campaign reaches the device behaviours of issue 35 often enough (the floors of
 * src/fuzz/suite-kit.ts DEVICE_FLOORS, reported by `fuzz --json` as `belowFloor`), counted from what
 * the runs' traces show — and the input ANR (a consumer asking on its main thread) is among them.
 * Deterministic for the seed: not a timing assertion.
 */
import { describe, expect, it } from 'vitest';
import { floorGaps } from '../src/check/frequencies.ts';
import { fuzzProperty } from '../src/fuzz/fuzz.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { withDeviceFloors } from '../src/fuzz/suite-kit.ts';
import { propertyById } from '../src/fuzz/suites.ts';

const DEVICE = { ...REFERENCE, deviceFaults: true };

function property(id: string) {
  const def = propertyById(id);
  if (!def) throw new Error(`property ${id} missing`);
  return withDeviceFloors(def);
}

describe('device-fault floors (issue 35)', () => {
  it('consumer: every device floor is reached, the input ANR of a main-thread call included', async () => {
    const def = property('consumer');
    expect(Object.keys(def.floors ?? {})).toContain('device:input-anr');
    const result = await fuzzProperty(def, { seed: 35, runs: 200, variant: DEVICE });
    expect(result.status).toBe('passed');
    expect(floorGaps(result.frequencies, def.floors ?? {})).toEqual([]);
  });

  it('without device faults the consumer never calls on its main thread: the ANR floor is missed', async () => {
    // The old model (the agent never asks on its main thread): no run meets the input ANR.
    const def = property('consumer');
    const result = await fuzzProperty(def, { seed: 35, runs: 60, variant: REFERENCE });
    expect(result.frequencies.counts['device:input-anr']).toBe(0);
    expect(floorGaps(result.frequencies, def.floors ?? {}).map((g) => g.label)).toContain('device:input-anr');
  });

  it('idempotency (a raw-driver property): deep sleep, the user away and a slow boot reach their floors', async () => {
    const def = property('idempotency');
    expect(def.floors).toMatchObject({ 'device:deep-sleep': 0.1 });
    const result = await fuzzProperty(def, { seed: 35, runs: 150, variant: DEVICE });
    expect(result.status).toBe('passed');
    expect(floorGaps(result.frequencies, def.floors ?? {})).toEqual([]);
  });

  it('a property without faults gets no device faults, and so no device floors', () => {
    const def = propertyById('hostile');
    expect(def && withDeviceFloors(def)).toBe(def);
  });
});
