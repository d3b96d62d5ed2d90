/**
 * A fuzz campaign: the selected properties, each with its own seed derived from the campaign seed (so
 * a subset or a shard runs exactly what the full campaign would for those properties), spread over
 * worker threads (`--workers`: by property, merged back in catalogue order, so the results do not
 * depend on how many there were), and a replay file written for every failure.
 *
 * The user's modules run only in the workers, under the watchdog (worker/pool.ts): a run that blocks
 * its thread or never ends is stopped, found again by its number in a fresh worker that streams its
 * trace, and reported as a failure of its property with a replay file — never a hang of the CLI.
 */
import { availableParallelism } from 'node:os';
import { NOTHING_EXERCISED } from '../check/exercised.ts';
import { labelSlug } from '../fuzz/floor-witness.ts';
import { propertySeed, REPLAY_FORMAT, type ReplayFile } from '../fuzz/fuzz.ts';
import type { Tail, Variant } from '../fuzz/scenario/model.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import type { ReplayModules } from '../harness/code-identity.ts';
import {
  diagramFilePath,
  replayFilePath,
  writeDiagramFile,
  writeReplayFile,
} from '../harness/replay-file.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import type { Shard } from './args.ts';
import { watchdogViolation } from './failure-report.ts';
import { checkModuleIsolation, type FreshRun, type StartedHost } from './user-modules.ts';
import { CampaignJudge } from './worker/judge.ts';
import { type Host, type JobEnd, runSpread } from './worker/pool.ts';
import type { FuzzJob, PropertyOutcome, TimeShare, WorkerMessage } from './worker/protocol.ts';
import { wallMs } from './worker/telemetry.ts';

/**
 * `npx cetp-sim fuzz` without --runs gives each property its CI budget times this: a short campaign
 * (measured on 2 cores: 14–20 s for the ten properties), five times deeper than `npm test`.
 */
export const SHORT_CAMPAIGN_FACTOR = 5;

/** Wall-clock seconds one run may take before the watchdog stops it (`--watchdog`). */
export const DEFAULT_WATCHDOG_SECONDS = 10;

/** A --time campaign at least this long runs in worker threads, so that an interrupt is answered at once. */
export const INTERRUPTIBLE_AFTER_SECONDS = 30;

/** A run that hung is watched again for at most this long, to show its trace up to its last step. */
const DIAGNOSIS_MS = 3_000;

/**
 * Threads by default: one per core (`os.availableParallelism()`), on every command that spreads its
 * work (fuzz, mutants, ablate, crashpoints, vectors run). For cetp-sim's own code the CLI's thread
 * starts on the jobs at once and each worker thread (started from the cached bundle, worker/bundle.ts)
 * takes jobs from the same shared counter as soon as it has loaded (worker/pool.ts `runShared`), so
 * nothing waits for a worker: a command too short for one just ends before it helps. Measured side by
 * side in fresh CLI processes (bench/results/scaling.json, bench/README.md). User modules always run
 * in worker threads, `--workers` of them. `--workers 1` keeps everything on the CLI's thread.
 */
export const DEFAULT_WORKERS = Math.max(1, availableParallelism());

/** What --help says of the default. */
export const DEFAULT_WORKERS_HELP =
  "default: one thread per core; the CLI's thread works too and starts at once, workers join as they load, so a short command just finishes before they help; --workers 1 stays on the CLI's thread";

export { STRATEGIES, type Strategy, tailsOf } from '../harness/fuzz.ts';

/** Properties whose index in `defs` is ≡ I−1 (mod N). */
export function shardOf<T>(defs: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...defs];
  return defs.filter((_, i) => i % shard.count === shard.index - 1);
}

export interface CampaignOptions {
  readonly seed: number;
  /** Runs per property; undefined: its ciRuns × SHORT_CAMPAIGN_FACTOR (ignored with timeSeconds). */
  readonly runs: number | undefined;
  /** A wall-clock budget for the whole campaign, shared equally by the properties. */
  readonly timeSeconds: number | undefined;
  readonly tails: readonly Tail[];
  readonly variant: Variant;
  /** false: a failing run is reported as found, unshrunk (fuzz --no-shrink). */
  readonly shrink?: boolean;
  /** false: a failure with user modules is not re-run in a fresh instance of them (fuzz --no-isolation-check). */
  readonly isolationCheck?: boolean;
  readonly outDir: string;
  /** The user's modules, as given on the command line, resolved against `cwd`. */
  readonly modules: ReplayModules;
  readonly cwd: string;
  readonly workers: number;
  readonly watchdogMs: number;
  readonly now: () => number;
  readonly onStart?: (def: PropertyDef) => void;
  /** Runs of a property started so far, as they start (for a progress bar). */
  readonly onRuns?: (def: PropertyDef, runsStarted: number) => void;
  readonly onResult?: (entry: CampaignEntry) => void;
  /** The first worker, started while the modules loaded (user-modules.ts loadModulesAhead). */
  readonly started?: StartedHost | null;
}

export interface CampaignEntry {
  readonly def: PropertyDef;
  readonly result: PropertyOutcome;
  /** Where the failure's replay file was written. */
  readonly replayFile: string | null;
  readonly ms: number;
}

export function runsFor(def: PropertyDef, runs: number | undefined): number {
  return runs ?? def.ciRuns * SHORT_CAMPAIGN_FACTOR;
}

/** A watched run's scenario and the trace events it streamed (worker messages `scenario`, `event`). */
class Watched {
  scenario: ReplayFile['scenario'] | null = null;
  readonly events: TraceEvent[] = [];
  readonly take = (message: WorkerMessage): void => {
    if (message.type === 'scenario') this.scenario = message.scenario;
    else if (message.type === 'event') this.events.push(message.event);
  };
}

/**
 * A property whose run `end.run` hung: that run is found again in a fresh worker (same options, same
 * run numbering) and watched — its scenario handed over, its trace streamed — for a short while.
 * `first`: run 0 of the campaign's job, watched as it ran; when that job was its worker's first
 * (`fresh`) and run 0 is the one that hung, it is that very run — the fresh worker would load the
 * same modules afresh and run the same scenario first, from the same seed — so no worker is started.
 */
async function diagnose(
  host: Host,
  def: PropertyDef,
  job: FuzzJob,
  end: Extract<JobEnd<PropertyOutcome>, { kind: 'hung' }>,
  watchdogMs: number,
  first: { readonly fresh: boolean; readonly watched: Watched },
): Promise<PropertyOutcome> {
  const known = first.fresh && end.run === 0 && first.watched.scenario !== null;
  const { scenario, events } = known ? first.watched : await watchAgain(host, job, end.run, watchdogMs);
  const violation = watchdogViolation(`run ${end.run + 1} of the campaign`, end.reason, events);
  const common = { id: def.id, runs: end.run + 1, status: 'failed' as const, exercised: NOTHING_EXERCISED };
  if (scenario === null) return { ...common, reason: violation.message, violations: [violation] };
  const replay: ReplayFile = {
    format: REPLAY_FORMAT,
    property: def.id,
    rules: def.ruleIds,
    fuzz: { seed: propertySeed(job.seed, def.id), path: '', runsToFailure: end.run + 1, shrinks: 0 },
    variant: job.variant,
    scenario,
    traceHash: '',
    violations: [
      {
        checker: violation.checker,
        ruleIds: violation.ruleIds,
        class: violation.class,
        message: violation.message,
      },
    ],
  };
  return { ...common, failure: { replay, violations: [violation], events, steps: events.at(-1)?.step ?? 0 } };
}

/** Runs `job` again in a fresh worker up to its run `run`, and watches that run for a short while. */
async function watchAgain(host: Host, job: FuzzJob, run: number, watchdogMs: number): Promise<Watched> {
  const watched = new Watched();
  // A --time campaign ran runs until its time was up: run as many again, without the clock, so the
  // same numbering reaches the run that hung.
  const { timeLimitMs, timeShare, ...again } = job;
  const runs = timeLimitMs !== undefined || timeShare !== undefined ? Number.MAX_SAFE_INTEGER : job.runs;
  await host.run(
    { ...again, runs, watch: run },
    { budgetMs: Math.min(watchdogMs, DIAGNOSIS_MS), watchedRun: run, onMessage: watched.take },
  );
  return watched;
}

async function fuzzOne(
  host: Host,
  def: PropertyDef,
  options: CampaignOptions,
  timeShare: TimeShare | undefined,
): Promise<{ readonly result: PropertyOutcome; readonly ms?: number }> {
  const job: FuzzJob = {
    kind: 'fuzz',
    property: def.id,
    seed: options.seed,
    runs: runsFor(def, options.runs),
    tails: options.tails,
    variant: options.variant,
    ...(options.shrink === false ? { shrink: false } : {}),
    modules: options.modules,
    cwd: options.cwd,
    ...(timeShare !== undefined ? { timeShare } : {}),
  };
  const onRuns = options.onRuns;
  // User code is judged here, from the records of its runs, never where it ran (worker/judge.ts).
  const judge =
    job.modules.provider !== undefined || job.modules.consumer !== undefined ? new CampaignJudge(job) : null;
  // With user code, run 0 is watched as it runs (nothing of that changes a verdict, fuzz.ts FuzzProbe):
  // a module that hangs mostly hangs there, and then no fresh worker need find it again (diagnose).
  const first = new Watched();
  const end = await host.run<PropertyOutcome>(judge ? { ...job, watch: 0 } : job, {
    budgetMs: options.watchdogMs,
    ...(onRuns ? { onRuns: (runs: number) => onRuns(def, runs) } : {}),
    ...(judge
      ? { onMessage: (m: WorkerMessage) => (m.type === 'record' ? judge.take(m) : first.take(m)) }
      : {}),
  });
  const fresh = host.lastJobFresh === true;
  if (end.kind !== 'done')
    return { result: await diagnose(host, def, job, end, options.watchdogMs, { fresh, watched: first }) };
  const judged = judge ? judge.outcome(end.result) : end.result;
  // A failure with user modules is re-run in a fresh instance of them: does it depend on earlier runs?
  const result =
    options.isolationCheck === false
      ? judged
      : await checkModuleIsolation(job, judged, options.watchdogMs, freshRunKnown(fresh, job, judge, judged));
  return end.ms !== undefined ? { result, ms: end.ms } : { result };
}

/**
 * The isolation check's run in a fresh instance of the modules, when the campaign already made it,
 * so that no worker is started for it: the job was its worker's first (`fresh`: the modules were
 * loaded for it, and nothing of theirs ran before its run 1), it plants no bug (a replay job first
 * runs the planted bugs' reach check on the module, jobs.ts checkReaches: then the states differ),
 * and the failing scenario is run 1's (found at once, not shrunk). The check's replay would load the
 * same modules afresh and run that scenario first — run 1 again: the same verdict and trace hash,
 * which the judge already has. Any other failure is re-run in a fresh worker, as before.
 */
function freshRunKnown(
  fresh: boolean,
  job: FuzzJob,
  judge: CampaignJudge | null,
  outcome: PropertyOutcome,
): FreshRun | null {
  const failure = outcome.failure;
  if (!fresh || judge === null || !failure) return null;
  if (job.variant.providerBugs.length > 0 || job.variant.consumerBugs.length > 0) return null;
  return judge.firstRunOf(failure.replay.scenario);
}

function writeFailure(def: PropertyDef, outcome: PropertyOutcome, options: CampaignOptions): string | null {
  const failure = outcome.failure;
  if (!failure) return null;
  const file = replayFilePath(options.outDir, def.id, options.seed);
  writeReplayFile(file, failure.replay, options.modules, options.cwd);
  writeDiagramFile(diagramFilePath(file), failure.events);
  return file;
}

/** Writes the replay of each missed floor's witness run (`<property>-floor-<label>-<seed>`); the outcome names the files. */
function writeFloorWitnesses(
  def: PropertyDef,
  outcome: PropertyOutcome,
  options: CampaignOptions,
): PropertyOutcome {
  const witnesses = outcome.floorWitnesses;
  if (!witnesses) return outcome;
  const written = witnesses.map((w) => {
    const file = replayFilePath(options.outDir, `${def.id}-floor-${labelSlug(w.label)}`, options.seed);
    writeReplayFile(file, w.replay, options.modules, options.cwd);
    return { ...w, file };
  });
  return { ...outcome, floorWitnesses: written };
}

export async function runCampaign(
  defs: readonly PropertyDef[],
  options: CampaignOptions,
): Promise<CampaignEntry[]> {
  const slots = Math.max(1, Math.min(options.workers, defs.length));
  // With --time, the properties share the wall time until one deadline: each job takes, when it
  // starts, what is left divided by the rounds of jobs still to come (jobs.ts timeShareMs), so a
  // worker that loads late or a count of properties the threads do not divide cannot overrun it.
  const deadlineMs = options.timeSeconds !== undefined ? wallMs() + options.timeSeconds * 1000 : undefined;
  const index = new Map(defs.map((def, i) => [def, i]));
  const userCode = options.modules.provider !== undefined || options.modules.consumer !== undefined;
  // A long --time campaign runs in worker threads only, like user code: the CLI's thread stays free
  // to answer SIGINT/SIGTERM at once (fuzz.ts prints the report so far); a job on the CLI's own
  // thread holds the signal until its property finishes. Shorter campaigns keep the CLI's thread
  // working: a worker's start-up (~1-2 s each) would cost them a large share of their runs.
  const keepCliThreadFree = userCode || (options.timeSeconds ?? 0) >= INTERRUPTIBLE_AFTER_SECONDS;
  // A worker started ahead is of the kind and heap size this spread starts (else it is not needed).
  const started = options.started?.threads === slots && userCode ? options.started.host : undefined;
  if (options.started && !started) await options.started.host.close();
  return runSpread(defs, {
    workers: slots,
    userCode: keepCliThreadFree,
    ...(started ? { started } : {}),
    run: async (host, def): Promise<CampaignEntry> => {
      const started = options.now();
      const share =
        deadlineMs !== undefined
          ? { deadlineMs, threads: slots, index: index.get(def) ?? 0, count: defs.length }
          : undefined;
      const { result, ms } = await fuzzOne(host, def, options, share);
      const replayFile = writeFailure(def, result, options);
      // Shared jobs (more than one thread) were all asked for at once: the job's own time, then.
      return {
        def,
        result: writeFloorWitnesses(def, result, options),
        replayFile,
        ms: ms ?? options.now() - started,
      };
    },
    ...(options.onStart ? { onStart: options.onStart } : {}),
    ...(options.onResult ? { onResult: options.onResult } : {}),
  });
}
