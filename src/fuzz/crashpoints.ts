/**
 * Exhaustive crash points (CETP-4.4-17: "killing the Provider process at each step of an effectful
 * call and retrying with the same request_id yields exactly one business effect").
 *
 * A mutating flow — a synchronous write; a confirmation and its resume; an async operation polled
 * and cancelled; a file result — is first run without faults, which counts its scheduler steps N.
 * Then it runs N more times, the k-th with a `kill` fault before step k (faults are data, applied
 * deterministically): once killing the provider's process at each step, and separately the
 * consumer's. Each kill is followed by recovery: on the provider side the raw driver re-sends the
 * same request_id (its retry after a Binder failure, then an explicit retry of the whole flow) and
 * finally sends a fresh request to see the provider still works; on the consumer side the reference
 * consumer is restarted after the flow's fault-free end and re-sends the request it journaled.
 * Every run is judged by the crash-point properties' oracles (crashpoint-oracles.ts).
 *
 * Which tool makes which flow is found by running each candidate once without faults, so a user's
 * providers (`--provider`) get the same flows as the reference apps, where they offer them.
 */
import type { Violation } from '../check/checker.ts';
import type { CallView } from '../check/observation.ts';
import type { FaultAt } from '../sim/core/faults.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { REPLAY_FORMAT, type ReplayFile } from './fuzz.ts';
import {
  type ConsumerRun,
  type ConsumerScenario,
  REFERENCE_CONSUMER,
  runConsumerScenario,
} from './scenario/consumer.ts';
import type { Command, RidRef, Scenario, Variant } from './scenario/model.ts';
import { runScenario, type ScenarioRun } from './scenario/runner.ts';
import type { ConsumerPropertyDef, RawPropertyDef } from './suites.ts';

/** The flows whose every scheduling point is a crash point, in report order. */
export const FLOW_KINDS = ['sync-write', 'confirmation', 'async-cancel', 'file-result'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

/** Whose process each run kills. */
export const CRASH_SIDES = ['provider', 'consumer'] as const;
export type CrashSide = (typeof CRASH_SIDES)[number];

/** One flow: a tool of a provider, called with one entry of its args pool. */
export interface CrashFlow {
  readonly kind: FlowKind;
  /** The provider fixture's name (as scenarios name it) and its package (the process killed). */
  readonly provider: string;
  readonly packageName: string;
  readonly tool: string;
  readonly args: number;
}

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];
/** Without async_operations: a sync_or_async tool runs synchronously. */
const SYNC_CAPS = ['cancellation', 'large_results'];
/** Indexes into CONSUMER_CAPABILITY_SETS: every capability, and the set without async_operations. */
const CONSUMER_ALL_CAPS = 0;
const CONSUMER_SYNC_CAPS = 3;
/** How long after the start the async flow's cancellation is asked for (ms of virtual time). */
const CANCEL_AFTER_MS = 1_000;
/** Args pool entries tried per tool when looking for a flow. */
const ARGS_TRIED = 4;

function capsOf(kind: FlowKind): string[] {
  return kind === 'async-cancel' ? ALL_CAPS : SYNC_CAPS;
}

function execute(flow: CrashFlow, rid: RidRef): Command {
  return {
    kind: 'execute',
    provider: flow.provider,
    tool: flow.tool,
    args: flow.args,
    rid,
    expiredDeadline: false,
    confirmedFlag: false,
    resolve: 'honest',
    duplicates: 0,
  };
}

/**
 * The raw driver's flow: negotiate, execute (resolving any grant or confirmation honestly), for the
 * async flow poll and cancel; then the retry — the same request_id and args, resolved again if
 * asked — and a fresh request of the same tool that shows the provider still answers.
 */
export function rawFlowScenario(flow: CrashFlow, faults: readonly FaultAt[], recovery = true): Scenario {
  const async = flow.kind === 'async-cancel';
  const poll: Command = { kind: 'poll', other: false };
  const commands: Command[] = [
    { kind: 'negotiate', caps: capsOf(flow.kind) },
    execute(flow, { kind: 'fresh' }),
    ...(async ? [poll, { kind: 'cancel', other: false, afterMs: 0 } as const] : []),
    ...(recovery ? [execute(flow, { kind: 'reuse', index: 0 }), ...(async ? [poll] : [])] : []),
    ...(recovery ? [execute(flow, { kind: 'fresh' })] : []),
  ];
  return { seed: 0, tail: 'fifo', actors: { a: commands }, user: [], faults, decisions: [] };
}

/** The reference consumer's flow: one agent request (cancelled after a while for the async flow). */
export function consumerFlowScenario(
  flow: CrashFlow,
  faults: readonly FaultAt[],
  restartAtMs: number | null,
): ConsumerScenario {
  const async = flow.kind === 'async-cancel';
  return {
    seed: 0,
    tail: 'fifo',
    threads: [
      [
        {
          kind: 'execute',
          provider: flow.provider,
          tool: flow.tool,
          args: flow.args,
          cancelAfterMs: async ? CANCEL_AFTER_MS : null,
        },
      ],
    ],
    consumerRestartsAtMs: restartAtMs === null ? [] : [restartAtMs],
    hostile: null,
    consumerCaps: async ? CONSUMER_ALL_CAPS : CONSUMER_SYNC_CAPS,
    user: [],
    faults,
    decisions: [],
  };
}

// ---- finding the flows ---------------------------------------------------------------------------

function bundle(c: CallView) {
  return c.reply.kind === 'bundle' ? c.reply : null;
}

/** Whether a fault-free run of `candidate` (without recovery) is the flow it stands for. */
function showsFlow(run: ScenarioRun, candidate: CrashFlow): boolean {
  if (run.violations.length > 0) return false;
  const calls = run.observation.calls.filter(
    (c) => c.method === 'execute_tool' && c.provider === candidate.packageName,
  );
  const replies = calls.map(bundle).filter((r) => r !== null);
  const confirmed = replies.some((r) => r.errorCode === 'USER_ACTION_REQUIRED');
  const last = replies.at(-1);
  const file = (last?.data as { kind?: unknown } | undefined)?.kind === 'file';
  const effects = run.observation.effects.length;
  switch (candidate.kind) {
    case 'sync-write':
      return !confirmed && last?.status === 'success' && !file && effects === 1;
    case 'confirmation':
      return confirmed && last?.status === 'success' && effects === 1;
    case 'async-cancel':
      return !confirmed && replies.some((r) => r.status === 'accepted');
    case 'file-result':
      return last?.status === 'success' && file;
  }
}

/**
 * The first tool (providers, tools and args in their fixture order) whose fault-free run is a `kind`
 * flow, or null when none is. Writes for the three mutating flows; any tool for a file result.
 */
export async function findFlow(
  def: RawPropertyDef,
  kind: FlowKind,
  variant: Variant,
): Promise<CrashFlow | null> {
  for (const p of def.fixture.providers) {
    for (const [tool, pool] of Object.entries(p.tools)) {
      if (kind !== 'file-result' && p.effects[tool] === 'read') continue;
      for (let args = 0; args < Math.min(ARGS_TRIED, pool.length); args++) {
        const candidate: CrashFlow = { kind, provider: p.name, packageName: p.packageName, tool, args };
        const run = await runScenario(def.fixture, rawFlowScenario(candidate, [], false), variant);
        if (showsFlow(run, candidate)) return candidate;
      }
    }
  }
  return null;
}

// ---- running every point -------------------------------------------------------------------------

/** A kill of `process` before step `at`. */
export function killAt(at: number, process: string): FaultAt {
  return { at, fault: { kind: 'kill', process } };
}

export interface PointFailure {
  /** The step the kill came before (-1: the fault-free run itself failed). */
  readonly step: number;
  readonly violations: readonly Violation[];
  readonly replay: ReplayFile;
  readonly events: readonly TraceEvent[];
}

export interface SideReport {
  readonly side: CrashSide;
  /** The process killed. */
  readonly process: string;
  /** Scheduler steps of the fault-free run: one crash point each. */
  readonly points: number;
  /** Points whose kill found the process running (the others killed nothing). */
  readonly live: number;
  /** Points whose kill was applied (always all of them: the run is the fault-free one up to it). */
  readonly applied: number;
  /** The steps whose run broke a rule, in order. */
  readonly failedSteps: readonly number[];
  /** The first failing run, with its replay. */
  readonly failure?: PointFailure;
}

export interface CrashpointOptions {
  readonly variant: Variant;
  /** Called as each run starts, numbered from 0 (the watchdog's heartbeat). */
  readonly started?: (run: number) => void;
  /** Called with every point's run as it ends (step -1: the fault-free run), for a judge elsewhere. */
  readonly recorded?: (
    side: CrashSide,
    step: number,
    scenario: Scenario | ConsumerScenario,
    run: AnyRun,
  ) => void;
}

type AnyRun = ScenarioRun | ConsumerRun;

/** A point's replay file; `run` is a run or what a judge knows of one (its hash and violations). */
export function pointReplayOf(
  def: RawPropertyDef | ConsumerPropertyDef,
  variant: Variant,
  scenario: Scenario | ConsumerScenario,
  run: { readonly report: { readonly traceHash: string }; readonly violations: readonly Violation[] },
  runIndex: number,
): ReplayFile {
  return {
    format: REPLAY_FORMAT,
    property: def.id,
    rules: def.ruleIds,
    fuzz: { seed: 0, path: '', runsToFailure: runIndex + 1, shrinks: 0 },
    variant,
    scenario,
    traceHash: run.report.traceHash,
    violations: run.violations.map(({ checker, ruleIds, class: cls, message }) => ({
      checker,
      ruleIds,
      class: cls,
      message,
    })),
  };
}

/** Every point of one side: the fault-free run, then one run per step with a kill before it. */
async function runSide(
  side: CrashSide,
  process: string,
  def: RawPropertyDef | ConsumerPropertyDef,
  scenarioAt: (faults: readonly FaultAt[]) => Scenario | ConsumerScenario,
  options: CrashpointOptions,
  runIndex: { next: number },
): Promise<SideReport> {
  const run = (scenario: Scenario | ConsumerScenario): Promise<AnyRun> => {
    // Counted whether or not anyone listens (an optional call would skip its argument's increment).
    const index = runIndex.next++;
    options.started?.(index);
    return def.kind === 'raw'
      ? runScenario(def.fixture, scenario as Scenario, options.variant)
      : runConsumerScenario(def.fixture, scenario as ConsumerScenario, options.variant);
  };
  const failing = (step: number, scenario: Scenario | ConsumerScenario, r: AnyRun): PointFailure => ({
    step,
    violations: r.violations,
    replay: pointReplayOf(def, options.variant, scenario, r, runIndex.next - 1),
    events: r.world.trace.events,
  });
  const faultFree = scenarioAt([]);
  const base = await run(faultFree);
  options.recorded?.(side, -1, faultFree, base);
  const points = base.report.steps;
  if (base.violations.length > 0)
    return {
      side,
      process,
      points,
      live: 0,
      applied: 0,
      failedSteps: [-1],
      failure: failing(-1, faultFree, base),
    };
  let live = 0;
  let applied = 0;
  const failedSteps: number[] = [];
  let failure: PointFailure | undefined;
  for (let step = 0; step < points; step++) {
    const scenario = scenarioAt([killAt(step, process)]);
    const r = await run(scenario);
    options.recorded?.(side, step, scenario, r);
    if (r.report.unappliedFaults.length === 0) applied++;
    if (
      r.world.trace.events.some(
        (e) => e.kind === 'process.kill' && e.step === step && e.data.actor === process,
      )
    )
      live++;
    if (r.violations.length === 0) continue;
    failedSteps.push(step);
    failure ??= failing(step, scenario, r);
  }
  return { side, process, points, live, applied, failedSteps, ...(failure ? { failure } : {}) };
}

export interface FlowReport {
  readonly kind: FlowKind;
  /** The tool that makes the flow, or null when no provider under test offers it. */
  readonly flow: CrashFlow | null;
  readonly sides: readonly SideReport[];
}

/**
 * Every crash point of one flow on both sides: the provider killed (raw driver, `raw`), then the
 * consumer killed (the reference consumer, `consumer`). The defs carry the providers under test.
 */
export async function crashpointsOfFlow(
  kind: FlowKind,
  defs: { readonly raw: RawPropertyDef; readonly consumer: ConsumerPropertyDef },
  options: CrashpointOptions,
): Promise<FlowReport> {
  const flow = await findFlow(defs.raw, kind, options.variant);
  if (!flow) return { kind, flow: null, sides: [] };
  const runIndex = { next: 0 };
  const provider = await runSide(
    'provider',
    flow.packageName,
    defs.raw,
    (faults) => rawFlowScenario(flow, faults),
    options,
    runIndex,
  );
  // The consumer is restarted once the fault-free flow is over: a kill at any earlier step is then
  // followed by a start that resumes the journal; a kill after it finds nothing left to do.
  const plain = await runConsumerScenario(
    defs.consumer.fixture,
    consumerFlowScenario(flow, [], null),
    options.variant,
  );
  const restartAtMs = plain.world.clock.elapsedRealtime() + 1_000;
  const consumerPackage = (defs.consumer.fixture.consumer ?? REFERENCE_CONSUMER).packageName;
  const consumer = await runSide(
    'consumer',
    consumerPackage,
    defs.consumer,
    (faults) => consumerFlowScenario(flow, faults, restartAtMs),
    options,
    runIndex,
  );
  return { kind, flow, sides: [provider, consumer] };
}
