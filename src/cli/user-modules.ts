/**
 * Loading the user's modules for a command: in a worker thread under the watchdog (a module whose top
 * level never returns cannot hang the CLI), answering only what the CLI prints about them. The runs
 * load them again in their own workers; the CLI's own thread never runs user code.
 */

import type { Violation } from '../check/checker.ts';
import type { Variant } from '../fuzz/scenario/model.ts';
import { CliError } from '../harness/errors.ts';
import { MODULE_STATE_CHECKER } from '../harness/fuzz.ts';

export { MODULE_STATE_CHECKER };

import type { ReplayModules } from '../harness/code-identity.ts';
import type { ReplayRun } from '../harness/replay-core.ts';
import { userCodeBundle } from './worker/bundle.ts';
import { MODULE_FORGES_VERDICT } from './worker/forged.ts';
import { type Host, WorkerHost } from './worker/pool.ts';
import type { FuzzJob, LoadOutcome, PropertyOutcome } from './worker/protocol.ts';
import { workerReplayRunner } from './worker/replay-runner.ts';

export async function loadModules(
  modules: ReplayModules,
  cwd: string,
  watchdogMs: number,
  variant?: Variant,
): Promise<LoadOutcome> {
  if (modules.provider === undefined && modules.consumer === undefined) return {};
  await userCodeBundle(modules); // the worker starts from it (worker/bundle.ts), as the campaign's do
  const host = new WorkerHost();
  try {
    return await loadOn(host, modules, cwd, watchdogMs, variant);
  } finally {
    await host.close();
  }
}

/** Runs the load job on `host`; a prelude when no variant is checked (WorkerHost JobWatch.prelude). */
async function loadOn(
  host: WorkerHost,
  modules: ReplayModules,
  cwd: string,
  watchdogMs: number,
  variant: Variant | undefined,
): Promise<LoadOutcome> {
  const job = { kind: 'load' as const, modules, cwd, ...(variant ? { variant } : {}) };
  const end = await host.run<LoadOutcome>(job, { budgetMs: watchdogMs, prelude: variant === undefined });
  if (end.kind === 'done') return end.result;
  throw new CliError('module_load_failed', `loading ${describe(modules)}: ${end.reason}`);
}

/** A worker started ahead for a campaign of `threads` threads, with the threads it was sized for. */
export interface StartedHost {
  readonly host: Host;
  readonly threads: number;
}

/**
 * loadModules, with the campaign's first worker thread starting meanwhile: booting a worker (Node's
 * bootstrap, the split bundle, tsx) takes about as long as the load job, and user code runs in it
 * only once the campaign posts its first job, so starting it early changes nothing but the wall time
 * to the first run. The campaign adopts it (runCampaign, `started`) if it runs on `threads` threads;
 * it is closed here if loading fails.
 */
export async function loadModulesAhead(
  modules: ReplayModules,
  cwd: string,
  watchdogMs: number,
  ahead: { readonly threads: number; readonly variant: Variant | undefined },
): Promise<{ loaded: LoadOutcome; started: StartedHost | null }> {
  if (modules.provider === undefined && modules.consumer === undefined) return { loaded: {}, started: null };
  await userCodeBundle(modules); // before any worker boots: it says which code the workers load
  const host = new WorkerHost(undefined, ahead.threads);
  void host.ready();
  try {
    // Without a variant, the load job is what the campaign's first job on this worker would run
    // first anyway (its ModuleCache keeps the modules), so it runs there: one worker boot fewer,
    // and that first job is still fresh. A variant's check runs more user code: a worker of its own.
    const loaded =
      ahead.variant === undefined
        ? await loadOn(host, modules, cwd, watchdogMs, undefined)
        : await loadModules(modules, cwd, watchdogMs, ahead.variant);
    return { loaded, started: { host, threads: ahead.threads } };
  } catch (error) {
    await host.close();
    throw error;
  }
}

/** What a campaign runs against, for its header: the user's provider or the reference apps, and the bug. */
export function targetOf(loaded: LoadOutcome, mutant: { readonly id: string } | null): string {
  return [
    loaded.provider
      ? `--provider ${loaded.provider.specifier} (${loaded.provider.names.join(', ')})`
      : 'the reference apps',
    mutant ? `with planted bug ${mutant.id}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function describe(modules: ReplayModules): string {
  return [
    modules.provider !== undefined ? `--provider ${modules.provider}` : '',
    modules.consumer !== undefined ? `--consumer ${modules.consumer}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

/** A run of the failing scenario in a fresh instance of the user's modules: its verdict and trace hash. */
export interface FreshRun {
  readonly violations: readonly { readonly checker: string }[];
  readonly traceHash: string;
}

/**
 * Module state isolation (issue #14): a campaign loads the user's modules once per worker, so state
 * a module keeps at its top level (a counter, a cache, a singleton) survives from run to run, and a
 * failure may depend on the runs before it — then its replay file, which `cetp-sim replay` runs in a
 * fresh process, does not reproduce it. So a failure found with user modules is re-run at once in a
 * fresh worker (fresh instances of the modules, as replay will have): if the verdict or the trace
 * differs there, the failure gets a `module-state-isolation` verdict saying so, with the evidence.
 * `known`: that fresh run, when the campaign already made it (campaign.ts freshRunKnown): no worker
 * is started then.
 */
export async function checkModuleIsolation(
  job: FuzzJob,
  outcome: PropertyOutcome,
  watchdogMs: number,
  known: FreshRun | null = null,
): Promise<PropertyOutcome> {
  const failure = outcome.failure;
  const userCode = job.modules.provider !== undefined || job.modules.consumer !== undefined;
  // A campaign-level verdict (tool-never-succeeds) or a hung run has no single run to compare.
  if (!failure || !userCode || failure.replay.campaign || failure.replay.traceHash === '') return outcome;
  let fresh: FreshRun;
  if (known !== null) fresh = known;
  else {
    try {
      const runner = workerReplayRunner(job.modules, watchdogMs, job.cwd, false);
      const run: ReplayRun = await runner.run(
        `${job.property} run ${failure.replay.fuzz.runsToFailure}`,
        failure.replay,
      );
      if (!run.finished) return outcome;
      fresh = run;
    } catch {
      return outcome; // the module fails in a fresh worker too: that failure is reported as it is
    }
  }
  // The judge's word on a forged verdict is about the campaign's worker, not the run.
  const verdict = (vs: readonly { checker: string }[]) =>
    [...new Set(vs.map((v) => v.checker).filter((c) => c !== MODULE_FORGES_VERDICT))].sort().join(', ');
  const before = verdict(failure.violations);
  const after = verdict(fresh.violations);
  if (before === after && fresh.traceHash === failure.replay.traceHash) return outcome;
  const earlier = failure.replay.fuzz.runsToFailure - 1 + failure.replay.fuzz.shrinks;
  const leak: Violation = {
    checker: MODULE_STATE_CHECKER,
    ruleIds: [],
    class: 'correctness',
    message:
      `module state leaks between runs: this failure (${before || 'no violation'}) came after ${earlier} earlier run(s) in the same ` +
      `instance of ${describe(job.modules)}; re-run at once in a fresh instance the same scenario ` +
      (after === '' ? 'passes' : `fails differently (${after})`) +
      ` (trace sha256 ${fresh.traceHash.slice(0, 16)}…, was ${failure.replay.traceHash.slice(0, 16)}…), so its replay ` +
      'file may not reproduce it. Keep per-run state in what install() creates (the World, the app), not at module top level.',
    events: [],
    calls: [],
  };
  return { ...outcome, failure: { ...failure, violations: [...failure.violations, leak] } };
}
