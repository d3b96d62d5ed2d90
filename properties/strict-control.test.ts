/**
 * Found run (issue #14, control suite): the strict control — a provider that refuses another UID's
 * session token as INVALID_REQUEST, the legal NOTES 8a reading — failed `identity` at seed 0, run 119
 * of 150, on operations-terminate: the raw driver's settle phase gave up polling its operation on
 * INVALID_REQUEST instead of renegotiating, so the oracle judged what the driver abandoned. The driver
 * now renegotiates once (properties/scenario/driver.ts settle); without that this test fails.
 */
import { describe, expect, it } from 'vitest';
import { runControl } from './controls/controls.ts';

describe('found run: a foreign session refused as INVALID_REQUEST (NOTES 8a)', () => {
  it('CETP-4.4-04 CETP-4.4-16: identity at seed 0, 150 runs, passes against the strict control', async () => {
    const verdicts = await runControl(
      { provider: 'properties/controls/strict.provider.ts' },
      { seed: 0, runs: (def) => (def.id === 'identity' ? 150 : 1), cwd: process.cwd() },
    );
    expect(verdicts.find((v) => v.property === 'identity')).toMatchObject({ status: 'passed' });
  });
});
