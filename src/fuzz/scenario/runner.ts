/**
 * Runs a scenario in a fresh world and judges it: install the fixture's providers (with the
 * variant) and actor apps, start one task per actor running its commands, apply the faults, let the
 * user answer as scripted, then — once every actor is done and every fault applied — settle (poll
 * every accepted operation to its end), and run the checkers over what happened.
 */
import type { CheckContext, Checker, Violation } from '../../check/checker.ts';
import { faultsTransparent } from '../../check/checkers/faults-transparent.ts';
import { ALL_CHECKERS, runCheckers } from '../../check/checkers/index.ts';
import { type Observation, observe } from '../../check/observation.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { AndroidRelease } from '../../sim/core/release.ts';
import { TIMED_OUT, type Waiter } from '../../sim/core/scheduler.ts';
import type { StrategySpec } from '../../sim/core/strategy.ts';
import type { TraceEvent } from '../../sim/core/trace.ts';
import type { RunReport } from '../../sim/world.ts';
import { World } from '../../sim/world.ts';
import { replayFaultFree } from '../fault-free-replay.ts';
import { type ActorState, newActorState } from './actor-state.ts';
import { RawDriver } from './driver.ts';
import {
  ACTOR_PACKAGES,
  installActors,
  type ProviderFixture,
  rawCheckContext,
  spawnActor,
} from './fixtures.ts';
import type { ActorName, Command, Scenario, Tail, Variant } from './model.ts';

export interface Fixture {
  readonly providers: readonly ProviderFixture[];
  readonly actors: readonly ActorName[];
  readonly checkers?: readonly Checker[];
  /** Actors are launched again after their process dies, keeping what they held (ScenarioShape). */
  readonly durableActors?: boolean;
}

/** How long a durable actor's app takes to be launched again after its process died (virtual ms). */
export const RELAUNCH_MS = 2_000;

export interface ScenarioRun {
  readonly world: World;
  readonly report: RunReport;
  readonly observation: Observation;
  /** What the oracles knew: the implementations under test. */
  readonly context: CheckContext;
  readonly violations: readonly Violation[];
}

export const STEP_BUDGET = 20_000;

export function tailStrategy(tail: Tail): StrategySpec {
  switch (tail) {
    case 'fifo':
      return { kind: 'fifo' };
    case 'random':
      return { kind: 'random' };
    case 'pct':
      return { kind: 'pct', depth: 3, stepsEstimate: 400 };
  }
}

function othersThan(states: ReadonlyMap<ActorName, ActorState>, state: ActorState): ActorState[] {
  return [...states.values()].filter((s) => s !== state);
}

/** Whether a duplicate send of any actor is still in flight. */
function racing(states: ReadonlyMap<ActorName, ActorState>): boolean {
  return [...states.values()].some((s) => s.duplicates.some((t) => t.alive));
}

/** The fresh world a scenario runs in: its seed, decisions then tail, faults, user answers, release. */
export function scenarioWorld(
  scenario: Pick<Scenario, 'seed' | 'decisions' | 'tail' | 'faults' | 'user'>,
  stepBudget: number,
  android?: AndroidRelease,
): World {
  return new World({
    ...(android !== undefined ? { android } : {}),
    seed: scenario.seed,
    strategy: { kind: 'replay', decisions: scenario.decisions, after: tailStrategy(scenario.tail) },
    faults: scenario.faults,
    user: { kind: 'scripted', decisions: scenario.user, otherwise: 'approve', thinkMs: 1_000 },
    stepBudget,
    recordContentCalls: true,
  });
}

/** Optional hooks into a run: `world` sees the world before anything is installed (to watch it). */
export interface RunHooks {
  readonly world?: (world: World) => void;
}

export async function runScenario(
  fixture: Fixture,
  scenario: Scenario,
  variant: Variant,
  hooks: RunHooks = {},
): Promise<ScenarioRun> {
  const world = scenarioWorld(scenario, STEP_BUDGET, variant.android);
  hooks.world?.(world);
  for (const p of fixture.providers) p.install(world, variant);
  const actors = fixture.actors.filter((a) => (scenario.actors[a]?.length ?? 0) > 0);
  installActors(world, actors);
  const cast: Cast = {
    world,
    fixture,
    scenario,
    actors,
    states: new Map<ActorName, ActorState>(actors.map((a) => [a, newActorState(a)])),
    finished: world.scheduler.waiter<void>('every actor done'),
  };
  spawnActors(cast);
  const quiet = spawnSettle(cast);
  const report = await world.run();
  const base = rawCheckContext(fixture.providers);
  const ctx = variant.readings ? { ...base, readings: variant.readings } : base;
  const checkers = fixture.checkers ?? ALL_CHECKERS;
  const observed = observe(world, report, quiet.fromStep);
  // faults-transparent judges the run against a fault-free replay of it, made here (a fresh world).
  const observation = checkers.includes(faultsTransparent)
    ? {
        ...observed,
        faultFree: await replayFaultFree({
          seed: scenario.seed,
          providers: fixture.providers,
          actors,
          variant,
          observation: observed,
          context: ctx,
        }),
      }
    : observed;
  const violations = runCheckers(observation, ctx, checkers);
  return { world, report, observation, context: ctx, violations };
}

/** A scenario's actors in their world: who runs, their states, and the waiter woken when all are done. */
interface Cast {
  readonly world: World;
  readonly fixture: Fixture;
  readonly scenario: Scenario;
  readonly actors: readonly ActorName[];
  readonly states: ReadonlyMap<ActorName, ActorState>;
  readonly finished: Waiter<void>;
}

/** Spawns each actor running its commands (a durable actor survives its process's deaths). */
function spawnActors(cast: Cast): void {
  const { world, fixture, scenario, actors, states, finished } = cast;
  let remaining = actors.length;
  const lastFaultStep = Math.max(-1, ...scenario.faults.map((f) => f.at));
  const faultsDone = () => world.scheduler.step > lastFaultStep;
  const deaths = fixture.durableActors ? watchDeaths(world) : new Map<string, Death>();
  const done = () => {
    if (--remaining === 0) finished.wake(undefined);
  };
  for (const actor of actors) {
    const state = states.get(actor) as ActorState;
    const commands = scenario.actors[actor] ?? [];
    const driverIn = (ctx: AppContext) =>
      new RawDriver(ctx, state, othersThan(states, state), fixture.providers, faultsDone);
    if (!fixture.durableActors) {
      spawnActor(world, actor, `actor-${actor}`, async (ctx) => {
        const driver = driverIn(ctx);
        try {
          for (const command of commands) await driver.run(command);
        } finally {
          done();
        }
      });
      continue;
    }
    durableActor(
      world,
      deaths,
      ACTOR_PACKAGES[actor],
      `actor-${actor}`,
      commands.length,
      done,
      async (ctx, next) => {
        const driver = driverIn(ctx);
        for (let i = next(); i < commands.length; i = next()) await driver.run(commands[i] as Command);
      },
    );
  }
}

/**
 * Spawns the settle task: once every actor is done and the faults are over, each actor's open
 * operations are polled to their end. `fromStep`: the step the world was quiet from (set by then).
 */
function spawnSettle(cast: Cast): { fromStep: number | null } {
  const { world, fixture, scenario, actors, states, finished } = cast;
  const quiet: { fromStep: number | null } = { fromStep: null };
  world.spawn('settle', async () => {
    // Durable actors may cross a scope grant's 30 days before they are done.
    if (actors.length > 0) await finished.waitFor((fixture.durableActors ? 40 : 7) * 24 * 3_600_000);
    const lastFault = Math.max(0, ...scenario.faults.map((f) => f.at));
    while (world.scheduler.step <= lastFault) await world.scheduler.yield();
    quiet.fromStep = world.scheduler.step;
    // Duplicate sends may still be racing: the operation one of them is answered with is the actor's
    // to settle too (bounded: a duplicate is one call and its one renegotiation).
    for (let i = 0; i < 60 && racing(states); i++) await world.scheduler.sleep(1_000);
    for (const actor of actors) {
      const state = states.get(actor) as ActorState;
      if (state.ops.length === 0) continue;
      spawnActor(world, actor, `settle-${actor}`, async (ctx) => {
        // Its own sessions: the actor's leftover duplicate sends may still renegotiate theirs.
        const own: ActorState = Object.assign({}, state, { sessions: new Map<string, string>() });
        await new RawDriver(ctx, own, othersThan(states, state), fixture.providers).settle();
      });
    }
  });
  return quiet;
}

/**
 * Runs an actor's commands in its app's process and, each time that process dies (a reboot, the
 * package re-signed or reinstalled, a kill), launches the app again RELAUNCH_MS later — as the system
 * restarts an app holding a job or a foreground service, or the user opens it — to go on with the
 * command after the one it died in. What the actor held lives outside the process (its ActorState,
 * as an app's journal): a session, a request id, an operation, a resume token survive into the next
 * launch, under the package's UID of then (a new one after a re-sign under another key or a
 * reinstall). A harness task watches the process; it resolves once every command was started and
 * the last one returned, or after 8 launches.
 */
/** What a durable actor's launch hears of its app: a `process.kill` or `launch.failed` event. */
type Death = (event: TraceEvent) => void;

function durableActor(
  world: World,
  deaths: Map<string, Death>,
  pkg: string,
  name: string,
  count: number,
  onDone: () => void,
  body: (ctx: AppContext, next: () => number) => Promise<void>,
): void {
  let index = 0;
  const next = () => index++;
  world.spawn(`durable-${name}`, async () => {
    for (let launch = 0; launch < 8 && index <= count; launch++) {
      if (launch > 0) await world.scheduler.sleep(RELAUNCH_MS);
      const ended = world.scheduler.waiter<boolean>(`${name} ended or died`);
      const task = `${name}-${launch}`;
      let pid: number | null = null;
      // This launch's death only: its start failed, or the process its body runs in was killed. A
      // kill of an earlier process of the app (started for something else, an Activity result say)
      // before the body runs is not: counting it relaunched the actor while this body went on, two
      // bodies ran the commands, and an operation started after settling (campaign seed 29).
      deaths.set(pkg, (e) => {
        if (e.kind === 'launch.failed' ? e.data.task === task : pid !== null && e.data.pid === pid)
          ended.wake(false);
      });
      world.spawnIn(pkg, task, async (ctx) => {
        pid = ctx.pid;
        await body(ctx, next);
        index = count + 1;
        ended.wake(true);
      });
      const result = await ended.waitFor(40 * 24 * 3_600_000);
      deaths.delete(pkg);
      if (result === true || result === TIMED_OUT) break;
    }
    onDone();
  });
}

/** Calls `deaths.get(package)` with the event when that package's process dies or its launch fails (trace hook). */
function watchDeaths(world: World): Map<string, Death> {
  const deaths = new Map<string, Death>();
  const previous = world.trace.onRecord;
  world.trace.onRecord = (e) => {
    previous?.(e);
    if (e.kind === 'process.kill' || e.kind === 'launch.failed') deaths.get(String(e.data.actor))?.(e);
  };
  return deaths;
}
