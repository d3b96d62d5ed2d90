/**
 * `cetp-sim fuzz`: runs the property suites (all, or --property …) against the reference apps, a
 * planted bug (--mutant) or the user's own providers and consumer (--provider, --consumer), and
 * reports each property with what it exercised of the implementations under test — calls, answers,
 * successes, effects, confirmations, finished operations — so a green line is seen to mean something.
 * A property that exercised nothing is `vacuous`, not passed. A failure writes
 * `<out>/<property>-<seed>.replay.json` and prints its violations, minimal trace and replay command.
 * `--json` prints one object with no wall-clock fields: the same arguments print the same bytes
 * (except with --time, whose run counts depend on speed), whatever `--workers` is.
 */

import { blindEffectOracles, type Exercised } from '../../check/exercised.ts';
import { type Frequencies, floorGaps } from '../../check/frequencies.ts';
import { REFERENCE, type Variant } from '../../fuzz/scenario/model.ts';
import { withDeviceFloors } from '../../fuzz/suite-kit.ts';
import type { PropertyDef } from '../../fuzz/suites.ts';
import { EXIT_FAILED, EXIT_OK } from '../../harness/errors.ts';
import { DEFAULT_REPLAY_DIR } from '../../harness/fuzz.ts';
import { exercisedLine } from '../../harness/message.ts';
import { selectMutant, selectProperties } from '../../harness/selection.ts';
import { type AndroidRelease, DEFAULT_ANDROID } from '../../sim/core/release.ts';
import type { Shard } from '../args.ts';
import {
  type CampaignEntry,
  runCampaign,
  runsFor,
  SHORT_CAMPAIGN_FACTOR,
  type Strategy,
  shardOf,
  tailsOf,
} from '../campaign.ts';
import { consumerImpact } from '../consumer-module.ts';
import { printFailure, violationsJson } from '../failure-report.ts';
import { onInterrupt, SIGNAL_EXIT, type StopSignal } from '../interrupt.ts';
import type { Io } from '../io.ts';
import { writeJunitReport } from '../junit.ts';
import { checkOutputs } from '../output-paths.ts';
import { startProgress } from '../progress.ts';
import { type loadModules, loadModulesAhead, targetOf } from '../user-modules.ts';
import type { PropertyOutcome } from '../worker/protocol.ts';

/** The harness's default replay directory: the CLI and the library write failures to the same place. */
export const DEFAULT_OUT_DIR = DEFAULT_REPLAY_DIR;

export interface FuzzFlags {
  readonly seed: number;
  readonly runs?: number;
  readonly time?: number;
  readonly property?: readonly string[];
  readonly strategy: Strategy;
  readonly mutant?: string;
  readonly provider?: string;
  readonly consumer?: string;
  readonly shard?: Shard;
  readonly out: string;
  readonly junit?: string;
  readonly workers: number;
  readonly watchdog: number;
  readonly json: boolean;
  /** The Android release profile (absent: DEFAULT_ANDROID; recorded in replay files when given). */
  readonly android?: AndroidRelease;
  /** Also generate the device faults of issue 35 (deep sleep…); off by default. */
  readonly deviceFaults?: boolean;
  /** false (--no-shrink): a failing run is reported as found, unshrunk. */
  readonly shrink?: boolean;
  /** false (--no-isolation-check): a failure with user modules is not re-run in fresh instances. */
  readonly isolationCheck?: boolean;
}

/** --no-shrink and --no-isolation-check, passed on only when given (both are on by default). */
function offSwitches(flags: FuzzFlags): { shrink?: false; isolationCheck?: false } {
  return {
    ...(flags.shrink === false ? { shrink: false } : {}),
    ...(flags.isolationCheck === false ? { isolationCheck: false } : {}),
  };
}

function propertyJson({ def, result, replayFile }: CampaignEntry) {
  const failure = result.failure;
  return {
    id: def.id,
    rules: def.ruleIds,
    runs: result.runs,
    status: result.status,
    exercised: result.exercised,
    ...blindJson(def, result.exercised),
    ...frequenciesJson(def, result.frequencies, result.floorWitnesses),
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    ...(result.inconclusive ? { inconclusive: result.inconclusive } : {}),
    ...(replayFile !== null ? { replayFile } : {}),
    ...(failure
      ? {
          traceHash: failure.replay.traceHash,
          violations: violationsJson(failure.violations),
          ...(failure.thrown?.length ? { thrown: failure.thrown } : {}),
        }
      : result.violations
        ? { violations: violationsJson(result.violations) }
        : {}),
  };
}

/**
 * How often each attack, clock crossing, lifecycle follow-up and method race happened (runs per
 * label, src/check/frequencies.ts) and the property's floors the campaign missed (`belowFloor`).
 */
function frequenciesJson(
  def: PropertyDef,
  f: Frequencies | undefined,
  witnesses: PropertyOutcome['floorWitnesses'],
) {
  if (f === undefined) return {};
  const witnessOf = (label: string) => witnesses?.find((w) => w.label === label)?.file;
  const belowFloor = floorGaps(f, def.floors ?? {}).map((g) => {
    const witness = witnessOf(g.label);
    return witness !== undefined ? { ...g, witness } : g;
  });
  return { frequencies: f, belowFloor };
}

/** The effect oracles that could not judge (no effect declared while writes succeeded), if any. */
function blindJson(def: PropertyDef, e: Exercised): { blindOracles?: string[] } {
  const blind = blindEffectOracles(
    def.checkers.map((c) => c.id),
    e,
  );
  return blind.length > 0 ? { blindOracles: blind } : {};
}

function resultLine(io: Io, { def, result, ms }: CampaignEntry, width: number): string {
  const c = io.color;
  const seconds = c.dim(`${(ms / 1000).toFixed(1)}s`);
  const id = def.id.padEnd(width);
  switch (result.status) {
    case 'passed': {
      const line = `  ${c.green('✓')} ${id} ${String(result.runs).padStart(6)} runs  ${c.dim(exercisedLine(result.exercised))}  ${seconds}`;
      const gaps = result.frequencies ? floorGaps(result.frequencies, def.floors ?? {}) : [];
      const notes = (result.inconclusive ?? []).map(
        (i) =>
          `\n    ${c.yellow(`inconclusive ${i.checker} ${i.tool} (${i.calls} calls): ${i.why}; run more to judge`)}`,
      );
      if (gaps.length === 0) return line + notes.join('');
      const missed = gaps.map((g) => `${g.label} ${Math.round(g.share * 100)}% < ${g.floor * 100}%`);
      const witnesses = (result.floorWitnesses ?? []).flatMap((w) =>
        w.file !== undefined ? [`\n    ${c.dim(`${w.label}: witness run: cetp-sim replay ${w.file}`)}`] : [],
      );
      return `${line}\n    ${c.yellow(`reached too rarely: ${missed.join(', ')}`)}${witnesses.join('')}${notes.join('')}`;
    }
    case 'vacuous':
      return `  ${c.yellow('∅')} ${id} ${c.yellow(`exercised nothing: ${result.reason ?? ''}`)}  ${seconds}`;
    case 'failed':
      return `  ${c.red('✗')} ${id} failed after ${result.runs} run(s)${result.reason ? `: ${result.reason}` : ''}  ${seconds}`;
  }
}

function runsSummary(defs: readonly PropertyDef[]): string {
  const runs = defs.map((d) => runsFor(d, undefined));
  const min = Math.min(...runs);
  const max = Math.max(...runs);
  const each = min === max ? `${min}` : `${min}–${max}`;
  return `${each} runs each: CI budget × ${SHORT_CAMPAIGN_FACTOR}`;
}

function header(flags: FuzzFlags, defs: readonly PropertyDef[], target: string): string {
  const budget =
    flags.time !== undefined
      ? `${flags.time}s in all`
      : flags.runs !== undefined
        ? `${flags.runs} runs each`
        : runsSummary(defs);
  const shard = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  const android = `${flags.android !== undefined ? `, Android ${flags.android}` : ''}${flags.deviceFaults ? ', device faults' : ''}`;
  return `cetp-sim fuzz: seed ${flags.seed}, strategy ${flags.strategy}${android}, ${defs.length} propert${defs.length === 1 ? 'y' : 'ies'} (${budget})${shard}, against ${target}`;
}

/** --device-faults: the device behaviours join the floors (`belowFloor`, "reached too rarely"). */
function withFloors(defs: PropertyDef[], flags: FuzzFlags): PropertyDef[] {
  return flags.deviceFaults === true ? defs.map(withDeviceFloors) : defs;
}

/** The variant a campaign runs: the planted bug's (or the reference), with --android and --device-faults. */
function variantOf(flags: FuzzFlags, mutant: { readonly variant: Variant } | null): Variant {
  return {
    ...(mutant?.variant ?? REFERENCE),
    ...(flags.android !== undefined ? { android: flags.android } : {}),
    ...(flags.deviceFaults === true ? { deviceFaults: true } : {}),
  };
}

function modulesOf(flags: FuzzFlags): { provider?: string; consumer?: string } {
  return {
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
  };
}

/** The threads the campaign will run on (runCampaign's slots), known before the modules load. */
function campaignThreads(flags: FuzzFlags, defs: readonly PropertyDef[]): number {
  const consumerOnly = flags.consumer !== undefined && (flags.property ?? []).length === 0;
  const selected = shardOf(consumerOnly ? defs.filter((d) => d.kind === 'consumer') : defs, flags.shard);
  return Math.max(1, Math.min(flags.workers, selected.length));
}

export async function fuzzCommand(io: Io, flags: FuzzFlags): Promise<number> {
  const c = io.color;
  // Where the campaign will write, checked before it starts (exit 2 with the OS's reason).
  checkOutputs([
    ['--out', flags.out, 'dir'],
    ['--junit', flags.junit, 'file'],
  ]);
  let defs = selectProperties(flags.property);
  const mutant = flags.mutant !== undefined ? selectMutant(flags.mutant) : null;
  const modules = modulesOf(flags);
  const cwd = process.cwd();
  const watchdogMs = flags.watchdog * 1000;
  const ahead = { threads: campaignThreads(flags, defs), variant: mutant?.variant };
  const { loaded, started: firstWorker } = await loadModulesAhead(modules, cwd, watchdogMs, ahead);
  // Fuzzing a consumer: by default only the properties that drive one.
  if (loaded.consumer && (flags.property ?? []).length === 0)
    defs = defs.filter((d) => d.kind === 'consumer');
  defs = withFloors(shardOf(defs, flags.shard), flags);

  const target = targetOf(loaded, mutant);
  if (!flags.json) {
    io.out(c.bold(header(flags, defs, target)));
    if (loaded.consumer)
      io.out(
        c.yellow(
          `  --consumer ${loaded.consumer.specifier} (${loaded.consumer.name}) loaded; ${consumerImpact(defs).note}`,
        ),
      );
    if (defs.length === 0) io.out('  this shard selects no property');
  }

  const width = Math.max(0, ...defs.map((d) => d.id.length));
  const started = performance.now();
  const progress = startProgress(io, defs.length, {
    json: flags.json,
    noun: 'fuzz',
    units: 'properties',
    failure: 'failed',
    countsRuns: true,
  });
  // SIGINT/SIGTERM: the report of the properties finished so far (their replay files are written),
  // marked interrupted, and the shell's exit code for the signal. The property in flight is dropped
  // when it runs in a worker (user modules, a --time campaign of 30 s or more: campaign.ts), or
  // finished first when it runs on this thread (which answers the signal only between properties).
  const soFar: CampaignEntry[] = [];
  const ending = { flags, defs, loaded, started };
  const interrupt = onInterrupt((signal) => {
    progress.finish();
    process.exit(fuzzReport(io, ending, soFar, signal));
  });
  let entries: CampaignEntry[];
  try {
    entries = await runCampaign(defs, {
      seed: flags.seed,
      runs: flags.runs,
      timeSeconds: flags.time,
      tails: tailsOf(flags.strategy),
      variant: variantOf(flags, mutant),
      ...offSwitches(flags),
      outDir: flags.out,
      modules,
      cwd,
      workers: flags.workers,
      watchdogMs,
      started: firstWorker,
      now: () => performance.now(),
      onStart: (def) => progress.begin(def.id),
      onRuns: (def, runs) => progress.runs(def.id, runs),
      onResult: (entry) => {
        soFar.push(entry);
        progress.done(entry.def.id, resultLine(io, entry, width), {
          failed: entry.result.status !== 'passed',
          runs: entry.result.runs,
        });
      },
    });
  } finally {
    progress.finish();
    interrupt.dispose();
  }
  return fuzzReport(io, ending, entries, null);
}

interface Ending {
  readonly flags: FuzzFlags;
  readonly defs: readonly PropertyDef[];
  readonly loaded: Awaited<ReturnType<typeof loadModules>>;
  readonly started: number;
}

/** Each failed property's violations, events and replay command. */
function printFailures(io: Io, failed: readonly CampaignEntry[], flags: FuzzFlags): void {
  for (const { def, result, replayFile } of failed) {
    const failure = result.failure;
    if (!failure || replayFile === null) continue;
    printFailure(io, {
      property: def.id,
      title: def.title,
      rules: def.ruleIds,
      violations: failure.violations,
      events: failure.events,
      runsToFailure: failure.replay.fuzz.runsToFailure,
      shrinks: failure.replay.fuzz.shrinks,
      replayFile,
      ...(failure.thrown ? { thrown: failure.thrown } : {}),
      modules: {
        ...(flags.provider ? { provider: flags.provider } : {}),
        ...(flags.consumer ? { consumer: flags.consumer } : {}),
      },
    });
  }
}

/** The properties whose effect oracles could not judge: writes succeeded but no effect was declared. */
function printBlindOracles(io: Io, entries: readonly CampaignEntry[]): void {
  const c = io.color;
  for (const { def, result } of entries) {
    const blind = blindEffectOracles(
      def.checkers.map((x) => x.id),
      result.exercised,
    );
    if (blind.length === 0) continue;
    io.out(
      c.yellow(
        `  ${def.id}: ${result.exercised.writesSucceeded} write executions succeeded but the provider declared no business effect (AppContext.declareEffect, docs/oracles.md), so ${blind.join(', ')} could not judge it`,
      ),
    );
  }
}

/** The campaign's report (whole, or so far when `interrupted`) and its exit code. */
function fuzzReport(
  io: Io,
  { flags, defs, loaded, started }: Ending,
  entries: readonly CampaignEntry[],
  interrupted: StopSignal | null,
): number {
  const c = io.color;
  const stopped = interrupted !== null ? SIGNAL_EXIT[interrupted] : null;
  if (flags.junit !== undefined) writeJunitReport(flags.junit, entries, flags.seed);

  const failed = entries.filter((e) => e.result.status === 'failed');
  const vacuous = entries.filter((e) => e.result.status === 'vacuous');
  const held = failed.length === 0 && vacuous.length === 0;
  if (flags.json) {
    io.out(
      JSON.stringify({
        seed: flags.seed,
        android: flags.android ?? DEFAULT_ANDROID,
        passed: held && stopped === null,
        ...(interrupted !== null ? { interrupted } : {}),
        properties: entries.map(propertyJson),
        ...(loaded.consumer
          ? {
              consumer: {
                module: loaded.consumer.specifier,
                name: loaded.consumer.name,
                ...consumerImpact(defs),
              },
            }
          : {}),
      }),
    );
    return stopped ?? (held ? EXIT_OK : EXIT_FAILED);
  }
  printFailures(io, failed, flags);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const passed = entries.length - failed.length - vacuous.length;
  const counts = `${passed} passed, ${failed.length} failed${vacuous.length > 0 ? `, ${vacuous.length} exercised nothing` : ''}`;
  const summary = `${counts} in ${seconds}s (seed ${flags.seed})`;
  io.out('');
  if (interrupted !== null)
    io.out(
      c.yellow(
        c.bold(
          `INTERRUPTED (${interrupted}): ${entries.length} of ${defs.length} properties finished; the replay files above are kept`,
        ),
      ),
    );
  io.out(
    !held
      ? c.red(c.bold(`FAILED: ${summary}`))
      : stopped !== null
        ? c.yellow(`So far: ${summary}`)
        : c.green(`All properties held: ${summary}`),
  );
  if (vacuous.length > 0)
    io.out(
      c.yellow(
        '  a property that exercised nothing judged nothing: check that your module installs its package, answers negotiate and list_tools, and that propertyTools names your tools',
      ),
    );
  printBlindOracles(io, entries);
  if (flags.junit !== undefined) io.out(c.dim(`JUnit report: ${flags.junit}`));
  return stopped ?? (held ? EXIT_OK : EXIT_FAILED);
}
