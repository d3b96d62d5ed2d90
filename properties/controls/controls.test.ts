/**
 * The control suite's false-alarm rate is 0 at a CI budget: every property passes every
 * correct-but-unusual control (properties/controls/*) and every example module of the repo, each run
 * through the module loader users' modules go through. The rate is printed, then asserted.
 * Budget: twice each property's CI runs. At 1× the campaign-level tool-never-succeeds verdict fails
 * get_quote in `malformed` for the reference alerts app itself (26 executions, all malformed
 * envelopes or the pool's deliberately failing symbols DLST/NOPE): a verdict on too few runs, not on
 * the control; noted in the report of issue #14.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, type ControlVerdict, falseAlarmRate, runControl } from './controls.ts';

const verdicts: ControlVerdict[] = [];

describe('controls: correct-but-unusual implementations pass every property', () => {
  for (const control of CONTROLS) {
    const name = [control.provider, control.consumer].filter(Boolean).join(' + ');
    it(name, async () => {
      const mine = await runControl(control, { seed: 0, runs: (def) => def.ciRuns * 2, cwd: process.cwd() });
      verdicts.push(...mine);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.filter((v) => v.status !== 'passed')).toEqual([]);
    });
  }

  it('the false-alarm rate (controls failing / controls run) is 0', () => {
    const rate = falseAlarmRate(verdicts);
    console.log(`control suite: ${verdicts.length} (control, property) runs, false-alarm rate ${rate}`);
    expect(verdicts.length).toBeGreaterThan(0);
    expect(rate).toBe(0);
  });
});
