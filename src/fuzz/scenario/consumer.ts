/**
 * Scenarios that drive the reference consumer (the ExternalToolBridge in its app process) instead of
 * the raw driver: agent threads asking for tool executions (some cancelled after a while),
 * consumer restarts that must resume the journal, provider kills, lost replies, the user's answers,
 * the scheduler's decisions — and optionally one hostile provider case among the reference apps.
 * The consumer decides its own retries, polls, resumes and fallbacks; the oracles judge them.
 */

import fc from 'fast-check';
import type { JsonValue } from '../../base/json.ts';
import type { CheckContext, Checker, Violation } from '../../check/checker.ts';
import { runCheckers } from '../../check/checkers/index.ts';
import { type Observation, observe } from '../../check/observation.ts';
import { type CancelSignal, CONSUMER_PACKAGE, referenceConsumer } from '../../consumer/index.ts';
import { alertsApp, alertsPackage } from '../../providers/apps/alerts.ts';
import { LEGACY_AUTHORITY, LEGACY_PACKAGE, legacyApp, legacyPackage } from '../../providers/apps/legacy.ts';
import { HOSTILE_CASES, installHostile } from '../../providers/hostile/index.ts';
import { HOSTILE_PACKAGE, PEER_PACKAGE } from '../../providers/hostile/manifest.ts';
import { DEFAULT_PROVIDER_OPTIONS } from '../../providers/sdk/types.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Fault, FaultAt } from '../../sim/core/faults.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import type { RunReport, World } from '../../sim/world.ts';
import type { CancellationLike, ConsumerAgentApi, ConsumerUnderTest } from '../../subjects/subjects.ts';
import { faultsOf } from './app-faults.ts';
import {
  type CatalogueUpdate,
  consumerMoves,
  type HostileDraw,
  hostileCaseArb,
  moveArbs,
} from './consumer-reach.ts';
import { ALERTS, checkContext, fillArgs, type ProviderFixture, providerOptions } from './fixtures.ts';
import type { Tail, Variant } from './model.ts';
import { outcomeFields } from './placeholders.ts';
import { type RunHooks, scenarioWorld } from './runner.ts';

export type AgentCommand =
  | {
      readonly kind: 'execute';
      readonly provider: string;
      readonly tool: string;
      readonly args: number;
      /** Cancel the execution after this long (ms), or never. */
      readonly cancelAfterMs: number | null;
      /**
       * The app asks on its main thread (a click handler awaiting the bridge): blocked 5 s, input
       * ANR and the app killed (src/sim/core/main-thread.ts). Only generated with `mainThreadCalls`.
       */
      readonly mainThread?: true;
    }
  | { readonly kind: 'list' }
  | { readonly kind: 'wait'; readonly ms: number };

export interface ConsumerScenario {
  readonly seed: number;
  readonly tail: Tail;
  /** Agent threads of the consumer app, each a list of commands run in order. */
  readonly threads: readonly (readonly AgentCommand[])[];
  /** Kill the consumer at these virtual times; a new process resumes its journal. */
  readonly consumerRestartsAtMs: readonly number[];
  /** Index into HOSTILE_CASES of a hostile provider installed alongside, or null. */
  readonly hostile: number | null;
  /** Capabilities the consumer asks for (index into CONSUMER_CAPABILITY_SETS). */
  readonly consumerCaps: number;
  readonly user: readonly UserDecision[];
  readonly faults: readonly FaultAt[];
  readonly decisions: readonly number[];
  /**
   * Lose the reply of the consumer's Nth committing execute_tool call (a write answered success or
   * accepted, counted over every provider), or none.
   */
  readonly lostExecuteReply?: number | null;
  /**
   * After that lost reply, the provider stays unreachable to the consumer (every reply lost) until
   * no execution the agent asked of it is in flight: the consumer gives up on a call that may have
   * committed (4.1-15, 6-05, 6-08).
   */
  readonly unreachableAfterLostReply?: boolean;
  /** Update the alerts app to a new catalogue (get_quote, delete_alert removed) mid-run (3.3-03/04/05). */
  readonly catalogueUpdate?: CatalogueUpdate;
}

const oneAtATime = (variant: Variant) => ({
  ...providerOptions(variant),
  limits: { ...DEFAULT_PROVIDER_OPTIONS.limits, maxConcurrentRequests: 1 },
});

/** alerts allowing one request at a time per caller: concurrent agent threads meet RATE_LIMITED. */
export const ALERTS_ONE_AT_A_TIME: ProviderFixture = {
  ...ALERTS,
  install: (world, variant) => world.install(alertsPackage(), alertsApp(oneAtATime(variant))),
};

/** The capability sets a consumer may be configured to ask for. */
export const CONSUMER_CAPABILITY_SETS: readonly (readonly (
  | 'async_operations'
  | 'cancellation'
  | 'large_results'
)[])[] = [
  ['async_operations', 'cancellation', 'large_results'],
  ['async_operations', 'large_results'],
  ['async_operations', 'cancellation'],
  ['cancellation', 'large_results'],
];

export const LEGACY: ProviderFixture = {
  name: 'legacy',
  packageName: LEGACY_PACKAGE,
  authority: LEGACY_AUTHORITY,
  install: (world) => world.install(legacyPackage(), legacyApp()),
  effects: { list_cities: 'read', get_weather: 'read' },
  scopes: { list_cities: [], get_weather: [] },
  userGrantedScopes: [],
  tools: { list_cities: [{}], get_weather: [{ city: 'Berlin' }, { city: 'Atlantis' }] },
};

const HOSTILE_TOOLS: Readonly<Record<string, readonly JsonValue[]>> = { lookup: [{ query: 'q' }] };

export interface ConsumerShape {
  readonly providers: readonly ProviderFixture[];
  /** Tools as `provider.tool` (provider 'hostile' for the hostile one). */
  readonly tools: readonly string[];
  readonly hostileCases: readonly number[];
  readonly maxThreads: number;
  readonly maxCommands: number;
  readonly restarts: boolean;
  readonly faults: readonly Fault[];
  readonly maxFaults: number;
  /** Whether a scenario may lose the reply of one execute_tool call (the call that commits). */
  readonly lostExecuteReplies?: boolean;
  /**
   * Whether an execution may be asked for on the consumer's main thread (issue 35 item 5a: one in
   * two; `fuzz --device-faults`). Off by default, so the default campaigns generate as before.
   */
  readonly mainThreadCalls?: boolean;
  /** Whether a scenario may update the alerts app to a new catalogue mid-run (ConsumerScenario.catalogueUpdate). */
  readonly catalogueUpdates?: boolean;
}

/** An agent command: mostly an execution of one of the shape's tools (on the main thread only where the shape allows it), sometimes a listing or a wait. */
function agentCommandArb(shape: ConsumerShape): fc.Arbitrary<AgentCommand> {
  const execute = fc
    .record({
      tool: fc.constantFrom(...shape.tools),
      args: fc.nat({ max: 7 }),
      cancelAfterMs: fc.constantFrom<number | null>(null, null, 1_000, 6_000, 15_000),
      // Drawn only when the shape allows it: the default shapes draw exactly what they drew before.
      main: shape.mainThreadCalls === true ? fc.boolean() : fc.constant(false),
    })
    .map(({ tool, args, cancelAfterMs, main }): AgentCommand => {
      const [provider, name] = tool.split('.') as [string, string];
      return {
        kind: 'execute',
        provider,
        tool: name,
        args,
        cancelAfterMs,
        ...(main ? { mainThread: true } : {}),
      };
    });
  return fc.oneof(
    { weight: 6, arbitrary: execute },
    { weight: 1, arbitrary: fc.constant<AgentCommand>({ kind: 'list' }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(1_000, 20_000).map((ms): AgentCommand => ({ kind: 'wait', ms })),
    },
  );
}

/**
 * With a catalogue update, one more agent thread asks for get_quote (gone from the new catalogue)
 * once the update is done, and then lists: what the consumer does next is judged.
 */
const AFTER_UPDATE: readonly AgentCommand[] = [
  { kind: 'wait', ms: 20_000 },
  { kind: 'execute', provider: 'alerts', tool: 'get_quote', args: 0, cancelAfterMs: null },
  { kind: 'list' },
];

/**
 * The first agent thread meets the run's hostile case first: a listing or an execution of its tool.
 * A case's first meeting (round-robin by run index) executes its tool, the consumer asking for every
 * capability (a file result needs large_results): every case's lie meets an execution.
 */
function meetingHostile(
  scenario: ConsumerScenario,
  drawn: HostileDraw | null,
  meet: number | null | 'list' | undefined,
): ConsumerScenario {
  if (drawn === null || meet === undefined) return scenario;
  const caps = drawn.first ? { consumerCaps: 0 } : {};
  const first: AgentCommand =
    meet === 'list' && !drawn.first
      ? { kind: 'list' }
      : {
          kind: 'execute',
          provider: 'hostile',
          tool: 'lookup',
          args: 0,
          cancelAfterMs: meet === 'list' ? null : meet,
        };
  const [head = [], ...rest] = scenario.threads;
  return { ...scenario, ...caps, threads: [[first, ...head], ...rest] };
}

export function consumerScenarioArb(
  shape: ConsumerShape,
  tails: readonly Tail[] = ['fifo'],
  generateDecisions = true,
): fc.Arbitrary<ConsumerScenario> {
  const command = agentCommandArb(shape);
  // With a hostile provider, the first agent thread meets it first (meetingHostile), cancelled after
  // a second in two of three, so each case's lie is reached — and what the consumer does next is
  // what the consumer oracles judge.
  const hostileTool = shape.tools.includes('hostile.lookup');
  const meetHostile = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<number | null>(null, 1_000, 1_000) },
    { weight: 1, arbitrary: fc.constant<'list'>('list') },
  );
  const hostile = hostileCaseArb(shape.hostileCases);
  return fc
    .record({
      seed: fc.nat({ max: 1_000_000 }),
      tail: fc.constantFrom(...tails),
      threads: fc.array(fc.array(command, { minLength: 1, maxLength: shape.maxCommands }), {
        minLength: 1,
        maxLength: shape.maxThreads,
      }),
      consumerRestartsAtMs: shape.restarts
        ? fc.array(fc.integer({ min: 1, max: 30_000 }), { maxLength: 1 })
        : fc.constant([]),
      hostile,
      meet: hostileTool ? meetHostile : fc.constant(undefined),
      consumerCaps: fc.nat({ max: CONSUMER_CAPABILITY_SETS.length - 1 }),
      user: fc.array(fc.constantFrom<UserDecision>('approve', 'deny', 'back'), { maxLength: 4 }),
      faults:
        shape.faults.length === 0
          ? fc.constant([])
          : fc.array(
              fc.record({ at: fc.integer({ min: 1, max: 400 }), fault: fc.constantFrom(...faultsOf(shape)) }),
              {
                maxLength: shape.maxFaults,
              },
            ),
      decisions: generateDecisions ? fc.array(fc.nat({ max: 7 }), { maxLength: 80 }) : fc.constant([]),
      ...moveArbs(shape),
    })
    .map(({ meet, hostile: drawn, unreachableAfterLostReply: dark, catalogueUpdate, ...drawnScenario }) => {
      const lost = drawnScenario.lostExecuteReply !== null;
      const moves = {
        ...(dark && lost ? { unreachableAfterLostReply: true } : {}),
        ...(catalogueUpdate === null ? {} : { catalogueUpdate }),
      };
      const threads =
        catalogueUpdate === null ? drawnScenario.threads : [...drawnScenario.threads, AFTER_UPDATE];
      const scenario = { ...drawnScenario, threads, hostile: drawn?.index ?? null, ...moves };
      return meetingHostile(scenario, drawn, meet);
    });
}

// The consumer under test, as the public API names it (src/subjects/subjects.ts).
export type { CancellationLike, ConsumerAgentApi, ConsumerUnderTest };

/** The reference consumer (src/consumer/fixture.ts), resuming its journal on every start. */
export const REFERENCE_CONSUMER: ConsumerUnderTest = {
  ...referenceConsumer,
  agent(context) {
    const bridge = referenceConsumer.agent(context);
    return {
      listTools: () => bridge.listTools(),
      cancellation: () => bridge.cancellation(),
      // The token is always one this bridge's cancellation() made: the scenario hands it back as is.
      executeJson: (provider, tool, args, options) =>
        bridge.executeJson(
          provider,
          tool,
          args,
          options.cancel ? { cancel: options.cancel as CancelSignal } : {},
        ),
    };
  },
};

export interface ConsumerFixture {
  readonly providers: readonly ProviderFixture[];
  readonly checkers: readonly Checker[];
  /** The consumer the scenarios drive; the reference consumer when absent. */
  readonly consumer?: ConsumerUnderTest;
}

export interface ConsumerRun {
  readonly world: World;
  readonly report: RunReport;
  readonly observation: Observation;
  /** What the oracles knew: the implementations under test. */
  readonly context: CheckContext;
  readonly violations: readonly Violation[];
}

/** A fault naming the reference consumer's package, aimed at `packageName` instead. */
function retarget(fault: Fault, packageName: string): Fault {
  if (packageName === CONSUMER_PACKAGE) return fault;
  const entries = Object.entries(fault).map(([k, v]) => [k, v === CONSUMER_PACKAGE ? packageName : v]);
  return Object.fromEntries(entries) as Fault;
}

function argsFor(
  pool: readonly JsonValue[],
  index: number,
  uid: number,
  own: ReadonlyMap<string, string>,
): string {
  return fillArgs(JSON.stringify(pool[index % pool.length] as JsonValue), uid, (f) => own.get(f), pool);
}

/** The scenario's moves (consumer-reach.ts) for the consumer under test among the fixture's providers. */
function movesOf(
  world: World,
  fixture: ConsumerFixture,
  consumerPackage: string,
  scenario: ConsumerScenario,
  variant: Variant,
) {
  const alertsOptions = fixture.providers.includes(ALERTS_ONE_AT_A_TIME)
    ? oneAtATime(variant)
    : providerOptions(variant);
  return consumerMoves(world, consumerPackage, {
    nth: scenario.lostExecuteReply ?? null,
    writes: (packageName, tool) =>
      fixture.providers.some((p) => p.packageName === packageName && (p.effects[tool] ?? 'read') !== 'read'),
    blackout: scenario.unreachableAfterLostReply === true,
    update: scenario.catalogueUpdate ? { ...scenario.catalogueUpdate, options: alertsOptions } : null,
  });
}

export async function runConsumerScenario(
  fixture: ConsumerFixture,
  scenario: ConsumerScenario,
  variant: Variant,
  hooks: RunHooks = {},
): Promise<ConsumerRun> {
  const consumer = fixture.consumer ?? REFERENCE_CONSUMER;
  // Faults naming the reference consumer's package (kill it, lose its replies) mean the consumer under test.
  const faults = scenario.faults.map((f) => ({ ...f, fault: retarget(f.fault, consumer.packageName) }));
  const world = scenarioWorld({ ...scenario, faults }, 60_000, variant.android);
  hooks.world?.(world);
  const lossy = movesOf(world, fixture, consumer.packageName, scenario, variant);
  for (const p of fixture.providers) p.install(lossy.world, variant);
  const hostileCase = HOSTILE_CASES[(scenario.hostile ?? -1) % HOSTILE_CASES.length];
  if (hostileCase) installHostile(world, hostileCase.behaviour);
  const capabilities = CONSUMER_CAPABILITY_SETS[scenario.consumerCaps] ?? CONSUMER_CAPABILITY_SETS[0] ?? [];
  consumer.install(world, { variant, capabilities: [...capabilities] });
  const pools = new Map<string, Readonly<Record<string, readonly JsonValue[]>>>(
    fixture.providers.map((p) => [p.name, p.tools]),
  );
  pools.set('hostile', HOSTILE_TOOLS);
  const packageOf = (name: string) =>
    name === 'hostile'
      ? HOSTILE_PACKAGE
      : (fixture.providers.find((p) => p.name === name)?.packageName ?? name);
  scenario.threads.forEach((commands, index) => {
    world.spawnIn(consumer.packageName, `agent-${index}`, async (ctx) => {
      const bridge = consumer.agent(ctx);
      // `$OWN:field`: the field of the last outcome this agent got that had one.
      const own = new Map<string, string>();
      for (const c of commands) {
        if (c.kind === 'wait') await ctx.sleep(c.ms);
        else if (c.kind === 'list') {
          const asked = world.truth.agentAsked(ctx.process, 'list', null, null, null);
          world.truth.agentGot(asked, await bridge.listTools());
        } else {
          const cancel = c.cancelAfterMs === null ? undefined : bridge.cancellation();
          if (cancel) cancelLater(ctx, cancel, c.cancelAfterMs ?? 0);
          const pool = pools.get(c.provider)?.[c.tool] ?? [{}];
          const [provider, args] = [packageOf(c.provider), argsFor(pool, c.args, ctx.uid, own)];
          // The world records what the agent asked for and what it finally got back (ground truth).
          const asked = world.truth.agentAsked(ctx.process, 'execute', provider, c.tool, args);
          lossy.executions.asked(provider);
          const execute = () => bridge.executeJson(provider, c.tool, args, { ...(cancel ? { cancel } : {}) });
          const outcome = await (c.mainThread ? ctx.onMainThread(execute) : execute());
          lossy.executions.answered(provider);
          world.truth.agentGot(asked, outcome);
          for (const [field, value] of outcomeFields(outcome)) own.set(field, value);
        }
      }
    });
  });
  spawnRestarts(world, consumer.packageName, scenario.consumerRestartsAtMs);
  const report = await world.run();
  const observation = observe(world, report, null);
  const ctx = checkContext(fixture.providers, {
    consumers: [consumer.packageName],
    hostile: [HOSTILE_PACKAGE, PEER_PACKAGE],
    ...(variant.readings ? { readings: variant.readings } : {}),
  });
  // A consumer that accepts a lying file result is judged by consumer-verifies-file, from what it
  // handed its agent (it once read the reference consumer's audit log, blind to other consumers).
  const violations = runCheckers(observation, ctx, fixture.checkers);
  return { world, report, observation, context: ctx, violations };
}

/** Cancels `cancel` after `ms` of the agent's time, on a task of its own. */
function cancelLater(ctx: AppContext, cancel: { cancel(): void }, ms: number): void {
  ctx.spawn('cancel-later', async () => {
    await ctx.sleep(ms);
    cancel.cancel();
  });
}

/** Kills the consumer at each of `atMs` and, a second later, launches it again (the user opens it). */
function spawnRestarts(world: World, packageName: string, atMs: readonly number[]): void {
  for (const at of atMs) {
    world.spawn('restart-consumer', async () => {
      await world.scheduler.sleep(at);
      world.killProcess(packageName, { kind: 'killed', reason: 'scenario: consumer restart' });
      await world.scheduler.sleep(1_000);
      // The user opens the consumer again; the restarted process resumes its journal on start.
      await world.launchApp(packageName);
    });
  }
}
