/**
 * One `cetp-sim serve` session: a live world. A session is one vector's device (the provider
 * fixture and two agent apps, seeded by the session's seed) whose driver runs each request's action
 * as it comes (LiveSession), the way src/vectors/engine.ts runs a step, handing out handles for the
 * PendingIntents and file descriptors in replies.
 */
import type { ProviderFixture } from '../../fuzz/scenario/fixtures.ts';
import type { Variant } from '../../fuzz/scenario/model.ts';
import { AGENT, agentPackage, OTHER_AGENT } from '../../providers/testing.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import type { PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import { World } from '../../sim/world.ts';
import { LEND_BACKGROUND_START, readToEnd, USER_ANSWERS, VectorCaller } from '../../vectors/caller.ts';
import { killTargetProcess } from '../../vectors/kill-target.ts';
import { type Actual, fromBundle } from '../../vectors/typed.ts';
import { type Action, type CallAction, describe, RequestError, type Result } from './serve-requests.ts';

/** A tagged reply value with handles for the objects a later request may name. */
type Wire =
  | Exclude<Actual, { type: 'bundle' | 'pending_intent' | 'fd' }>
  | { readonly type: 'bundle'; readonly value: Record<string, Wire> }
  | { type: 'pending_intent'; creator: 'provider' | 'other'; immutable: boolean; handle: string }
  | { type: 'fd'; read_only: boolean; handle: string };

export interface SessionSpec {
  readonly fixture: ProviderFixture;
  readonly seed: string;
  readonly fresh: readonly string[];
  readonly variant: Variant;
}

/** Runs actions in the world the way engine.ts runs steps, handing out handles for PIs and fds. */
class Driver {
  private readonly caller: VectorCaller;
  private readonly pis = new Map<string, { pi: PendingIntent; from: AppContext }>();
  private readonly fds = new Map<string, ParcelFileDescriptor>();
  private handles = 0;

  constructor(
    private readonly world: World,
    private readonly fixture: ProviderFixture,
    private readonly primary: AppContext,
  ) {
    this.caller = new VectorCaller(world, fixture.authority, primary);
  }

  /** The reply and the app that received it (the second UID's calls run in that app's process). */
  private async call(spec: Omit<CallAction, 'op'>): Promise<Wire> {
    const { reply, ctx } = await this.caller.call(spec, new Map());
    return this.wire(reply, ctx);
  }

  private wire(reply: Bundle | null, from: AppContext): Wire {
    const tagged = fromBundle(reply, { providerPackage: this.fixture.packageName });
    const attach = (actual: Actual, bundle: Bundle | null, key: string | null): Wire => {
      if (actual.type === 'bundle') {
        const inner = key === null ? bundle : (bundle?.getBundle(key) ?? null);
        return {
          type: 'bundle',
          value: Object.fromEntries(Object.entries(actual.value).map(([k, v]) => [k, attach(v, inner, k)])),
        };
      }
      if (actual.type === 'pending_intent' && key !== null) {
        const handle = `pi:${++this.handles}`;
        this.pis.set(handle, { pi: bundle?.getPendingIntent(key) as PendingIntent, from });
        return { ...actual, handle };
      }
      if (actual.type === 'fd' && key !== null) {
        const handle = `fd:${++this.handles}`;
        this.fds.set(handle, bundle?.getParcelFileDescriptor(key) as ParcelFileDescriptor);
        return { ...actual, handle };
      }
      return actual as Wire;
    };
    return attach(tagged, reply, null);
  }

  async run(action: Action): Promise<Record<string, unknown>> {
    switch (action.op) {
      case 'call':
        return { reply: await this.call(action) };
      case 'parallel': {
        const replies: Wire[] = [];
        const failures: unknown[] = [];
        const waiters = Array.from({ length: action.count }, (_, i) => {
          const done = this.primary.waiter<null>(`parallel ${i}`);
          this.primary.spawn(`vector-parallel-${i}`, async () => {
            try {
              replies.push(await this.call(action.call));
            } catch (error) {
              failures.push(error);
            }
            done.wake(null);
          });
          return done;
        });
        for (const w of waiters) await w.wait();
        if (failures.length > 0) throw failures[0];
        return { replies };
      }
      case 'user': {
        const target = this.pis.get(action.handle);
        if (!target)
          throw new RequestError(
            'no_such_handle',
            `no PendingIntent with handle ${action.handle}`,
            '$.handle',
          );
        if (action.answer === 'never') {
          const launch = async () =>
            void (await target.from.startIntentSenderForResult(target.pi, null, 0, LEND_BACKGROUND_START));
          this.primary.spawn('vector-unanswered', launch, { daemon: true });
          return {};
        }
        await target.from.startIntentSenderForResult(target.pi, null, 0, LEND_BACKGROUND_START);
        return {};
      }
      case 'kill':
        this.caller.reset();
        this.world.killProcess(killTargetProcess(this.world, this.fixture, action.process), {
          kind: 'killed',
          reason: 'vector kill step',
        });
        return {};
      case 'advance-clock':
        await this.primary.sleep(action.ms);
        return {};
      case 'read-fd': {
        const pfd = this.fds.get(action.handle);
        if (!pfd)
          throw new RequestError(
            'no_such_handle',
            `no file descriptor with handle ${action.handle}`,
            '$.handle',
          );
        const bytes = await readToEnd(pfd);
        return { size: bytes.length, base64: bytes.toString('base64') };
      }
    }
  }
}

const NEVER_ANSWERED: Result = {
  ok: false,
  error: { code: 'never_answered', message: 'the vector never finished (a call was never answered)' },
};

/** The scheduler's stall watch (sim/core/scheduler.ts), which a live session holds while it waits for input. */
interface StallWatch {
  stallWatch: ReturnType<typeof setImmediate> | null;
  watchForStall(): void;
}

/**
 * One session's world, kept running between requests: its driver task runs each action as it
 * comes and then waits — outside the simulation — for the next, so a request costs the same
 * whatever came before (no replay of the session so far). Nothing else in the world runs while the
 * driver waits (the scheduler only switches tasks when the running one blocks on the simulation),
 * so every action runs exactly as in a world that ran all the session's actions in one go, the way
 * src/vectors/engine.ts runs a vector's steps: the same bytes as replaying the session would give.
 *
 * A run that leaves the simulation is ended as `stalled` at the next macrotask (sim/core/scheduler.ts);
 * waiting for the next request is the one such wait that is meant, so the driver clears that watch
 * while it waits and sets it again when the next action starts.
 */
export class LiveSession {
  private readonly decisions: UserDecision[] = [];
  private readonly world: World;
  private resume: ((action: Action | null) => void) | null = null;
  private deliver: ((result: Result) => void) | null = null;
  private ended = false;
  private ready: (() => void) | null = null;
  callerUid = '';
  readonly fresh: Record<string, string> = {};

  private constructor(private readonly spec: SessionSpec) {
    this.world = new World({
      seed: spec.seed,
      user: { kind: 'scripted', decisions: this.decisions },
      ...(spec.variant.android !== undefined ? { android: spec.variant.android } : {}),
    });
  }

  /** A fresh world of `spec`, its driver started and waiting for the first action. */
  static async open(spec: SessionSpec): Promise<LiveSession> {
    const session = new LiveSession(spec);
    await session.start();
    return session;
  }

  private get watch(): StallWatch {
    return this.world.scheduler as unknown as StallWatch;
  }

  private nextAction(): Promise<Action | null> {
    const watch = this.watch;
    if (watch.stallWatch !== null) clearImmediate(watch.stallWatch);
    watch.stallWatch = null;
    return new Promise((resolve) => {
      this.resume = resolve;
      this.ready?.();
      this.ready = null;
    });
  }

  private start(): Promise<void> {
    const { spec, world } = this;
    spec.fixture.install(world, spec.variant);
    world.install(agentPackage(AGENT), () => ({}));
    world.install(agentPackage(OTHER_AGENT), () => ({}));
    const started = new Promise<void>((resolve) => {
      this.ready = resolve;
    });
    world.spawnIn(AGENT, 'vector', async (ctx) => {
      this.callerUid = String(ctx.uid);
      for (const name of spec.fresh) this.fresh[name] = ctx.seededUuid();
      const driver = new Driver(world, spec.fixture, ctx);
      for (let action = await this.nextAction(); action !== null; action = await this.nextAction()) {
        let result: Result;
        try {
          result = { ok: true, ...(await driver.run(action)) };
        } catch (error) {
          result = { ok: false, error: describe(error) };
        }
        this.deliver?.(result);
        this.deliver = null;
      }
    });
    void world.run().then(() => {
      // The world ended: an action that never finished is answered as such, and so is every later one.
      this.ended = true;
      this.ready?.();
      this.deliver?.(NEVER_ANSWERED);
      this.deliver = null;
    });
    return started;
  }

  /** Runs one action in the live world and answers its result. */
  act(action: Action): Promise<Result> {
    const resume = this.resume;
    if (this.ended || resume === null) return Promise.resolve(NEVER_ANSWERED);
    this.resume = null;
    if (action.op === 'user') this.decisions.push(USER_ANSWERS[action.answer] ?? 'ignore');
    const answered = new Promise<Result>((resolve) => {
      this.deliver = resolve;
    });
    this.watch.watchForStall();
    resume(action);
    return answered;
  }

  /** Ends the session: its driver returns and the world runs out. */
  close(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.(null);
  }
}
