/**
 * Witnesses of floors missed (floor-witness.ts): a campaign too short to reach its property's floors
 * carries, per floor missed, the run that came closest (or the shortest that reached the label), and
 * that run's replay reproduces its trace and the verdict; a campaign that meets a floor carries none.
 */
import { describe, expect, it } from 'vitest';
import { runLabels } from '../check/frequencies.ts';
import { FLOOR_NOT_MET, FloorWitnesses, floorViolation, nearness } from './floor-witness.ts';
import { fuzzProperty, replayScenario } from './fuzz.ts';
import { propertyById } from './suites.ts';

describe('floor witnesses', () => {
  it('measures how near a run came to a label', () => {
    const reached = new Set(['clock:session:before', 'after:restart:session', 'race:execute_tool+negotiate']);
    expect(nearness('clock:session:before', reached)).toEqual({ score: 4, nearest: 'clock:session:before' });
    expect(nearness('clock:session:after', reached)).toEqual({ score: 2, nearest: 'clock:session:before' });
    expect(nearness('after:restart:poll', reached)).toEqual({ score: 2, nearest: 'after:restart:session' });
    expect(nearness('race:execute_tool+get_operation', reached).nearest).toBe('race:execute_tool+negotiate');
    expect(nearness('attack:foreign-session', reached)).toEqual({ score: 0, nearest: null });
  });

  it('keeps the nearest run, then the shortest, and witnesses only the floors missed', () => {
    const w = new FloorWitnesses<string>({ 'clock:grant:after': 0.1, 'attack:foreign-session': 0.2 });
    w.addLabels('far', new Set(['clock:session:after']), 10);
    w.addLabels('near-long', new Set(['clock:grant:before']), 50);
    w.addLabels('near-short', new Set(['clock:grant:before']), 20);
    w.addLabels('reached-long', new Set(['attack:foreign-session']), 90);
    const counts = { 'clock:grant:after': 0, 'attack:foreign-session': 1 };
    const missed = w.missed({ runs: 10, counts });
    expect(missed.map((m) => [m.verdict.label, m.scenario])).toEqual([
      ['attack:foreign-session', 'reached-long'],
      ['clock:grant:after', 'near-short'],
    ]);
    // Met floors (2 of 10 runs ≥ 20%, 1 of 10 ≥ 10%): no witness, no verdict.
    expect(w.missed({ runs: 10, counts: { 'clock:grant:after': 1, 'attack:foreign-session': 2 } })).toEqual(
      [],
    );
  });

  it('says what the witness run shows, and fails to say "reached" of a run that did not reach it', () => {
    const v = { label: 'clock:grant:after', floor: 0.1, share: 0, count: 0, runs: 6 };
    expect(floorViolation(v, new Set(['clock:grant:after'])).message).toContain('this run reaches it');
    const near = floorViolation(v, new Set(['clock:grant:before'])).message;
    expect(near).toContain('came closest: it reaches clock:grant:before');
    expect(near).not.toContain('this run reaches it');
    expect(floorViolation(v, new Set()).message).toContain('reaches nothing near it');
  });

  it('a campaign below its floors carries one witness per floor missed, and each replay reproduces it', async () => {
    const def = propertyById('idempotency');
    if (!def) throw new Error('no idempotency property');
    const result = await fuzzProperty(def, { seed: 0, runs: 6, tails: ['fifo', 'random', 'pct'] });
    expect(result.status).toBe('passed');
    const witnesses = result.floorWitnesses ?? [];
    expect(witnesses.length).toBeGreaterThan(0);
    for (const replay of witnesses) {
      const floor = replay.floor;
      if (!floor) throw new Error('a floor witness without its floor');
      expect(floor.share).toBeLessThan(floor.floor);
      expect(replay.violations[0]?.checker).toBe(FLOOR_NOT_MET);
      const run = await replayScenario(def, replay);
      expect(run.report.traceHash).toBe(replay.traceHash);
      expect(run.violations[0]).toMatchObject({
        checker: FLOOR_NOT_MET,
        message: replay.violations[0]?.message,
      });
      // The witness is near the label: it reaches it or a label sharing its prefix.
      expect(nearness(floor.label, runLabels(run.observation, run.context)).score).toBeGreaterThan(0);
    }
  }, 120_000);
});
