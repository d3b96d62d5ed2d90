/**
 * The zoo's runner: fuzzes each generated correct app with every property at the CI budget (the
 * public `fuzzProvider`, the CLI's engine) — any failure is a false alarm, recorded with the app's
 * description, property, checkers, seed and replay — then applies each mistake of the catalogue to
 * the apps it fits and fuzzes the changed app until a property catches it (its likely killers
 * first). A pair whose correct app failed is excluded (nothing can be said about it). Deterministic:
 * no time in the report, apps in index order.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, fuzzProvider, PROPERTY_CATALOGUE, type PropertyReport } from '../index.ts';
import type { AndroidRelease } from '../sim/core/release.ts';
import { buildApp } from './build.ts';
import { generateApp } from './generate.ts';
import { MISTAKES, type Mistake } from './mistakes.ts';
import { zooModuleText } from './module.ts';
import { reachGaps } from './reach.ts';
import { runSession, sessionProblems } from './session.ts';
import { type AppSpec, namesOf } from './spec.ts';

export interface ZooOptions {
  readonly apps: number;
  /** The first app's index (default 0): apps `from … from+apps-1`. */
  readonly from?: number;
  readonly seed: number;
  /** Property ids (default: every property). */
  readonly properties?: readonly string[];
  /** Runs per property (default: each property's CI budget). */
  readonly runs?: number;
  /** Mistake ids to apply (default none; `true`: every mistake). */
  readonly mistakes?: boolean | readonly string[];
  /** Each mistake is applied to the first this-many apps it fits (default: every app). */
  readonly mistakeApps?: number;
  /** Where replay files and provider modules go (relative to `cwd`); null: none. */
  readonly out?: string | null;
  readonly cwd?: string;
  /** Only the apps whose index is `index` modulo `count`. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** Progress, one line per app or pair. */
  readonly onProgress?: (line: string) => void;
  /** The Android release profile the campaigns run (`--android`; src/sim/core/release.ts); absent: the default. */
  readonly android?: AndroidRelease;
}

export interface FalseAlarm {
  readonly app: number;
  readonly property: string;
  readonly checkers: readonly string[];
  readonly messages: readonly string[];
  readonly seed: number;
  readonly path: string | null;
  readonly replay: string | null;
  readonly replayCommand: string | null;
  readonly description: AppSpec;
}

export interface MistakePair {
  readonly app: number;
  readonly mistake: string;
  /** `caught`, `missed`, or `excluded` (the correct app itself failed). */
  readonly verdict: 'caught' | 'missed' | 'excluded';
  /** `property/checker`, or `fixture:<code>` when the fixture was refused. */
  readonly by: string | null;
  /**
   * For a miss: whether the app's model and invariants (model.ts, which its fixture also carries into
   * every fuzz run), judging one scripted two-caller session on a device (session.ts), see the mistake
   * the fuzzing missed. Else null.
   */
  readonly modelSees: boolean | null;
}

export interface ZooReport {
  readonly seed: number;
  readonly apps: readonly number[];
  readonly properties: readonly string[];
  readonly runs: number | null;
  /** Per app: each property's status, and what its own model finds wrong in a scripted session (none expected). */
  readonly verdicts: readonly {
    readonly app: number;
    readonly statuses: Readonly<Record<string, string>>;
    readonly modelProblems: readonly string[];
    /** Floors of the app's manifest variants its campaigns missed (reach.ts): none expected. */
    readonly belowFloor: readonly string[];
  }[];
  readonly falseAlarms: readonly FalseAlarm[];
  readonly pairs: readonly MistakePair[];
}

const ZOO_MODULE = fileURLToPath(
  new URL(`./module${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
);

function appIndices(options: ZooOptions): number[] {
  const all = Array.from({ length: options.apps }, (_, i) => (options.from ?? 0) + i);
  const shard = options.shard;
  return shard ? all.filter((i) => i % shard.count === shard.index) : all;
}

/** Writes the provider module of an app (and mistake) under `out`; its path relative to `cwd`. */
function writeModule(options: ZooOptions, index: number, mistake: string | null): string | undefined {
  if (options.out === null || options.out === undefined) return undefined;
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.out);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `app${index}${mistake ? `-${mistake}` : ''}.provider.ts`);
  writeFileSync(file, zooModuleText(ZOO_MODULE, options.seed, index, mistake));
  return file.startsWith(`${resolve(cwd)}/`) ? `./${file.slice(resolve(cwd).length + 1)}` : file;
}

function replayDirOf(options: ZooOptions, index: number, mistake: string | null): string | null {
  if (options.out === null || options.out === undefined) return null;
  return join(options.out, `app${index}${mistake ? `-${mistake}` : ''}`);
}

function alarmOf(spec: AppSpec, p: PropertyReport): FalseAlarm {
  return {
    app: spec.index,
    property: p.id,
    checkers: [...new Set(p.violations.map((v) => v.checker))].sort(),
    messages: p.violations.map((v) => v.message),
    seed: p.seed,
    path: p.failure?.path ?? null,
    replay: p.replay,
    replayCommand: p.replayCommand,
    description: spec,
  };
}

async function fuzzCorrect(options: ZooOptions, spec: AppSpec, properties: readonly string[]) {
  const app = buildApp(spec);
  const module = writeModule(options, spec.index, null);
  const report = await fuzzProvider(app.fixture, {
    property: properties,
    seed: options.seed,
    ...(options.android !== undefined ? { android: options.android } : {}),
    ...(options.runs !== undefined ? { runs: options.runs } : {}),
    replayDir: replayDirOf(options, spec.index, null),
    ...(module !== undefined ? { module } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  const statuses = Object.fromEntries(report.properties.map((p) => [p.id, p.status]));
  // The module is kept only for a false alarm (its replay command names it).
  if (module !== undefined && report.properties.every((p) => p.status !== 'failed'))
    rmSync(resolve(options.cwd ?? process.cwd(), module));
  return {
    statuses,
    belowFloor: reachGaps(spec, report.properties),
    alarms: report.properties.filter((p) => p.status === 'failed').map((p) => alarmOf(spec, p)),
  };
}

/** A checker's name without the app's: `model:zoo3` is `model`, `invariant:zoo3.x` is `invariant:x`. */
const generic = (checker: string) =>
  checker.replace(/^model:zoo\d+$/, 'model').replace(/^invariant:zoo\d+\./, 'invariant:');

/** Fuzzes `spec` with `mistake` applied, property by property (killers first), until one fails. */
export async function huntMistake(
  options: ZooOptions,
  spec: AppSpec,
  mistake: Mistake,
  properties: readonly string[],
): Promise<string | null> {
  const fixture = buildApp(spec, mistake.variation).fixture;
  const order = [
    ...mistake.killers.filter((k) => properties.includes(k)),
    ...properties.filter((p) => !mistake.killers.includes(p)),
  ];
  for (const property of order) {
    try {
      const report = await fuzzProvider(fixture, {
        property,
        seed: options.seed,
        ...(options.android !== undefined ? { android: options.android } : {}),
        ...(options.runs !== undefined ? { runs: options.runs } : {}),
        replayDir: null,
      });
      const failed = report.properties.find((p) => p.status === 'failed');
      if (failed)
        return `${property}/${[...new Set(failed.violations.map((v) => generic(v.checker)))].sort().join('+')}`;
    } catch (error) {
      if (error instanceof CliError) return `fixture:${error.code}`;
      throw error;
    }
  }
  return null;
}

function mistakesOf(option: ZooOptions['mistakes']): readonly Mistake[] {
  if (option === undefined || option === false) return [];
  if (option === true) return MISTAKES;
  return option.map((id) => {
    const m = MISTAKES.find((x) => x.id === id);
    if (!m) throw new CliError('invalid_option', `--mistake ${id}: no such mistake (see docs/zoo.md)`);
    return m;
  });
}

export async function runZoo(options: ZooOptions): Promise<ZooReport> {
  const properties = options.properties ?? PROPERTY_CATALOGUE.map((p) => p.id);
  const unknown = properties.filter((id) => !PROPERTY_CATALOGUE.some((p) => p.id === id));
  if (unknown.length > 0)
    throw new CliError(
      'invalid_option',
      `--property ${unknown.join(' ')}: no such property (see \`cetp-sim fuzz --help\`)`,
    );
  const mistakes = mistakesOf(options.mistakes);
  const apps = appIndices(options);
  const verdicts: ZooReport['verdicts'][number][] = [];
  const falseAlarms: FalseAlarm[] = [];
  const failedApps = new Set<number>();
  for (const index of apps) {
    const spec = generateApp(options.seed, index);
    const { statuses, alarms, belowFloor } = await fuzzCorrect(options, spec, properties);
    const modelProblems = sessionProblems(spec, await runSession(spec));
    verdicts.push({ app: index, statuses, modelProblems, belowFloor });
    falseAlarms.push(...alarms);
    if (alarms.length > 0) failedApps.add(index);
    options.onProgress?.(
      `app ${index} ${alarms.length === 0 ? 'ok' : `FALSE ALARM ${alarms.map((a) => `${a.property}/${a.checkers.join('+')}`).join(', ')}`}`,
    );
  }
  const pairs: MistakePair[] = [];
  for (const mistake of mistakes) {
    const fits = apps
      .filter((i) => mistake.applies(generateApp(options.seed, i)))
      .slice(0, options.mistakeApps ?? apps.length);
    for (const index of fits) {
      if (failedApps.has(index)) {
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
