/**
 * The zoo's figures from its raw report (run.ts): false alarms over the correct apps, and per
 * mistake how many (app, mistake) pairs were caught, by which oracle, and which were missed with
 * what would be needed. Deterministic: ordered by app index and catalogue order, no time.
 */
import { MISTAKES } from './mistakes.ts';
import type { FalseAlarm, MistakePair, ZooReport } from './run.ts';

export interface MistakeFigures {
  readonly id: string;
  readonly title: string;
  readonly needs: string;
  readonly applied: number;
  readonly caught: number;
  readonly missed: number;
  readonly excluded: number;
  /** Caught / (caught + missed), or null when nothing was judged. */
  readonly rate: number | null;
  /** How many pairs each `property/checker` (or `fixture:<code>`) caught. */
  readonly by: Readonly<Record<string, number>>;
  readonly missedApps: readonly number[];
  /** Of the misses, how many the app's model and invariants see in the scripted session (session.ts). */
  readonly missedModelSees: number;
}

export interface ZooSummary {
  readonly seed: number;
  readonly runs: number | null;
  readonly properties: readonly string[];
  readonly apps: number;
  readonly appsPassed: number;
  /** (app, property) pairs that exercised nothing of the app (not failures, but worth knowing). */
  readonly vacuous: readonly { readonly app: number; readonly property: string }[];
  readonly falseAlarms: readonly FalseAlarm[];
  /** Correct apps whose own model or invariants failed in a scripted session (a model bug): none expected. */
  readonly modelProblems: readonly { readonly app: number; readonly problems: readonly string[] }[];
  /** Apps whose campaigns missed a floor of their manifest variants (reach.ts): none expected. */
  readonly belowFloor: readonly { readonly app: number; readonly gaps: readonly string[] }[];
  readonly mistakes: readonly MistakeFigures[];
  readonly pairs: {
    readonly judged: number;
    readonly caught: number;
    readonly rate: number | null;
    /** Caught, or missed by the fuzzing but seen by the app's model and invariants in the scripted session. */
    readonly withModel: number;
    readonly rateWithModel: number | null;
  };
}

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);

/** Joins the reports of shards of one zoo (same seed, properties and runs), in app order. */
export function mergeReports(reports: readonly ZooReport[]): ZooReport {
  const [first] = reports;
  if (!first) throw new Error('no reports to merge');
  const byApp = <T extends { app: number }>(xs: T[]) => xs.sort((a, b) => a.app - b.app);
  const order = new Map(MISTAKES.map((m, i) => [m.id, i]));
  return {
    ...first,
    apps: reports.flatMap((r) => r.apps).sort((a, b) => a - b),
    verdicts: byApp(reports.flatMap((r) => [...r.verdicts])),
    falseAlarms: byApp(reports.flatMap((r) => [...r.falseAlarms])),
    pairs: reports
      .flatMap((r) => [...r.pairs])
      .sort((a, b) => (order.get(a.mistake) ?? 0) - (order.get(b.mistake) ?? 0) || a.app - b.app),
  };
}

function figuresOf(id: string, pairs: readonly MistakePair[]): MistakeFigures {
  const m = MISTAKES.find((x) => x.id === id);
  const mine = pairs.filter((p) => p.mistake === id);
  const caught = mine.filter((p) => p.verdict === 'caught');
  const missed = mine.filter((p) => p.verdict === 'missed');
  const by: Record<string, number> = {};
  for (const p of caught) if (p.by !== null) by[p.by] = (by[p.by] ?? 0) + 1;
  return {
    id,
    title: m?.title ?? id,
    needs: m?.needs ?? '',
    applied: mine.length,
    caught: caught.length,
    missed: missed.length,
    excluded: mine.length - caught.length - missed.length,
    rate: ratio(caught.length, caught.length + missed.length),
    by: Object.fromEntries(Object.entries(by).sort(([a], [b]) => (a < b ? -1 : 1))),
    missedApps: missed.map((p) => p.app),
    missedModelSees: missed.filter((p) => p.modelSees === true).length,
  };
}

export function summarize(report: ZooReport): ZooSummary {
  const ids = [...new Set(report.pairs.map((p) => p.mistake))];
  const mistakes = ids.map((id) => figuresOf(id, report.pairs));
  const judged = mistakes.reduce((n, m) => n + m.caught + m.missed, 0);
  const caught = mistakes.reduce((n, m) => n + m.caught, 0);
  const withModel = caught + mistakes.reduce((n, m) => n + m.missedModelSees, 0);
  const vacuous = report.verdicts.flatMap((v) =>
    Object.entries(v.statuses)
      .filter(([, s]) => s === 'vacuous')
      .map(([property]) => ({ app: v.app, property })),
  );
  const failedApps = new Set(report.falseAlarms.map((a) => a.app));
  return {
    seed: report.seed,
    runs: report.runs,
    properties: report.properties,
    apps: report.apps.length,
    appsPassed: report.apps.filter((a) => !failedApps.has(a)).length,
    vacuous,
    falseAlarms: report.falseAlarms,
    modelProblems: report.verdicts
      .filter((v) => v.modelProblems.length > 0)
      .map((v) => ({ app: v.app, problems: v.modelProblems })),
    belowFloor: report.verdicts
      .filter((v) => v.belowFloor.length > 0)
      .map((v) => ({ app: v.app, gaps: v.belowFloor })),
    mistakes,
    pairs: {
      judged,
      caught,
      rate: ratio(caught, judged),
      withModel,
      rateWithModel: ratio(withModel, judged),
    },
  };
}
