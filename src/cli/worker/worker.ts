/**
 * A worker thread of the CLI: it loads the user's modules and runs jobs — one property's campaign, a
 * replay, or just loading the modules to check them — one at a time, answering each with plain data
 * (protocol.ts). Before each run of a campaign it bumps a shared counter: the CLI's watchdog reads it
 * to tell a slow campaign from a run that never ends, and which run that was.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fuzzProperty, replayScenario } from '../../../properties/fuzz.ts';
import { type PropertyDef, propertyById } from '../../../properties/suites.ts';
import type { TraceEvent } from '../../sim/trace.ts';
import { type ConsumerModule, loadConsumerModule, withConsumer } from '../consumer-module.ts';
import { CliError } from '../errors.ts';
import {
  loadProviderModule,
  type ProviderModule,
  UserModuleError,
  withProviders,
} from '../provider-module.ts';
import { checkScenarioFits } from '../replay-file.ts';
import type {
  FuzzJob,
  Job,
  LoadOutcome,
  ModuleSpecs,
  PropertyOutcome,
  ReplayJob,
  ReplayOutcome,
  WorkerMessage,
} from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread of the cetp-sim CLI');
/** [0]: how many runs of the current campaign have started (the watchdog's heartbeat). */
const heartbeat = new Int32Array((workerData as { heartbeat: SharedArrayBuffer }).heartbeat);

const post = (message: WorkerMessage): void => port.postMessage(message);

/** Modules are loaded once per worker (a worker serves one command's jobs, all with the same modules). */
const loaded = new Map<string, Promise<ProviderModule | ConsumerModule>>();

function providerOf(specs: ModuleSpecs): Promise<ProviderModule> | null {
  const specifier = specs.modules.provider;
  if (specifier === undefined) return null;
  const key = `provider\0${specs.cwd}\0${specifier}`;
  if (!loaded.has(key)) loaded.set(key, loadProviderModule(specifier, specs.cwd));
  return loaded.get(key) as Promise<ProviderModule>;
}

function consumerOf(specs: ModuleSpecs): Promise<ConsumerModule> | null {
  const specifier = specs.modules.consumer;
  if (specifier === undefined) return null;
  const key = `consumer\0${specs.cwd}\0${specifier}`;
  if (!loaded.has(key)) loaded.set(key, loadConsumerModule(specifier, specs.cwd));
  return loaded.get(key) as Promise<ConsumerModule>;
}

async function propertyFor(job: ModuleSpecs & { readonly property: string }): Promise<PropertyDef> {
  let def = propertyById(job.property);
  if (!def) throw new CliError('unknown_property', `unknown property '${job.property}'`);
  const provider = providerOf(job);
  if (provider) def = withProviders(def, await provider);
  const consumer = consumerOf(job);
  if (consumer) def = withConsumer(def, await consumer);
  return def;
}

async function fuzz(job: FuzzJob): Promise<PropertyOutcome> {
  const def = await propertyFor(job);
  const watch = job.watch;
  const result = await fuzzProperty(def, {
    seed: job.seed,
    runs: job.runs,
    tails: job.tails,
    variant: job.variant,
    ...(job.timeLimitMs !== undefined ? { timeLimitMs: job.timeLimitMs } : {}),
    probe: {
      started: (index) => Atomics.store(heartbeat, 0, index + 1),
      ...(watch !== undefined
        ? {
            watch: {
              index: watch,
              scenario: (scenario) => post({ type: 'scenario', scenario }),
              event: (event: TraceEvent) => post({ type: 'event', event }),
            },
          }
        : {}),
    },
  });
  const failure = result.failure;
  return {
    id: result.id,
    runs: result.runs,
    status: result.status,
    exercised: result.exercised,
    ...(result.vacuity !== undefined ? { reason: result.vacuity } : {}),
    ...(failure
      ? {
          failure: {
            replay: failure.replay,
            violations: failure.run.violations,
            events: failure.run.world.trace.events,
            steps: failure.run.report.steps,
          },
        }
      : {}),
  };
}

async function replay(job: ReplayJob): Promise<ReplayOutcome> {
  const def = await propertyFor(job);
  checkScenarioFits(job.path, job.replay, def);
  Atomics.store(heartbeat, 0, 1);
  const hooks = job.stream
    ? {
        world(world: { trace: { onRecord: ((e: TraceEvent) => void) | null } }) {
          world.trace.onRecord = (event) => post({ type: 'event', event });
        },
      }
    : {};
  const run = await replayScenario(def, job.replay, hooks);
  return { violations: run.violations, traceHash: run.report.traceHash, events: run.world.trace.events };
}

async function load(job: ModuleSpecs): Promise<LoadOutcome> {
  const provider = await providerOf(job);
  const consumer = await consumerOf(job);
  return {
    ...(provider
      ? { provider: { specifier: provider.specifier, names: provider.providers.map((p) => p.name) } }
      : {}),
    ...(consumer ? { consumer: { specifier: consumer.specifier, name: consumer.consumer.name } } : {}),
  };
}

function errorMessage(error: unknown): WorkerMessage {
  if (error instanceof CliError)
    return { type: 'error', code: error.code, message: error.message, exit: error.exitCode };
  if (error instanceof UserModuleError)
    return { type: 'error', code: 'provider_module_failed', message: error.message, exit: 2 };
  const message = error instanceof Error ? error.message : String(error);
  const stack = process.env.CETP_SIM_DEBUG && error instanceof Error ? `\n${error.stack ?? ''}` : '';
  return { type: 'error', code: 'internal_error', message: `${message}${stack}`, exit: 3 };
}

port.on('message', async (job: Job) => {
  Atomics.store(heartbeat, 0, 0);
  try {
    const result =
      job.kind === 'fuzz' ? await fuzz(job) : job.kind === 'replay' ? await replay(job) : await load(job);
    post({ type: 'result', result });
  } catch (error) {
    post(errorMessage(error));
  }
});
