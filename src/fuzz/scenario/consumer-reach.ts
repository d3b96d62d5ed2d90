/**
 * How consumer scenarios reach what the consumer oracles judge, whatever the draw: the hostile case
 * of each run enumerated round-robin by run index (every case met within its first pass; CETP-9-09),
 * not sampled by weight — at seed 1 weighted sampling left `file-sha256-wrong` unmet within the 60
 * hostile runs, and with it every consumer that skips the digest (4.5-06) uncaught.
 */
import fc from 'fast-check';
import {
  ALERT_TOOLS,
  ALERTS_AUTHORITY,
  ALERTS_PACKAGE,
  ALERTS_PROVIDER,
  alertsPackage,
} from '../../providers/apps/alerts.ts';
import { HOSTILE_CASES } from '../../providers/hostile/index.ts';
import { type DefinedProvider, defineProvider } from '../../providers/sdk/define.ts';
import type { ProviderOptions } from '../../providers/sdk/types.ts';
import type { AppFactory } from '../../sim/app/app.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { World } from '../../sim/world.ts';

/** A run's hostile case (an index into HOSTILE_CASES) and whether this is its first meeting. */
export interface HostileDraw {
  readonly index: number;
  readonly first: boolean;
}

/**
 * The order cases are met in: every case once (the first pass), then each case's extra weight
 * (weight − 1 more meetings), then again from the top.
 */
export function hostileSchedule(cases: readonly number[]): HostileDraw[] {
  const weightOf = (i: number) => HOSTILE_CASES[i % HOSTILE_CASES.length]?.weight ?? 1;
  const extras = cases.flatMap((index) =>
    Array.from({ length: weightOf(index) - 1 }, () => ({ index, first: false })),
  );
  return [...cases.map((index) => ({ index, first: true })), ...extras];
}

/**
 * The run index's entry of a schedule: fast-check generates one value per run, in run order, so the
 * nth generated value is run n's (shrinking never generates: a shrunk scenario keeps its case). Its
 * counter is the arbitrary's own (one per campaign), not module state. Replays carry the scenario.
 */
class RoundRobin<T> extends fc.Arbitrary<T> {
  private next = 0;
  constructor(private readonly schedule: readonly T[]) {
    super();
  }
  generate(): fc.Value<T> {
    const value = this.schedule[this.next++ % this.schedule.length] as T;
    return new fc.Value(value, undefined);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.schedule.includes(value as T);
  }
  shrink(): fc.Stream<fc.Value<T>> {
    return fc.Stream.nil();
  }
}

/** The hostile case of each run, round-robin by run index over `hostileSchedule(cases)`; null without cases. */
export function hostileCaseArb(cases: readonly number[]): fc.Arbitrary<HostileDraw | null> {
  if (cases.length === 0) return fc.constant(null);
  return new RoundRobin<HostileDraw | null>(hostileSchedule(cases));
}

/** What the scenario's agent threads tell the lost-reply wrapper: an execution asked of, and answered by, a package. */
export interface ExecutionsInFlight {
  asked(packageName: string): void;
  answered(packageName: string): void;
}

/**
 * The moves a consumer property's shape allows, drawn last in a scenario: the Nth committing
 * execute_tool whose reply is lost (1 in two of three draws), the provider kept unreachable after
 * it (two in three), an update of the alerts app to a new catalogue (one in three runs).
 */
export function moveArbs(shape: {
  readonly lostExecuteReplies?: boolean;
  readonly catalogueUpdates?: boolean;
}) {
  const update = fc.record({ afterListing: fc.constant(1), delayMs: fc.constantFrom(0, 500, 2_000) });
  return {
    lostExecuteReply: shape.lostExecuteReplies
      ? fc.option(fc.constantFrom(1, 1, 2, 3), { nil: null })
      : fc.constant<number | null>(null),
    unreachableAfterLostReply: shape.lostExecuteReplies
      ? fc.constantFrom(true, true, false)
      : fc.constant(false),
    catalogueUpdate: shape.catalogueUpdates
      ? fc.oneof(
          { weight: 2, arbitrary: fc.constant<CatalogueUpdate | null>(null) },
          { weight: 1, arbitrary: update },
        )
      : fc.constant<CatalogueUpdate | null>(null),
  };
}

/** A catalogue update: after the consumer's Nth answered list_tools of alerts, and this long after it. */
export interface CatalogueUpdate {
  readonly afterListing: number;
  readonly delayMs: number;
}

export interface ConsumerMoves {
  /**
   * Lose the reply of the consumer's Nth committing execute_tool call (a write answered success or
   * accepted, counted over every provider), or none.
   */
  readonly nth: number | null;
  /** Whether a tool of a package writes (its effect is not `read`). */
  readonly writes: (packageName: string, tool: string) => boolean;
  /** After that lost reply, keep the provider unreachable to the consumer (below). */
  readonly blackout: boolean;
  /** Update the alerts app to a new catalogue mid-run (updatedAlerts), with these provider options. */
  readonly update: (CatalogueUpdate & { readonly options: Partial<ProviderOptions> }) | null;
}

type OnReply = (
  packageName: string,
  method: string,
  extras: Bundle | null,
  reply: Bundle | null,
  pid: number,
) => boolean;

/** `factory` with each provider's call() wrapped: a reply to the consumer is lost when `onReply` says so. */
function losing(
  world: World,
  consumerPackage: string,
  packageName: string,
  factory: AppFactory | undefined,
  onReply: OnReply,
): AppFactory {
  return (ctx) => {
    const app = factory ? factory(ctx) : {};
    for (const provider of Object.values(app.providers ?? {})) {
      const call = provider.call.bind(provider);
      provider.call = async (authority, method, arg, extras) => {
        // The calling package is known only before the first await (binder.ts).
        const [caller, pid] = [provider.getCallingPackage(), ctx.binder.getCallingPid()];
        const reply = await call(authority, method, arg, extras);
        // A caller that died meanwhile gets no reply at all: a loss armed now would hit its successor.
        const consumer = world.process(consumerPackage);
        if (caller !== consumerPackage || !consumer.isAlive || consumer.pid !== pid) return reply;
        if (onReply(packageName, method, extras, reply, pid))
          world.faults.armLostReply(packageName, consumerPackage);
        return reply;
      };
    }
    return app;
  };
}

/**
 * A view of `world` whose install() wraps each provider of the app so that the reply of the
 * consumer's Nth committing execute_tool call (over every provider installed through it) is lost: the
 * call ran, its effect committed, the consumer sees the transaction fail (4.1-15, 6-05, 6-08). With
 * `blackout`, that provider then stays unreachable to the consumer — every later reply to it lost —
 * until no execution the agent asked of it is in flight: the consumer gives up on a call that may
 * have committed, and what it tells its agent then is judged (agent-unknown-not-unavailable). With
 * `update`, the alerts app is updated to a new catalogue once the consumer has read its old one.
 */
export function consumerMoves(
  world: World,
  consumerPackage: string,
  moves: ConsumerMoves,
): { readonly world: World; readonly executions: ExecutionsInFlight } {
  const { nth, blackout, update: catalogueUpdate } = moves;
  const commits = (packageName: string, extras: Bundle | null, reply: Bundle | null) =>
    moves.writes(packageName, extras?.getString('tool_name') ?? '') &&
    ['success', 'accepted'].includes(reply?.getString('status') ?? '');
  const inFlight = new Map<string, number>();
  // The provider kept dark, and the consumer process that gave up on it: a restarted consumer (a
  // new pid) resumes its journal against a reachable provider (consumer-resumes-after-restart).
  const state = { calls: 0, listings: 0, dark: null as string | null, pid: 0, updateDue: false };
  const view: World = Object.create(world);
  // The update lands when no execution the agent asked of alerts is in flight: it changes the
  // catalogue between executions, not under one (a re-send after the update is another matter).
  const updateNow = () => {
    if (!state.updateDue || catalogueUpdate === null || (inFlight.get(ALERTS_PACKAGE) ?? 0) > 0) return;
    state.updateDue = false;
    world.spawn('catalogue-update', async () => {
      await world.scheduler.sleep(catalogueUpdate.delayMs);
      if ((inFlight.get(ALERTS_PACKAGE) ?? 0) > 0) state.updateDue = true;
      else view.update(alertsPackage(), updatedAlerts().app(catalogueUpdate.options));
    });
  };
  const executions: ExecutionsInFlight = {
    asked: (p) => void inFlight.set(p, (inFlight.get(p) ?? 0) + 1),
    answered: (p) => {
      const left = (inFlight.get(p) ?? 1) - 1;
      inFlight.set(p, left);
      if (left === 0 && state.dark === p) state.dark = null;
      if (left === 0 && p === ALERTS_PACKAGE) updateNow();
    },
  };
  if (nth === null && catalogueUpdate === null) return { world, executions };
  const [install, update] = [world.install.bind(world), world.update.bind(world)];
  const listed = (packageName: string) => {
    if (catalogueUpdate === null || packageName !== ALERTS_PACKAGE) return;
    if (++state.listings !== catalogueUpdate.afterListing) return;
    state.updateDue = true;
    updateNow();
  };
  // A reply of `packageName` to the live consumer process `pid`: whether it is lost.
  const onReply: OnReply = (packageName, method, extras, reply, pid) => {
    if (method === 'list_tools') listed(packageName);
    if (state.dark === packageName && state.pid !== pid) state.dark = null;
    const lose = method === 'execute_tool' && commits(packageName, extras, reply) && ++state.calls === nth;
    if (lose && blackout && (inFlight.get(packageName) ?? 0) > 0)
      [state.dark, state.pid] = [packageName, pid];
    return lose || state.dark === packageName;
  };
  const wrapped = (packageName: string, factory: AppFactory | undefined): AppFactory =>
    losing(world, consumerPackage, packageName, factory, onReply);
  view.install = (spec, factory) => install(spec, wrapped(spec.manifest.packageName, factory));
  // An updated app loses replies as the installed one did.
  view.update = (spec, factory) =>
    update(spec, factory ? wrapped(spec.manifest.packageName, factory) : undefined);
  return { world: view, executions };
}

/**
 * The update of the alerts app to a new catalogue (`adb install -r`: its process dies, its sessions
 * with it): get_quote and delete_alert removed, so the next list_tools names a new revision (3.3-03)
 * without them. A consumer that re-reads the catalogue after the new negotiation (3.3-05) and drops
 * what it cached for the old revision (3.3-04) stops offering and executing them; one that keeps the
 * old catalogue does not (consumer-uses-current-catalogue).
 */
function updatedAlerts(): DefinedProvider {
  return defineProvider({
    packageName: ALERTS_PACKAGE,
    authority: ALERTS_AUTHORITY,
    versions: ALERTS_PROVIDER.versions,
    cert: 'alerts-release',
    descriptor: ALERTS_PROVIDER.descriptor,
    tools: ALERT_TOOLS.filter((t) => t.name !== 'get_quote' && t.name !== 'delete_alert'),
    authorize: { freeScopes: ['alerts.read'] },
  });
}
