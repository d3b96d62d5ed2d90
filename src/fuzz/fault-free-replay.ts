/**
 * The fault-free replay `faults-transparent` judges a run against (src/check/checkers/
 * faults-transparent.ts): the requests that took effect in the run (src/check/fault-free.ts
 * runRequests), sent again in a fresh world — same seed, same providers (the user's module, with the
 * run's variant), same caller apps installed in the same order (so the same UIDs) — one at a time, in
 * the run's effect order, with no faults, every confirmation and scope grant approved, each one's
 * operation polled to its end before the next is sent: a serial execution of exactly those requests.
 * Each is sent with its request_id, tool and args; a generated id the args carry (a row the run
 * created earlier) is replaced by the one the replay's world generated for the same row.
 *
 * The output is data (FaultFreeRecord): what the fresh world's storage received per request. The
 * verdict is the checker's, a pure function of this record and the run's. Anything that keeps the
 * replay from being that serial execution — a caller whose UID changed (reinstalled, re-signed), a
 * caller that is not an actor app, a request that does not finish — makes it `skipped`, with why.
 */

import type { CheckContext } from '../check/checker.ts';
import { SDK_TABLE_PREFIX } from '../check/checkers/storage.ts';
import {
  type FaultFreeRecord,
  Matcher,
  type ReplayedRequest,
  type RunRequest,
  runRequests,
  translateArgs,
  writesOf,
} from '../check/fault-free.ts';
import type { Observation } from '../check/observation.ts';
import { TIMED_OUT } from '../sim/core/scheduler.ts';
import { World } from '../sim/world.ts';
import { newActorState } from './scenario/actor-state.ts';
import { RawDriver } from './scenario/driver.ts';
import { ACTOR_PACKAGES, installActors, type ProviderFixture } from './scenario/fixtures.ts';
import type { ActorName, Variant } from './scenario/model.ts';

export interface ReplayInput {
  readonly seed: number;
  readonly providers: readonly ProviderFixture[];
  /** The actor apps the run installed, in its install order. */
  readonly actors: readonly ActorName[];
  readonly variant: Variant;
  readonly observation: Observation;
  readonly context: CheckContext;
}

/** Steps a replay may take (a request, its confirmation and its operation take a few hundred). */
const REPLAY_STEP_BUDGET = 60_000;
/** Virtual time one request may take, its confirmation and polling included. */
const REQUEST_TIME_MS = 3_600_000;

const skipped = (reason: string): FaultFreeRecord => ({ kind: 'skipped', reason });

export async function replayFaultFree(input: ReplayInput): Promise<FaultFreeRecord> {
  const { observation: obs, context: ctx } = input;
  const run = runRequests(obs, ctx);
  if (!run.ok) return skipped(run.reason);
  if (run.requests.length === 0) return { kind: 'replayed', requests: [] };
  const actorOf = new Map(input.actors.map((a) => [ACTOR_PACKAGES[a], a] as const));
  const fixtureOf = new Map(input.providers.map((p) => [p.packageName, p] as const));
  const foreign = foreignSender(run.requests, actorOf, fixtureOf);
  if (foreign !== null) return skipped(foreign);
  const world = freshWorld(input);
  const moved = movedUid(world, run.requests);
  if (moved !== null) return skipped(moved);
  const replay: Replay = {
    world,
    input,
    judged: new Set(input.providers.map((p) => p.packageName)),
    // Pairs the run's generated values with the replay's as they appear, to translate later args.
    matcher: new Matcher(new Set()),
    out: [],
  };
  let failure: string | null = null;
  world.spawn('fault-free-replay', async () => {
    for (const [i, r] of run.requests.entries()) {
      const fixture = fixtureOf.get(r.provider) as ProviderFixture;
      const actor = actorOf.get(r.callerPackage) as ActorName;
      failure = await replayRequest(replay, r, i, fixture, actor);
      if (failure !== null) return;
    }
  });
  const report = await world.run();
  if (failure !== null) return skipped(failure);
  if (replay.out.length !== run.requests.length)
    return skipped(
      `the fault-free replay ended (${JSON.stringify(report.outcome)}) before every request was sent`,
    );
  return { kind: 'replayed', requests: replay.out };
}

/** Why a request cannot be replayed: its caller is not an actor app, or its provider not a fixture. */
function foreignSender(
  requests: readonly RunRequest[],
  actorOf: ReadonlyMap<string, ActorName>,
  fixtureOf: ReadonlyMap<string, ProviderFixture>,
): string | null {
  for (const r of requests) {
    if (!actorOf.has(r.callerPackage))
      return `request ${r.requestId} was sent by ${r.callerPackage}, not an actor app the replay installs`;
    if (!fixtureOf.has(r.provider)) return `request ${r.requestId} went to ${r.provider}, not a fixture`;
  }
  return null;
}

/**
 * The fresh world: the run's seed, no faults, an approving user, the run's providers and actors.
 * Without a record of its ContentProvider calls (World.contentCalls: Bundle snapshots of every
 * request and reply, served intervals, each commit's call): the replay reads only its storage and
 * effects (GroundTruth commits and effects) and the callers' UIDs. The record adds no trace event
 * and blocks on no primitive (its one extra `finally` runs inside the serving task's step, which
 * no other task shares: scheduler.ts), so the world takes the same steps without it.
 */
function freshWorld(input: ReplayInput): World {
  const world = new World({
    seed: input.seed,
    strategy: { kind: 'fifo' },
    faults: [],
    user: { kind: 'scripted', decisions: [], otherwise: 'approve', thinkMs: 1_000 },
    stepBudget: REPLAY_STEP_BUDGET,
  });
  for (const p of input.providers) p.install(world, input.variant);
  installActors(world, input.actors);
  return world;
}

/** Why a request cannot be replayed: its caller has another uid in the fresh world. */
function movedUid(world: World, requests: readonly RunRequest[]): string | null {
  for (const r of requests) {
    const uid = world.pm.getPackageUid(r.callerPackage);
    if (uid !== r.uid)
      return `request ${r.requestId} came from uid ${r.uid} of ${r.callerPackage}, which has uid ${uid} in a fresh world (reinstalled or re-signed during the run)`;
  }
  return null;
}

/** A replay under way: its world, the providers judged, the ids paired so far, the requests replayed. */
interface Replay {
  readonly world: World;
  readonly input: ReplayInput;
  readonly judged: ReadonlySet<string>;
  readonly matcher: Matcher;
  readonly out: ReplayedRequest[];
}

/** Replays request `i` and records what storage received; why not, when it did not finish. */
async function replayRequest(
  replay: Replay,
  r: RunRequest,
  i: number,
  fixture: ProviderFixture,
  actor: ActorName,
): Promise<string | null> {
  const { world, input, judged, matcher } = replay;
  const business = (pkg: string, table: string) =>
    !table.startsWith(SDK_TABLE_PREFIX) && !(input.context.bookkeepingTables?.get(pkg)?.has(table) ?? false);
  const args = translateArgs(r.args, (s) => matcher.translate(s));
  const commitsFrom = world.truth.commits.length;
  const effectsFrom = world.truth.effects.length;
  const done = world.scheduler.waiter<void>(`fault-free replay of ${r.requestId}`);
  world.spawnIn(r.callerPackage, `replay-${i}`, async (app) => {
    try {
      const state = newActorState(actor);
      state.sent.push({ provider: fixture.name, tool: r.tool, rid: r.requestId, args, at: 0 });
      const driver = new RawDriver(app, state, [], input.providers);
      await driver.run({ kind: 'retry', index: 0, afterMs: 0, resolve: true });
      await driver.settle();
    } finally {
      done.wake(undefined);
    }
  });
  if ((await done.waitFor(REQUEST_TIME_MS)) === TIMED_OUT)
    return `the fault-free replay of request ${r.requestId} did not finish`;
  const writes = world.truth.commits
    .slice(commitsFrom)
    .filter((c) => judged.has(c.packageName))
    .flatMap((c) =>
      c.writes
        .filter((w) => business(c.packageName, w.table))
        .map((w) => ({
          table: w.table,
          key: w.key,
          deleted: w.deleted,
          value: w.value,
          provider: c.packageName,
          seq: c.seq,
        })),
    );
  const effects = world.truth.effects.slice(effectsFrom).filter((e) => judged.has(e.provider)).length;
  replay.out.push({ key: r.key, tool: r.tool, args, writes, effects });
  // The rows this request wrote in both worlds, in order: their keys and values pair the ids up.
  writesOf(r, i).forEach((w, j) => {
    const theirs = writes[j];
    if (!theirs || theirs.table !== w.table) return;
    matcher.unify(w.key, theirs.key);
    matcher.unify(w.value, theirs.value);
  });
  return null;
}
