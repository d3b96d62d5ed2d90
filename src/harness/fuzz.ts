/**
 * The fuzz engine as a library: `fuzzProvider(fixture, options)` and `fuzzConsumer(consumer, options)`
 * run the catalogue's properties (src/fuzz/suites.ts) against your implementation with the very
 * engine `cetp-sim fuzz` uses (src/fuzz/fuzz.ts: fast-check generating scenarios, each run in a
 * fresh simulated world and judged by the property's oracles, failures shrunk), in this process, one
 * property after another. Every failure writes the same one-file replay the CLI writes, which
 * `npx cetp-sim replay FILE --provider MODULE` (or `replay(file, modules)` here) re-runs bit for bit.
 *
 * Verdicts are honest as the CLI's are: a property whose runs exercised nothing of your
 * implementation (no call reached it, or none was answered) is `vacuous`, and not `passed`.
 *
 * Deterministic: the same fixture code and options give the same runs, verdicts and replay files.
 * The runs happen in this thread: a provider that blocks the thread forever (a synchronous endless
 * loop) hangs the caller — the CLI, which runs user code in watched worker threads, does not.
 */
import { resolve } from 'node:path';
import type { Violation } from '../check/checker.ts';
import { blindEffectOracles, type Exercised } from '../check/exercised.ts';
import type { Frequencies } from '../check/frequencies.ts';
import {
  fuzzProperty,
  type InconclusiveVerdict,
  type PropertyResult,
  propertySeed,
  replayScenario,
} from '../fuzz/fuzz.ts';
import { REFERENCE, type Tail } from '../fuzz/scenario/model.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import { ANDROID_RELEASES, type AndroidRelease, isAndroidRelease } from '../sim/core/release.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { QUIET_KINDS, renderText } from '../sim/core/trace-render.ts';
import type { CancellationLike, ConsumerUnderTest, ProviderFixture, Variant } from '../subjects/subjects.ts';
import type { ReplayModules } from './code-identity.ts';
import type { CliErrorCode } from './error-codes.ts';
import { CliError } from './errors.ts';
import { resolveModule } from './module-path.ts';
import { diagramFilePath, replayFilePath, writeDiagramFile, writeReplayFile } from './replay-file.ts';
import { selectMutant, selectProperties } from './selection.ts';
import {
  checkConsumer,
  checkProviderFixtures,
  checkVariantReaches,
  withConsumer,
  withProviders,
} from './subjects.ts';

/** Where replay files go unless `replayDir` says otherwise (relative to `cwd`), as for the CLI's --out. */
export const DEFAULT_REPLAY_DIR = '.cetp-sim/failures';

export const STRATEGIES = ['fifo', 'random', 'pct', 'portfolio'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** How the scheduler continues once generated decisions run out; portfolio lets the fuzzer pick. */
export function tailsOf(strategy: Strategy): Tail[] {
  return strategy === 'portfolio' ? ['fifo', 'random', 'pct'] : [strategy];
}

/** The verdict `module-state-isolation`: a failure that does not come back when its run is run again. */
export const MODULE_STATE_CHECKER = 'module-state-isolation';

export interface FuzzOptions {
  /** Property ids to run (see PROPERTY_CATALOGUE); default: every property that applies. */
  readonly property?: string | readonly string[];
  /** Campaign seed (each property derives its own from it); default 0. */
  readonly seed?: number;
  /** Generated scenarios per property; default: the property's CI budget (`ciRuns`). */
  readonly runs?: number;
  /** How the scheduler continues after the generated decisions; default `portfolio`. */
  readonly strategy?: Strategy;
  /**
   * Whether a failure is shrunk to a smaller run (default true). `false` reports the first failing run
   * as it was found: for a hunt that asks only whether a property fails, and by which oracle.
   */
  readonly shrink?: boolean;
  /** A planted bug's id (`npx cetp-sim mutants --list`): its variant is handed to every install(). */
  readonly mutant?: string;
  /** The Android release profile the worlds run (`--android`, src/sim/core/release.ts); default 14. Recorded in replay files. */
  readonly android?: AndroidRelease;
  /** Where failures write replay files (relative to `cwd`); `null`: write none. Default `.cetp-sim/failures`. */
  readonly replayDir?: string | null;
  /**
   * The module (a path relative to `cwd`, or a package name) that exports what you fuzz — `providers`
   * for fuzzProvider, `consumer` for fuzzConsumer — as `npx cetp-sim fuzz --provider/--consumer`
   * takes it: then the replay file records it and the printed replay command is complete.
   */
  readonly module?: string;
  /**
   * By property id, the tools it calls, as 'name.tool', or 'all'; `default` for every property not
   * named. Without the option every property calls every tool; a map that misses properties and has
   * no `default` is refused (a property added later must not silently call every tool).
   */
  readonly propertyTools?: Readonly<Record<string, readonly string[] | 'all'>>;
  /** The directory `replayDir` and `module` are relative to; default `process.cwd()`. */
  readonly cwd?: string;
  /** Called with each property's report as soon as it is done (progress). */
  readonly onResult?: (report: PropertyReport) => void;
}

export interface ConsumerFuzzOptions extends FuzzOptions {
  /** Provider fixtures the consumer is fuzzed against, instead of the reference provider apps. */
  readonly providers?: ProviderFixture | readonly ProviderFixture[];
  /** The module exporting those `providers` (for the replay file and command). */
  readonly providerModule?: string;
}

export interface ViolationReport {
  readonly checker: string;
  readonly ruleIds: readonly string[];
  readonly class: Violation['class'];
  readonly message: string;
  /** Trace event seqs and ContentProvider call ids that show it. */
  readonly evidence: { readonly events: readonly number[]; readonly calls: readonly number[] };
}

export interface PropertyReport {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  /** `passed` only when the runs judged something; `vacuous` when they exercised nothing. */
  readonly status: 'passed' | 'failed' | 'vacuous';
  readonly passed: boolean;
  /** Scenarios run (up to and including the first failure). */
  readonly runs: number;
  /** What the runs exercised of the implementation under test (calls, answers, successes, effects …). */
  readonly exercised: Exercised;
  /** In how many runs each frequency label happened (src/check/frequencies.ts), as `fuzz --json` says. */
  readonly frequencies: Frequencies;
  /** For `vacuous`: why nothing was judged. */
  readonly vacuity: string | null;
  /** Campaign verdicts (tool-never-succeeds) too few fair attempts could give, with why: not failures. */
  readonly inconclusive: readonly InconclusiveVerdict[];
  /**
   * The effect oracles that could not judge: write tools succeeded but the provider declared no
   * business effect (AppContext.declareEffect, docs/oracles.md). Empty when they could.
   */
  readonly blindOracles: readonly string[];
  /** The shrunk failing run's violations (empty unless failed). */
  readonly violations: readonly ViolationReport[];
  /** Path of the written replay file, or null (no failure, or `replayDir: null`). */
  readonly replay: string | null;
  /** The shell command that re-runs the failure, or null. */
  readonly replayCommand: string | null;
  /**
   * The implementations under test the command cannot name (no `module` given for them): without
   * their module the command runs the reference ones instead. Empty when the command is complete.
   */
  readonly replayCommandLacks: readonly ('provider' | 'consumer')[];
  /** The shrunk failing run's trace as text (scheduler noise left out), or null. */
  readonly trace: string | null;
  /** The property's own seed (derived from the campaign seed) and fast-check's path to the failure. */
  readonly seed: number;
  readonly failure: {
    readonly path: string;
    readonly runsToFailure: number;
    readonly shrinks: number;
    readonly traceHash: string;
  } | null;
}

export interface FuzzReport {
  /** True when every property passed: none failed, none exercised nothing. */
  readonly passed: boolean;
  readonly seed: number;
  readonly properties: readonly PropertyReport[];
}

export function violationReports(violations: readonly Violation[]): ViolationReport[] {
  return violations.map((v) => ({
    checker: v.checker,
    ruleIds: v.ruleIds,
    class: v.class,
    message: v.message,
    evidence: { events: v.events, calls: v.calls },
  }));
}

/** `npx cetp-sim replay FILE [--provider M] [--consumer M]`, paths quoted when they hold spaces. */
export function replayCommand(file: string, modules: ReplayModules = {}): string {
  const arg = (s: string) => (/\s/.test(s) ? JSON.stringify(s) : s);
  const flags = (['provider', 'consumer'] as const)
    .filter((flag) => modules[flag] !== undefined)
    .map((flag) => ` --${flag} ${arg(modules[flag] as string)}`);
  return `npx cetp-sim replay ${arg(file)}${flags.join('')}`;
}

/** What one campaign runs against, and the module names its replay files and commands carry. */
interface Campaign {
  readonly defs: readonly PropertyDef[];
  readonly modules: ReplayModules;
  /** True when user code is under test (a failure is then re-run to see it does not depend on earlier runs). */
  readonly userCode: boolean;
  /** The kinds of user code under test that no module names: a replay command cannot load them. */
  readonly unnamed: readonly ('provider' | 'consumer')[];
}

function asList<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

function fail(code: CliErrorCode): (message: string) => never {
  return (message) => {
    throw new CliError(code, message);
  };
}

function checkModule(what: string, specifier: string | undefined, cwd: string): string | undefined {
  if (specifier === undefined) return undefined;
  if (typeof specifier !== 'string' || specifier === '')
    throw new CliError('invalid_option', `${what} must be a module path or package name`);
  resolveModule(what, specifier, cwd);
  return specifier;
}

/** With `options.mutant`: refuses it unless its planted bugs reach the implementations under test. */
async function checkMutantReaches(
  options: FuzzOptions,
  subjects: Parameters<typeof checkVariantReaches>[0],
  label: string,
): Promise<void> {
  if (options.mutant === undefined) return;
  await checkVariantReaches(subjects, selectMutant(options.mutant).variant, label);
}

function selected(option: FuzzOptions['property']): PropertyDef[] {
  if (option === undefined) return selectProperties(undefined);
  return selectProperties(asList(option));
}

async function providersUnderTest(
  fixtures: ProviderFixture | readonly ProviderFixture[],
  options: FuzzOptions,
  label: string,
) {
  const list = asList(fixtures);
  return checkProviderFixtures(list, options.propertyTools, label, fail('invalid_fixture'));
}

function checkNumbers(options: FuzzOptions): void {
  const whole = (name: string, value: number | undefined, min: number) => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min))
      throw new CliError('invalid_option', `${name} must be a whole number ≥ ${min}, got ${String(value)}`);
  };
  whole('seed', options.seed, 0);
  whole('runs', options.runs, 1);
  if (options.android !== undefined && !isAndroidRelease(options.android))
    throw new CliError(
      'invalid_option',
      `android must be one of ${ANDROID_RELEASES.join(', ')}, got ${String(options.android)}`,
    );
  if (options.strategy !== undefined && !STRATEGIES.includes(options.strategy))
    throw new CliError('invalid_option', `strategy must be one of ${STRATEGIES.join(', ')}`);
}

/**
 * Fuzzes your provider app(s): every property (or `options.property`), raw-driver and
 * consumer-driven alike, with your fixtures standing in for the reference provider apps — the
 * faults aimed at the reference apps are aimed at your packages, the oracles judge your packages.
 */
export async function fuzzProvider(
  fixture: ProviderFixture | readonly ProviderFixture[],
  options: FuzzOptions = {},
): Promise<FuzzReport> {
  checkNumbers(options);
  const cwd = options.cwd ?? process.cwd();
  const provider = checkModule('module', options.module, cwd);
  const label = `fuzzProvider(${options.module ?? 'fixture'})`;
  const subject = await providersUnderTest(fixture, options, label);
  await checkMutantReaches(options, { providers: subject.providers }, label);
  const defs = selected(options.property).map((d) => withProviders(d, subject));
  return runProperties(
    {
      defs,
      modules: provider !== undefined ? { provider } : {},
      userCode: true,
      unnamed: provider === undefined ? ['provider'] : [],
    },
    options,
  );
}

/**
 * Fuzzes your consumer: the properties that drive a consumer (or `options.property`), with yours in
 * place of the reference consumer, against the reference provider apps or `options.providers`.
 */
export async function fuzzConsumer<C extends CancellationLike>(
  consumer: ConsumerUnderTest<C>,
  options: ConsumerFuzzOptions = {},
): Promise<FuzzReport> {
  checkNumbers(options);
  const cwd = options.cwd ?? process.cwd();
  const consumerModule = checkModule('module', options.module, cwd);
  const providerModule = checkModule('providerModule', options.providerModule, cwd);
  const checked = checkConsumer(consumer, fail('invalid_consumer'));
  let defs = selected(options.property);
  if (options.property === undefined) defs = defs.filter((d) => d.kind === 'consumer');
  if (options.providers !== undefined) {
    const label = `fuzzConsumer(${options.providerModule ?? 'providers'})`;
    const subject = await providersUnderTest(options.providers, options, label);
    await checkMutantReaches(options, { providers: subject.providers }, label);
    defs = defs.map((d) => withProviders(d, subject));
  }
  await checkMutantReaches(options, { consumer: checked }, `fuzzConsumer(${options.module ?? 'consumer'})`);
  const modules = {
    ...(providerModule !== undefined ? { provider: providerModule } : {}),
    ...(consumerModule !== undefined ? { consumer: consumerModule } : {}),
  };
  const unnamed = [
    ...(options.providers !== undefined && providerModule === undefined ? (['provider'] as const) : []),
    ...(consumerModule === undefined ? (['consumer'] as const) : []),
  ];
  return runProperties(
    { defs: defs.map((d) => withConsumer(d, checked)), modules, userCode: true, unnamed },
    options,
  );
}

/**
 * Fuzzes cetp-sim's own reference implementations (the CLI's `npx cetp-sim fuzz` without modules):
 * each property against the apps its catalogue entry installs — with `mutant`, a planted bug, the
 * way a spec author or cetp-sim's own test suite uses it.
 */
export async function fuzzReference(options: FuzzOptions = {}): Promise<FuzzReport> {
  checkNumbers(options);
  if (options.module !== undefined || options.propertyTools !== undefined)
    throw new CliError(
      'invalid_option',
      'fuzzReference takes no module or propertyTools (it runs the reference apps)',
    );
  return runProperties(
    { defs: selected(options.property), modules: {}, userCode: false, unnamed: [] },
    options,
  );
}

/** The mutant's variant (or the reference) with the release profile; undefined: the reference on the default. */
function variantOf(options: FuzzOptions): Variant | undefined {
  const base = options.mutant !== undefined ? selectMutant(options.mutant).variant : undefined;
  if (options.android === undefined) return base;
  return { ...(base ?? REFERENCE), android: options.android };
}

/** Runs a campaign's properties one after another and reports each (writing replay files for failures). */
export async function runProperties(campaign: Campaign, options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? 0;
  const cwd = options.cwd ?? process.cwd();
  const variant = variantOf(options);
  const tails = tailsOf(options.strategy ?? 'portfolio');
  const reports: PropertyReport[] = [];
  for (const def of campaign.defs) {
    const runs = options.runs ?? def.ciRuns;
    const result = await fuzzProperty(def, {
      seed,
      runs,
      tails,
      ...(variant ? { variant } : {}),
      ...(options.shrink === false ? { shrink: false } : {}),
    });
    const violations = result.failure ? await withIsolationCheck(def, result.failure, campaign.userCode) : [];
    const report = reportOf(def, result, violations, seed, campaign, options, cwd);
    options.onResult?.(report);
    reports.push(report);
  }
  return { passed: reports.every((r) => r.passed), seed, properties: reports };
}

/**
 * The failure's violations, plus `module-state-isolation` when running the shrunk scenario once more
 * gives another verdict or trace: the failure then depends on state the user's code kept between
 * runs, and its replay file (run in a fresh process) may not reproduce it.
 */
async function withIsolationCheck(
  def: PropertyDef,
  failure: NonNullable<PropertyResult['failure']>,
  userCode: boolean,
): Promise<readonly Violation[]> {
  const violations = failure.run.violations;
  if (!userCode || failure.replay.campaign) return violations;
  const again = await replayScenario(def, failure.replay);
  const verdict = (vs: readonly { checker: string }[]) =>
    [...new Set(vs.map((v) => v.checker))].sort().join(', ');
  const before = verdict(violations);
  const after = verdict(again.violations);
  if (before === after && again.report.traceHash === failure.replay.traceHash) return violations;
  return [
    ...violations,
    {
      checker: MODULE_STATE_CHECKER,
      ruleIds: [],
      class: 'correctness',
      message:
        `state leaks between runs: this failure (${before}) came after earlier runs in this process; run ` +
        `once more, the same scenario ${after === '' ? 'passes' : `fails differently (${after})`}, so its ` +
        'replay file may not reproduce it. Keep per-run state in what install() creates (the World, the app), not at module top level.',
      events: [],
      calls: [],
    },
  ];
}

function reportOf(
  def: PropertyDef,
  result: PropertyResult,
  violations: readonly Violation[],
  seed: number,
  campaign: Campaign,
  options: FuzzOptions,
  cwd: string,
): PropertyReport {
  const { modules } = campaign;
  const failure = result.failure;
  let replay: string | null = null;
  if (failure && options.replayDir !== null) {
    const dir = resolve(cwd, options.replayDir ?? DEFAULT_REPLAY_DIR);
    replay = replayFilePath(dir, def.id, seed);
    writeReplayFile(replay, failure.replay, modules, cwd);
    writeDiagramFile(diagramFilePath(replay), failure.run.world.trace.events);
  }
  return {
    id: def.id,
    title: def.title,
    rules: def.ruleIds,
    status: result.status,
    passed: result.status === 'passed',
    runs: result.runs,
    exercised: result.exercised,
    frequencies: result.frequencies,
    vacuity: result.vacuity ?? null,
    inconclusive: result.inconclusive ?? [],
    blindOracles: blindEffectOracles(
      def.checkers.map((c) => c.id),
      result.exercised,
    ),
    violations: violationReports(violations),
    replay,
    replayCommand: replay !== null ? replayCommand(relativeToCwd(replay, cwd), modules) : null,
    replayCommandLacks: replay !== null ? campaign.unnamed : [],
    trace: failure ? traceText(failure.run.world.trace.events) : null,
    seed: propertySeed(seed, def.id),
    failure: failure
      ? {
          path: failure.replay.fuzz.path,
          runsToFailure: failure.replay.fuzz.runsToFailure,
          shrinks: failure.replay.fuzz.shrinks,
          traceHash: failure.replay.traceHash,
        }
      : null,
  };
}

/** A run's trace as the CLI prints it (scheduler noise and fd bookkeeping left out). */
export function traceText(events: readonly TraceEvent[]): string {
  return renderText(events, { omit: QUIET_KINDS });
}

/** `path` relative to `cwd` when it lies inside it (shorter commands), else as is. */
function relativeToCwd(path: string, cwd: string): string {
  const base = resolve(cwd);
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}
