/**
 * The jobs the CLI runs — one property's campaign, a replay, loading the user's modules to check
 * them, hunting one planted bug, ablating one rule, running one vector file — as functions of plain data to plain data (protocol.ts). A worker thread runs them for user
 * code (worker.ts, under the watchdog); the CLI runs them in its own thread when there is no user code
 * to guard against and one thread was asked for.
 */

import { CRASHPOINTS_CONSUMER, CRASHPOINTS_RAW } from '../../fuzz/crashpoint-oracles.ts';
import { crashpointsOfFlow, type FlowReport } from '../../fuzz/crashpoints.ts';
import { fuzzProperty, type RecordPhase, type ReplayFile, replayScenario } from '../../fuzz/fuzz.ts';
import { ablateRule, huntMutant } from '../../fuzz/hunt.ts';
import { mutantById } from '../../fuzz/mutants.ts';
import type { ProviderFixture } from '../../fuzz/scenario/fixtures.ts';
import type { ScenarioRun } from '../../fuzz/scenario/runner.ts';
import { type ConsumerPropertyDef, propertyById, type RawPropertyDef } from '../../fuzz/suites.ts';
import { CliError } from '../../harness/errors.ts';
import { type Thrown, thrownInLastRun } from '../../harness/escapes.ts';
import { propertyUnderTest, type ResolvedSubjects, replayProperty } from '../../harness/replay-core.ts';
import type { TraceEvent } from '../../sim/core/trace.ts';
import type { Variant } from '../../subjects/subjects.ts';
import { blobReader } from '../../vectors/corpus.ts';
import { REFERENCE_FIXTURES } from '../../vectors/fixtures.ts';
import { runVectorFile, type VectorOutcome } from '../../vectors/run.ts';
import { type ConsumerModule, checkConsumerVariantReaches, loadConsumerModule } from '../consumer-module.ts';
import {
  checkVariantReaches,
  loadProviderModule,
  type ProviderModule,
  UserModuleError,
  withProviders,
} from '../provider-module.ts';
import { isModuleVerdict, moduleVerdictsFirst } from './judge.ts';
import { catalogueOf } from './judge-scenarios.ts';
import type {
  AblateJob,
  CrashpointsJob,
  FuzzJob,
  Job,
  JobResult,
  LoadJob,
  LoadOutcome,
  ModuleSpecs,
  MutantJob,
  PropertyOutcome,
  RecordMessage,
  ReplayJob,
  ReplayOutcome,
  TimeShare,
  VectorFileJob,
  WorkerMessage,
} from './protocol.ts';
import { wallMs } from './telemetry.ts';

/** How a job reports while it runs: a run started (the heartbeat), a watched run's scenario and trace. */
export interface JobChannel {
  started(runs: number): void;
  post(message: WorkerMessage): void;
}

/** Loaded modules, by kind, directory and specifier (a worker serves one command's jobs). */
export class ModuleCache {
  private readonly loaded = new Map<string, Promise<ProviderModule | ConsumerModule>>();

  provider(specs: ModuleSpecs): Promise<ProviderModule> | null {
    return this.module('provider', specs, loadProviderModule);
  }

  consumer(specs: ModuleSpecs): Promise<ConsumerModule> | null {
    return this.module('consumer', specs, loadConsumerModule);
  }

  /** The `kind` module `specs` names, loaded once per directory and specifier (null: none named). */
  private module<T extends ProviderModule | ConsumerModule>(
    kind: 'provider' | 'consumer',
    specs: ModuleSpecs,
    load: (specifier: string, cwd: string) => Promise<T>,
  ): Promise<T> | null {
    const specifier = specs.modules[kind];
    if (specifier === undefined) return null;
    return this.once(`${kind}\0${specs.cwd}\0${specifier}`, () => load(specifier, specs.cwd)) as Promise<T>;
  }

  private once<T extends ProviderModule | ConsumerModule>(key: string, load: () => Promise<T>): Promise<T> {
    let module = this.loaded.get(key);
    if (!module) {
      module = load();
      this.loaded.set(key, module);
    }
    return module as Promise<T>;
  }
}

/** The job's user modules, loaded, as the implementations under test (none: the reference ones). */
async function subjectsOf(modules: ModuleCache, job: ModuleSpecs): Promise<ResolvedSubjects> {
  const providers = await modules.provider(job);
  const consumer = await modules.consumer(job);
  return { ...(providers ? { providers } : {}), ...(consumer ? { consumer: consumer.consumer } : {}) };
}

/**
 * The wall-clock ms a --time campaign's job gets when it starts at `nowMs`: what is left until the
 * deadline, divided by the rounds of jobs still to run on `threads` threads (this one included) —
 * so every thread ends by the deadline whenever it started (a worker that loaded late, a count of
 * properties the threads do not divide) and each job gets about the same time. The last job on a
 * thread takes all that is left.
 */
export function timeShareMs(share: TimeShare, nowMs: number): number {
  const rounds = Math.ceil((share.count - share.index) / Math.max(1, share.threads));
  return Math.max(1, Math.floor((share.deadlineMs - nowMs) / Math.max(1, rounds)));
}

async function fuzz(modules: ModuleCache, job: FuzzJob, channel: JobChannel): Promise<PropertyOutcome> {
  const def = propertyUnderTest(job.property, await subjectsOf(modules, job));
  const watch = job.watch;
  const timeLimitMs = job.timeShare ? timeShareMs(job.timeShare, wallMs()) : job.timeLimitMs;
  const userCode = job.modules.provider !== undefined || job.modules.consumer !== undefined;
  const result = await fuzzProperty(def, {
    seed: job.seed,
    runs: job.runs,
    tails: job.tails,
    variant: job.variant,
    ...(job.shrink === false ? { shrink: false } : {}),
    ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
    probe: {
      started: (index) => channel.started(index + 1),
      // Every run's record, for the judge in the CLI's thread (judge.ts): user code is judged there.
      ...(userCode
        ? {
            recorded: (phase, scenario, run) => channel.post(recordMessage(phase, scenario, run)),
          }
        : {}),
      ...(watch !== undefined
        ? {
            watch: {
              index: watch,
              scenario: (scenario) => channel.post({ type: 'scenario', scenario }),
              event: (event: TraceEvent) => channel.post({ type: 'event', event }),
            },
          }
        : {}),
    },
  });
  const failure = result.failure;
  return {
    // What the scenarios depend on, for the judge to draw them again (judge-scenarios.ts).
    ...(userCode ? { catalogue: catalogueOf(await modules.provider(job), await modules.consumer(job)) } : {}),
    id: result.id,
    runs: result.runs,
    status: result.status,
    exercised: result.exercised,
    frequencies: result.frequencies,
    ...(result.vacuity !== undefined ? { reason: result.vacuity } : {}),
    ...(result.inconclusive ? { inconclusive: result.inconclusive } : {}),
    // With user code the judge in the CLI's thread gives the witnesses, from the runs' records (judge.ts).
    ...(result.floorWitnesses && !userCode
      ? {
          floorWitnesses: result.floorWitnesses.map((replay) => ({
            label: replay.floor?.label ?? '',
            replay,
          })),
        }
      : {}),
    ...(failure
      ? {
          failure: {
            replay: failure.replay,
            violations: moduleVerdictsFirst(failure.run.violations),
            events: failure.run.world.trace.events,
            steps: failure.run.report.steps,
            // What the user's code threw (a reference app's exception is not a module's).
            ...(userCode ? thrownIn(failure.run.world.trace.events) : {}),
          },
        }
      : {}),
  };
}

/**
 * What user code threw in the failing run (it ran last): the errors made in the module's code
 * (escapes.ts), and any exception the simulation saw escape an app (binder.uncaught) whose message
 * matches none of them, without a frame.
 */
function thrownIn(events: readonly TraceEvent[]): { thrown?: readonly Thrown[] } {
  const thrown = [...thrownInLastRun()];
  for (const e of events) {
    if (e.kind !== 'binder.uncaught') continue;
    const error = String(e.data.exception);
    if (!thrown.some((t) => t.error === error))
      thrown.push({ error, frame: `trace event #${e.seq} (${String(e.data.actor)})` });
  }
  return thrown.length > 0 ? { thrown } : {};
}

async function replay(modules: ModuleCache, job: ReplayJob, channel: JobChannel): Promise<ReplayOutcome> {
  const def = replayProperty(job.path, job.replay, await subjectsOf(modules, job));
  await checkReaches(modules, job, job.replay.variant);
  channel.started(1);
  const hooks = job.stream
    ? {
        world(world: { trace: { onRecord: ((e: TraceEvent) => void) | null } }) {
          world.trace.onRecord = (event) => channel.post({ type: 'event', event });
        },
      }
    : {};
  const run = await replayScenario(def, job.replay, hooks);
  // The run's record, for the judge in the CLI's thread (judge-replay.ts): user code is judged there.
  if (job.modules.provider !== undefined || job.modules.consumer !== undefined)
    channel.post(recordMessage('replay', job.replay.scenario, run));
  return { violations: run.violations, traceHash: run.report.traceHash, events: run.world.trace.events };
}

/** Checks that the variant's planted bugs reach the job's modules (a module that could not plant them is refused). */
async function checkReaches(
  modules: ModuleCache,
  job: ModuleSpecs,
  variant: Variant | undefined,
): Promise<void> {
  const provider = await modules.provider(job);
  if (provider && variant) await checkVariantReaches(provider, variant);
  const consumer = await modules.consumer(job);
  if (consumer && variant) await checkConsumerVariantReaches(consumer, variant);
}

async function load(modules: ModuleCache, job: LoadJob): Promise<LoadOutcome> {
  await checkReaches(modules, job, job.variant);
  const provider = await modules.provider(job);
  const consumer = await modules.consumer(job);
  return {
    ...(provider
      ? { provider: { specifier: provider.specifier, names: provider.providers.map((p) => p.name) } }
      : {}),
    ...(consumer ? { consumer: { specifier: consumer.specifier, name: consumer.consumer.name } } : {}),
  };
}

function hunt(job: MutantJob) {
  const mutant = mutantById(job.mutant);
  if (!mutant) throw new CliError('unknown_mutant', `unknown planted bug '${job.mutant}'`);
  return huntMutant(mutant, { ...job, now: () => performance.now() });
}

function ablate(job: AblateJob) {
  if (job.property === undefined) return ablateRule(job.rule, job);
  const def = propertyById(job.property);
  if (!def) throw new CliError('unknown_property', `unknown property '${job.property}'`);
  return ablateRule(job.rule, { ...job, properties: [def] });
}

/** The reference fixtures, or the module's — its one provider standing for `job.fixture` if given. */
async function fixturesFor(modules: ModuleCache, job: VectorFileJob): Promise<readonly ProviderFixture[]> {
  const module = modules.provider(job);
  if (!module) return REFERENCE_FIXTURES;
  const { providers, specifier } = await module;
  if (job.fixture === undefined) return providers;
  if (providers.length !== 1)
    throw new CliError(
      'invalid_usage',
      `--fixture needs a module with one provider; ${specifier} has ${providers.length}`,
    );
  return [{ ...(providers[0] as ProviderFixture), name: job.fixture }];
}

async function vectorFile(modules: ModuleCache, job: VectorFileJob): Promise<VectorOutcome[]> {
  return runVectorFile(job.file, {
    fixtures: await fixturesFor(modules, job),
    profiles: job.profiles,
    blob: blobReader({ dir: job.dir }),
    ...(job.lacks ? { lacks: job.lacks } : {}),
    ...(job.ids ? { ids: job.ids } : {}),
    ...(job.baseline ? { baseline: new Map(job.baseline) } : {}),
    ...(job.variant ? { variant: job.variant } : {}),
    now: () => performance.now(),
    // Each run's record, for the judge in the CLI's thread (judge-vectors.ts): user code is judged there.
    record: job.modules.provider !== undefined,
  });
}

/** Every crash point of one flow, against the reference apps or the module's providers. */
async function crashpoints(
  modules: ModuleCache,
  job: CrashpointsJob,
  channel: JobChannel,
): Promise<FlowReport> {
  let raw: RawPropertyDef = CRASHPOINTS_RAW;
  let consumer: ConsumerPropertyDef = CRASHPOINTS_CONSUMER;
  const provider = modules.provider(job);
  if (provider) {
    const module = await provider;
    raw = withProviders(raw, module) as RawPropertyDef;
    consumer = withProviders(consumer, module) as ConsumerPropertyDef;
  }
  return crashpointsOfFlow(
    job.flow,
    { raw, consumer },
    {
      variant: job.variant,
      started: (run) => channel.started(run + 1),
      // Every point's record, for the judge in the CLI's thread (judge-crashpoints.ts).
      ...(provider
        ? {
            recorded: (side, step, scenario, run) =>
              channel.post({ ...recordMessage('run', scenario, run), point: { side, step } }),
          }
        : {}),
    },
  );
}

/** A run's record message, for a judge in the CLI's thread: user code is judged there. */
function recordMessage(
  phase: RecordPhase,
  scenario: ReplayFile['scenario'],
  run: Pick<ScenarioRun, 'observation' | 'context' | 'violations'>,
): RecordMessage {
  return {
    type: 'record',
    phase,
    scenario,
    record: run.observation.record,
    ...(run.observation.faultFree ? { faultFree: run.observation.faultFree } : {}),
    context: run.context,
    own: run.violations.filter((v) => isModuleVerdict(v.checker)),
  };
}

export function runJob(modules: ModuleCache, job: Job, channel: JobChannel): Promise<JobResult> {
  switch (job.kind) {
    case 'fuzz':
      return fuzz(modules, job, channel);
    case 'replay':
      return replay(modules, job, channel);
    case 'load':
      return load(modules, job);
    case 'mutant':
      return hunt(job);
    case 'ablate':
      return ablate(job);
    case 'vectors':
      return vectorFile(modules, job);
    case 'crashpoints':
      return crashpoints(modules, job, channel);
  }
}

/** A job's error as the message that carries it (a CliError keeps its code and exit code). */
export function errorMessage(error: unknown): Extract<WorkerMessage, { type: 'error' }> {
  if (error instanceof CliError)
    return { type: 'error', code: error.code, message: error.message, exit: error.exitCode };
  if (error instanceof UserModuleError)
    return { type: 'error', code: 'provider_module_failed', message: error.message, exit: 2 };
  const message = error instanceof Error ? error.message : String(error);
  const stack = process.env.CETP_SIM_DEBUG && error instanceof Error ? `\n${error.stack ?? ''}` : '';
  return { type: 'error', code: 'internal_error', message: `${message}${stack}`, exit: 3 };
}
