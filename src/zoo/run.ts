/**
 * The zoo's runner: fuzzes each generated correct app with every property at the CI budget (the
 * public `fuzzProvider`, the CLI's engine) — any failure is a false alarm, recorded with the app's
 * description, property, checkers, seed and replay — then applies each mistake of the catalogue to
 * the apps it fits and fuzzes the changed app until a property catches it (its likely killers
 * first). A pair whose correct app failed is excluded (nothing can be said about it). Deterministic:
 * no time in the report, apps in index order.
 */

import { fileURLToPath } from 'node:url';
import { CliError, type FuzzOptions, fuzzProvider, PROPERTY_CATALOGUE } from '../index.ts';
import { buildApp } from './build.ts';
import { generateApp } from './generate.ts';
import * as kit from './kit/run.ts';
import { MISTAKES, type Mistake } from './mistakes.ts';
import { reachGaps } from './reach.ts';
import { runSession, sessionProblems } from './session.ts';
import { type AppSpec, namesOf } from './spec.ts';

export interface ZooOptions extends kit.ZooBaseOptions {
  readonly apps: number;
  /** Each mistake is applied to the first this-many apps it fits (default: every app). */
  readonly mistakeApps?: number;
}

export type FalseAlarm = kit.ZooFalseAlarm<'app', AppSpec>;

export type MistakePair = kit.ZooPair<'app'> & {
  /**
   * For a miss: whether the app's model and invariants (model.ts, which its fixture also carries into
   * every fuzz run), judging one scripted two-caller session on a device (session.ts), see the mistake
   * the fuzzing missed. Else null.
   */
  readonly modelSees: boolean | null;
};

export interface ZooReport {
  readonly seed: number;
  readonly apps: readonly number[];
  readonly properties: readonly string[];
  readonly runs: number | null;
  /** Per app: each property's status, and what its own model finds wrong in a scripted session (none expected). */
  readonly verdicts: readonly (kit.ZooVerdict<'app'> & {
    readonly modelProblems: readonly string[];
    /** Floors of the app's manifest variants its campaigns missed (reach.ts): none expected. */
    readonly belowFloor: readonly string[];
  })[];
  readonly falseAlarms: readonly FalseAlarm[];
  readonly pairs: readonly MistakePair[];
}

const ZOO_MODULE = fileURLToPath(
  new URL(`./module${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
);

async function fuzzCorrect(options: ZooOptions, spec: AppSpec, properties: readonly string[]) {
  const fixture = buildApp(spec).fixture;
  const subject = { kind: 'app', index: spec.index, modulePath: ZOO_MODULE, mistake: null } as const;
  const fuzz = (campaign: FuzzOptions) => fuzzProvider(fixture, campaign);
  const { report, statuses, failed } = await kit.fuzzCorrectSubject(options, properties, subject, fuzz);
  return {
    statuses,
    belowFloor: reachGaps(spec, report.properties),
    alarms: failed.map((p): FalseAlarm => ({ app: spec.index, ...kit.alarmFields(p), description: spec })),
  };
}

/** A checker's name without the app's: `model:zoo3` is `model`, `invariant:zoo3.x` is `invariant:x`. */
const generic = (checker: string) =>
  checker.replace(/^model:zoo\d+$/, 'model').replace(/^invariant:zoo\d+\./, 'invariant:');

/** Fuzzes `spec` with `mistake` applied, property by property (killers first), until one fails. */
export async function huntMistake(
  options: ZooOptions & kit.HuntOptions,
  spec: AppSpec,
  mistake: Mistake,
  properties: readonly string[],
): Promise<string | null> {
  const fixture = buildApp(spec, mistake.variation).fixture;
  return kit.huntMistakeWith(
    mistake.killers,
    properties,
    (property) => fuzzProvider(fixture, { property, ...kit.campaignBase(options), replayDir: null }),
    'fixture',
    generic,
  );
}

export async function runZoo(options: ZooOptions): Promise<ZooReport> {
  const properties = options.properties ?? PROPERTY_CATALOGUE.map((p) => p.id);
  const unknown = properties.filter((id) => !PROPERTY_CATALOGUE.some((p) => p.id === id));
  if (unknown.length > 0)
    throw new CliError(
      'invalid_option',
      `--property ${unknown.join(' ')}: no such property (see \`cetp-sim fuzz --help\`)`,
    );
  const mistakes = kit.namedMistakes(options.mistakes, MISTAKES, 'mistake');
  const apps = kit.subjectIndices(options, options.apps);
  const { verdicts, falseAlarms, failed } = await kit.judgeCorrectSubjects(
    options,
    'app',
    apps,
    async (index) => {
      const spec = generateApp(options.seed, index);
      const { statuses, alarms, belowFloor } = await fuzzCorrect(options, spec, properties);
      const modelProblems = sessionProblems(spec, await runSession(spec));
      return { verdict: { app: index, statuses, modelProblems, belowFloor }, alarms };
    },
  );
  const pairs: MistakePair[] = [];
  for (const mistake of mistakes) {
    const fits = apps
      .filter((i) => mistake.applies(generateApp(options.seed, i)))
      .slice(0, options.mistakeApps ?? apps.length);
    for (const index of fits) {
      if (failed.has(index)) {
        pairs.push({ app: index, mistake: mistake.id, verdict: 'excluded', by: null, modelSees: null });
        continue;
      }
      const spec = generateApp(options.seed, index);
      const by = await huntMistake(options, spec, mistake, properties);
      const modelSees =
        by === null ? sessionProblems(spec, await runSession(spec, mistake.variation)).length > 0 : null;
      pairs.push({
        app: index,
        mistake: mistake.id,
        verdict: by === null ? 'missed' : 'caught',
        by,
        modelSees,
      });
      options.onProgress?.(`app ${index} ${mistake.id}: ${by ?? 'MISSED'}`);
    }
  }
  return { seed: options.seed, apps, properties, runs: options.runs ?? null, verdicts, falseAlarms, pairs };
}

export { namesOf };
