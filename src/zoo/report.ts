/**
 * The zoo's figures from its raw report (run.ts): false alarms over the correct apps, and per
 * mistake how many (app, mistake) pairs were caught, by which oracle, and which were missed with
 * what would be needed. Deterministic: ordered by app index and catalogue order, no time.
 */

import {
  type MistakeTally,
  mergeShards,
  pairFigures,
  ratio,
  tallyMistakes,
  vacuousPairs,
} from './kit/report.ts';
import { MISTAKES } from './mistakes.ts';
import type { FalseAlarm, ZooReport } from './run.ts';

export interface MistakeFigures extends MistakeTally {
  readonly id: string;
  readonly title: string;
  readonly needs: string;
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

export function summarize(report: ZooReport): ZooSummary {
  const mistakes = tallyMistakes(report.pairs, MISTAKES).map(
    ({ id, mistake: m, tally, missed }): MistakeFigures => ({
      id,
      title: m?.title ?? id,
      needs: m?.needs ?? '',
      ...tally,
      missedApps: missed.map((p) => p.app),
      missedModelSees: missed.filter((p) => p.modelSees === true).length,
    }),
  );
  const pairs = pairFigures(mistakes);
  const withModel = pairs.caught + mistakes.reduce((n, m) => n + m.missedModelSees, 0);
  const failedApps = new Set(report.falseAlarms.map((a) => a.app));
  return {
    seed: report.seed,
    runs: report.runs,
    properties: report.properties,
    apps: report.apps.length,
    appsPassed: report.apps.filter((a) => !failedApps.has(a)).length,
    vacuous: vacuousPairs(report.verdicts, 'app'),
    falseAlarms: report.falseAlarms,
    modelProblems: report.verdicts
      .filter((v) => v.modelProblems.length > 0)
      .map((v) => ({ app: v.app, problems: v.modelProblems })),
    belowFloor: report.verdicts
      .filter((v) => v.belowFloor.length > 0)
      .map((v) => ({ app: v.app, gaps: v.belowFloor })),
    mistakes,
    pairs: { ...pairs, withModel, rateWithModel: ratio(withModel, pairs.judged) },
  };
}

/** Joins the reports of shards of one zoo (same seed, properties and runs), in app order. */
export function mergeReports(reports: readonly ZooReport[]): ZooReport {
  return mergeShards(reports, 'apps', 'app', MISTAKES);
}
