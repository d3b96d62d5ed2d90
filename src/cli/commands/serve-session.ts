/**
 * One `cetp-sim serve` session: the replayed world. A session is one vector's device (the provider
 * fixture and two agent apps, seeded by the session's seed); every request replays the session's
 * actions so far in a new world with the same seed (see serve.ts), each action run the way
 * src/vectors/engine.ts runs a step, handing out handles for the PendingIntents and file
 * descriptors in replies.
 */
import type { ProviderFixture } from '../../../properties/scenario/fixtures.ts';
import type { Variant } from '../../../properties/scenario/model.ts';
import { AGENT, agentPackage, OTHER_AGENT } from '../../providers/testing.ts';
import type { Bundle } from '../../sim/bundle.ts';
import type { AppContext } from '../../sim/context.ts';
import type { ParcelFileDescriptor } from '../../sim/fd.ts';
import type { PendingIntent } from '../../sim/pending-intent.ts';
import type { UserDecision } from '../../sim/user.ts';
import { World } from '../../sim/world.ts';
import { VectorCaller } from '../../vectors/caller.ts';
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

/**
 * The resolution launch passes Android 14's sender opt-in, as engine.ts does
 * (ActivityOptions.setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED)).
 */
const LEND_BACKGROUND_START = { pendingIntentBackgroundActivityStartAllowed: true } as const;

const ANSWERS: Readonly<Record<string, UserDecision>> = {
  approve: 'approve',
  deny: 'deny',
  back: 'back',
  never: 'ignore',
};

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
        this.world.killProcess(this.fixture.packageName, { kind: 'killed', reason: 'vector kill step' });
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
        const chunks: Uint8Array[] = [];
        try {
          for (let chunk = await pfd.read(1 << 16); chunk.length > 0; chunk = await pfd.read(1 << 16))
            chunks.push(chunk);
        } finally {
          pfd.close();
        }
        const bytes = Buffer.concat(chunks);
        return { size: bytes.length, base64: bytes.toString('base64') };
      }
    }
  }
}

/** Replays `actions` in a new world of `spec`; one result per action (fewer: it never finished). */
export async function replay(
  spec: SessionSpec,
  actions: readonly Action[],
): Promise<{ callerUid: string; fresh: Record<string, string>; results: Result[] }> {
  const decisions = actions.flatMap((a) => (a.op === 'user' ? [ANSWERS[a.answer] ?? 'ignore'] : []));
  const world = new World({ seed: spec.seed, user: { kind: 'scripted', decisions } });
  spec.fixture.install(world, spec.variant);
  world.install(agentPackage(AGENT), () => ({}));
  world.install(agentPackage(OTHER_AGENT), () => ({}));
  let callerUid = '';
  const fresh: Record<string, string> = {};
  const results: Result[] = [];
  world.spawnIn(AGENT, 'vector', async (ctx) => {
    callerUid = String(ctx.uid);
    for (const name of spec.fresh) fresh[name] = ctx.seededUuid();
    const driver = new Driver(world, spec.fixture, ctx);
    for (const action of actions) {
      try {
        results.push({ ok: true, ...(await driver.run(action)) });
      } catch (error) {
        results.push({ ok: false, error: describe(error) });
      }
    }
  });
  await world.run();
  return { callerUid, fresh, results };
}
