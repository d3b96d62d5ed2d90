/**
 * The zoo's slice in `npm test` (the full sweep is `cetp-sim zoo`, figures in docs/zoo.md):
 * generated correct apps must pass every property (a failure is a false alarm of
 * an oracle, or a generator bug), and each mistake an oracle catches today must be caught on the
 * first app it fits. Generation is deterministic and per app.
 */
import { describe, expect, it } from 'vitest';
import { PROPERTY_CATALOGUE } from '../index.ts';
import { buildApp } from './build.ts';
import { generateApp, generateApps } from './generate.ts';
import { MISTAKES, mistakeById } from './mistakes.ts';
import { huntMistake, runZoo } from './run.ts';
import { isRead } from './spec.ts';

const SEED = 1;
/** Apps per mistake in the slice. */
const SLICE = 2;
/**
 * `npm run campaign:long` fuzzes the correct apps at each property's CI budget; `npm test` runs each
 * campaign's first 13 runs (run i is drawn from (seed, i) alone: the long campaign's first runs).
 */
const LONG = process.env.CETP_SIM_CAMPAIGN === 'long';
const CORRECT_RUNS = LONG ? {} : { runs: 13 };

describe('zoo generator', () => {
  it('app i depends on (seed, i) only, and the apps vary', () => {
    expect(generateApp(SEED, 5)).toEqual(generateApps(SEED, 8)[5]);
    const apps = generateApps(SEED, 40);
    const tools = apps.flatMap((a) => a.tools);
    expect(new Set(tools.map((t) => t.confirmation))).toEqual(
      new Set(['never', 'always', 'provider_policy']),
    );
    expect(tools.some((t) => t.async)).toBe(true);
    // Async writes whose long part never asks whether it was cancelled are correct (docs/zoo.md,
    // "Cancellation"): the slice's two apps have one, so a false alarm on them fails npm test.
    expect(tools.some((t) => t.async && t.asksCancel)).toBe(true);
    for (const i of [0, 1]) expect(apps[i]?.tools.some((t) => t.async && !t.asksCancel)).toBe(true);
    expect(new Set(apps.map((a) => a.auth)).size).toBe(3);
    expect(new Set(apps.map((a) => a.entity.ids)).size).toBe(2);
    expect(apps.some((a) => a.entity.fields.some((f) => f.type === 'object' && f.optional))).toBe(true);
  });

  it('every generated app is served whole: no tool disabled at start-up', () => {
    for (const spec of generateApps(SEED, 40)) {
      const app = buildApp(spec);
      expect(app.defined.listTools().map((t) => t.name)).toEqual(Object.keys(app.fixture.tools));
    }
  });

  it('the catalogue has at least 20 mistakes, each applying to some generated app', () => {
    const apps = generateApps(SEED, 20);
    expect(MISTAKES.length).toBeGreaterThanOrEqual(20);
    for (const m of MISTAKES)
      expect(
        apps.some((a) => m.applies(a)),
        m.id,
      ).toBe(true);
  });
});

describe('zoo slice', () => {
  it('correct apps pass every property (13 runs each; the CI budget in campaign:long) (0 false alarms)', async () => {
    const report = await runZoo({ apps: 2, seed: SEED, out: null, ...CORRECT_RUNS });
    expect(report.falseAlarms.map((a) => `${a.app} ${a.property} ${a.checkers.join('+')}`)).toEqual([]);
    expect(Object.keys(report.verdicts[0]?.statuses ?? {})).toEqual(PROPERTY_CATALOGUE.map((p) => p.id));
    expect(report.verdicts.flatMap((v) => v.modelProblems)).toEqual([]);
  }, 300_000);

  it("a read through a file result is judged: another caller's rows in an export's file", async () => {
    // App 2 reads only by export (a file result): the history holds the JSON behind its descriptor.
    const spec = generateApp(SEED, 2);
    expect(spec.tools.filter((t) => isRead(t.kind)).map((t) => t.kind)).toEqual(['export']);
    const mistake = mistakeById('no-owner-filter');
    if (!mistake) throw new Error('no-owner-filter is in the catalogue');
    const by = await huntMistake({ apps: 0, seed: SEED }, spec, mistake, ['confirmation']);
    expect(by).toBe('confirmation/invariant:reads-own-rows');
  }, 120_000);

  const caught = MISTAKES.filter((m) => m.floor > 0);
  it.each(caught.map((m) => [m.id, m]))(
    'mistake %s is caught at its floor on the first apps it fits',
    async (_, mistake) => {
      const specs = generateApps(SEED, 20)
        .filter((a) => mistake.applies(a))
        .slice(0, SLICE);
      const by = [];
      // Not shrunk: whether the property fails is what the floor asks (the first failing run is the
      // same with or without shrinking; a shrink only re-runs variations of it).
      for (const spec of specs)
        by.push(await huntMistake({ apps: 0, seed: SEED, shrink: false }, spec, mistake, mistake.killers));
      const caughtShare = by.filter((b) => b !== null).length / SLICE;
      expect(caughtShare, `${mistake.id}: ${JSON.stringify(by)}`).toBeGreaterThanOrEqual(mistake.floor);
    },
    120_000,
  );
});
