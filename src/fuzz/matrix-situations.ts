/**
 * The matrix's targeted situations: the moments a NOTES item's readings decide, made to happen.
 * Random consumer scenarios rarely reach them (a deadline passing between two sends of one request,
 * the idempotency window passing while an operation runs, a cancel meeting a finished operation, a
 * token that is not the caller's), so "interoperates" said nothing for those notes. A situation is
 * part of the environment, not of either implementation under test: it watches the calls that reach
 * the reference providers and, at the deciding moment, loses a reply, moves the wall clock, kills and
 * relaunches the consumer, or swaps the session token a call carries — each one a device fault the
 * simulation already models (src/sim/core/faults.ts), applied through `world.applyFault` so the trace and
 * a replay's diagram show it. Deterministic: every decision depends only on the calls seen so far.
 * A situation's fixture wraps a provider fixture (its install), so a replay file of a situation
 * property reproduces the situation with it (src/fuzz/matrix.ts resolves the property by id).
 */
import { caches } from '../base/caches.ts';
import type { JsonValue } from '../base/json.ts';
import { worldIdentity } from '../check/checkers/visibility.ts';
import { CONSUMER_PACKAGE } from '../consumer/app.ts';
import { ALERTS_PACKAGE } from '../providers/apps/alerts.ts';
import type { GrantRecord } from '../providers/sdk/confirmations.ts';
import { GRANTS } from '../providers/sdk/records.ts';
import { agentPackage } from '../providers/testing.ts';
import type { App, AppFactory } from '../sim/app/app.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { ContentProvider } from '../sim/content/content-provider.ts';
import type { PackageSpec } from '../sim/pm/manifest.ts';
import type { World } from '../sim/world.ts';
import type { ProviderFixture } from './scenario/fixtures.ts';
import type { Variant } from './scenario/model.ts';

/** One call reaching a provider, as a situation sees it (read before the provider runs). */
export interface SituationCall {
  readonly provider: string;
  readonly method: string;
  readonly callerUid: number;
  readonly requestId: string | null;
  readonly tool: string | null;
  /** How many calls of this method with this request id (and operation id) the provider got before. */
  readonly seen: number;
  /** The operation a get_operation / cancel_operation names. */
  readonly operationId: string | null;
  /** The incoming extras (a situation may change them before the provider reads them). */
  readonly extras: Bundle | null;
}

/** What a situation may do to the world, each recorded in the trace as a fault. */
export interface SituationActions {
  readonly world: World;
  /** The reply now being computed is lost on its way back (the callee's effects happened). */
  loseReply(call: SituationCall): void;
  /** The wall clock moves by `ms`. */
  jumpClock(ms: number): void;
  /** The consumer is killed now and launched again `afterMs` later (it resumes its journal). */
  restartConsumer(afterMs: number): void;
  /** Per-run memory shared by every provider of the run. */
  readonly memory: Map<string, unknown>;
}

export interface Situation {
  readonly id: string;
  /** The NOTES item whose readings it reaches. */
  readonly note: number;
  /** What happens, for the document and --help. */
  readonly title: string;
  /** Called before the provider reads the call (synchronously: the calling identity is still set). */
  before?(act: SituationActions, call: SituationCall): void;
  /** Called with the provider's reply, before it travels back. */
  after?(act: SituationActions, call: SituationCall, reply: Bundle | null): void;
  /** Extra installs (another app) for the run. */
  install?(world: World, act: SituationActions): void;
  /** Args pools of tools the scenarios may call besides the fixture's, by provider package. */
  readonly tools?: Readonly<Record<string, Readonly<Record<string, readonly JsonValue[]>>>>;
  /** Called once a watched provider package is installed (its app can now be started). */
  installed?(world: World, act: SituationActions, packageName: string): void;
}

/** The tools whose execute_tool writes (the situations act on writes only). */
const WRITE_TOOLS = new Set([
  'create_alert',
  'delete_alert',
  'clear_alerts',
  'transfer',
  'reconcile_accounts',
]);

function isWrite(call: SituationCall): boolean {
  return call.method === 'execute_tool' && call.tool !== null && WRITE_TOOLS.has(call.tool);
}

/** A deterministic split of requests into two kinds (the request id's last hex digit). */
function odd(requestId: string | null): boolean {
  const last = requestId?.at(-1) ?? '0';
  return Number.parseInt(last, 16) % 2 === 1;
}

const SECOND = 1_000;
const HOUR = 3_600_000;

/** Whether a reply settled its request: an operation (`accepted`) or a result (`success`). */
function settledBy(reply: Bundle | null): 'accepted' | 'success' | null {
  const status = reply?.typeOf('status') === 'String' ? reply.getString('status') : null;
  return status === 'accepted' || status === 'success' ? status : null;
}

/** The first time `call`'s request settles (once per request): later calls return false. */
function firstSettled(act: SituationActions, call: SituationCall, reply: Bundle | null): boolean {
  if (!isWrite(call) || settledBy(reply) === null) return false;
  const key = `settled:${call.provider}:${call.requestId}`;
  if (act.memory.has(key)) return false;
  act.memory.set(key, true);
  return true;
}

/**
 * NOTES 5: the reply that settles a write (its operation or its result) is lost, and the deadline
 * the consumer set (30 s) passes before the provider reads the re-send — for half of the requests
 * while the consumer waits to re-send (a consumer that keeps the first deadline then sends an
 * expired one, a fresh one does not), for the other half while the re-send is in transit (expired
 * whatever the consumer did).
 */
export const DEADLINE_PASSES: Situation = {
  id: 'deadline-passes',
  note: 5,
  title:
    'the reply that settles a write is lost; 45 s pass before the re-send is read (between the sends, or in transit)',
  before(act, call) {
    const key = `transit:${call.provider}:${call.requestId}`;
    if (call.method !== 'execute_tool' || !act.memory.has(key)) return;
    act.memory.delete(key);
    act.jumpClock(45 * SECOND);
  },
  after(act, call, reply) {
    if (!firstSettled(act, call, reply)) return;
    act.loseReply(call);
    if (odd(call.requestId)) act.memory.set(`transit:${call.provider}:${call.requestId}`, true);
    else act.jumpClock(45 * SECOND);
  },
};

/**
 * NOTES 11: the reply that settles a write is lost and the consumer's re-send is read more than the
 * idempotency window (24 h) after the request's first receipt, but less than that after its terminal
 * state: for an operation (still running when the re-send comes) the clock moves 25 h; for a result
 * reached after a confirmation, it moves to halfway between the two window ends.
 */
export const WINDOW_PASSES: Situation = {
  id: 'window-passes',
  note: 11,
  title:
    'the reply that settles a write is lost; the re-send comes past 24 h from the first receipt, within 24 h of the terminal state',
  before(act, call) {
    const key = `receipt:${call.provider}:${call.requestId}`;
    if (isWrite(call) && !act.memory.has(key)) act.memory.set(key, act.world.clock.nowMs());
  },
  after(act, call, reply) {
    if (!firstSettled(act, call, reply)) return;
    const receipt = act.memory.get(`receipt:${call.provider}:${call.requestId}`) as number;
    const since = act.world.clock.nowMs() - receipt;
    act.loseReply(call);
    act.jumpClock(settledBy(reply) === 'accepted' ? 25 * HOUR : WINDOW_MS - Math.floor(since / 2));
  },
};

const WINDOW_MS = 24 * HOUR;

/** A reply's data with poll_after_ms set to `ms` (a provider that advises slow polling). */
function slowPolls(reply: Bundle | null, ms: number): void {
  if (reply?.typeOf('data') !== 'String') return;
  try {
    const data = JSON.parse((reply as Bundle).getString('data') ?? '') as unknown;
    if (data === null || typeof data !== 'object' || !('poll_after_ms' in data)) return;
    reply.putString('data', JSON.stringify({ ...data, poll_after_ms: ms }));
  } catch {
    // not JSON: left as it is
  }
}

/**
 * NOTES 10: the consumer's cancel meets an operation that has finished by the time it is read, or
 * the consumer re-sends the request of an operation that was cancelled meanwhile. The provider
 * advises polling every 20 s (so an agent's cancel often comes after the work ended, before the
 * consumer saw it); the reply to the first cancel_operation of an operation is lost (the consumer
 * re-sends it at its next poll), or — for the other half — the consumer dies right after sending it
 * and comes back 20 s later, when its journal makes it re-send the request and the cancel.
 */
export const CANCEL_MEETS_END: Situation = {
  id: 'cancel-meets-end',
  note: 10,
  title:
    'operations advise 20 s polls; the first cancel of an operation loses its reply, or the consumer dies after sending it and comes back 20 s later',
  after(act, call, reply) {
    if (call.method === 'execute_tool' || call.method === 'get_operation') slowPolls(reply, 20 * SECOND);
    if (call.method !== 'cancel_operation' || call.seen !== 0) return;
    if (odd(call.operationId)) act.restartConsumer(20 * SECOND);
    else act.loseReply(call);
  },
};

/**
 * NOTES 16: the user leaves the confirmation (or grant) screen open for 11 minutes — past the
 * resume token's life (10 min) — before answering, so the consumer resumes with an expired token.
 */
export const TOKEN_EXPIRES: Situation = {
  id: 'token-expires',
  note: 16,
  title:
    'the user answers the first confirmation of a request 11 minutes later, after its resume token expired',
  after(act, call, reply) {
    if (call.method !== 'execute_tool' || reply?.typeOf('error_code') !== 'String') return;
    const code = (reply as Bundle).getString('error_code');
    if (code !== 'USER_ACTION_REQUIRED' && code !== 'AUTH_REQUIRED') return;
    const key = `asked:${call.provider}:${call.requestId}`;
    if (act.memory.has(key)) return;
    act.memory.set(key, true);
    act.jumpClock(11 * 60 * SECOND);
  },
};

const PEER_PACKAGE = 'com.example.peer';

/**
 * NOTES 8: a call of the consumer carries a session token the provider gave another UID (a peer
 * app's) — a consumer SDK whose token cache two apps of one developer share, or a cache restored from
 * another install. The peer negotiates first; the consumer's first execute_tool of each provider
 * then carries the peer's token instead of its own.
 */
export const FOREIGN_TOKEN: Situation = {
  id: 'foreign-token',
  note: 8,
  title:
    "the consumer's first execute_tool to each provider carries the session token the provider gave another app",
  install(world, act) {
    world.install(agentPackage(PEER_PACKAGE), () => ({}));
    act.memory.set('peerUid', world.pm.getPackageUid(PEER_PACKAGE));
    world.spawnIn(PEER_PACKAGE, 'peer: negotiate with every provider', async (ctx) => {
      for (const authority of act.memory.get('authorities') as string[]) {
        const client = await ctx.contentResolver.acquireUnstableContentProviderClient(authority);
        if (!client) continue;
        const b = new Bundle();
        b.putIntArray('consumer_versions', [2]);
        b.putString('consumer_capabilities', '["async_operations","cancellation","large_results"]');
        await client.call('negotiate', null, b).catch(() => null);
      }
    });
  },
  before(act, call) {
    const peerUid = act.memory.get('peerUid');
    if (call.method === 'negotiate' || call.extras === null || typeof peerUid !== 'number') return;
    const key = `swapped:${call.provider}`;
    if (call.method !== 'execute_tool' || call.callerUid === peerUid || act.memory.has(key)) return;
    const token = act.memory.get(`peerToken:${call.provider}`);
    if (typeof token !== 'string') return;
    act.memory.set(key, true);
    call.extras.putString('session_token', token);
  },
};

/** The scope whose grant makes alerts' hidden tool (clear_alerts) visible, and that tool. */
const HIDDEN_SCOPE = 'alerts.write';
const HIDDEN_TOOL = 'clear_alerts';
/** How long the seeded grant has left when the run starts. */
const GRANT_LEFT_MS = 20 * 60 * SECOND;

/**
 * NOTES 14: the user granted the consumer alerts.write 30 days ago, less 20 minutes, so the consumer
 * lists clear_alerts — a tool alerts hides from callers without that grant (7.2-02). When the
 * consumer's first call of it reaches the provider, the grant has just expired (the clock moves past
 * its end, the session stays live): the tool is now hidden from the caller that has it in its list.
 */
export const GRANT_EXPIRES: Situation = {
  id: 'grant-expires',
  note: 14,
  title:
    "the consumer lists alerts' hidden clear_alerts under a grant of alerts.write that expires before its first call of it is read",
  tools: { [ALERTS_PACKAGE]: { [HIDDEN_TOOL]: [{}] } },
  installed(world, act, packageName) {
    if (packageName !== ALERTS_PACKAGE) return;
    world.spawnIn(packageName, 'the user granted alerts.write 30 days ago', async (ctx) => {
      const uid = world.pm.getPackageUid(CONSUMER_PACKAGE);
      if (uid === undefined || uid === null) return;
      const now = ctx.currentTimeMillis();
      const expiresAtMs = now + GRANT_LEFT_MS;
      act.memory.set('grantExpiresAt', expiresAtMs);
      const grant: GrantRecord = {
        scope: HIDDEN_SCOPE,
        identity: worldIdentity(world, uid),
        grantedAtMs: expiresAtMs - GRANT_TTL_MS,
        expiresAtMs,
      };
      await ctx.storage.put(GRANTS, String(uid), [grant] as unknown as JsonValue);
    });
  },
  before(act, call) {
    if (call.method !== 'execute_tool' || call.tool !== HIDDEN_TOOL || call.provider !== ALERTS_PACKAGE)
      return;
    const end = act.memory.get('grantExpiresAt');
    if (typeof end !== 'number' || act.memory.has('grantExpired')) return;
    act.memory.set('grantExpired', true);
    const now = act.world.clock.nowMs();
    if (now < end + SECOND) act.jumpClock(end + SECOND - now);
  },
};

/** The validity of a scope grant (the SDK's confirmation Activity, 7.1-06). */
const GRANT_TTL_MS = 30 * 24 * HOUR;

export const SITUATIONS: readonly Situation[] = [
  DEADLINE_PASSES,
  FOREIGN_TOKEN,
  CANCEL_MEETS_END,
  WINDOW_PASSES,
  TOKEN_EXPIRES,
  GRANT_EXPIRES,
];

interface RunState {
  readonly memory: Map<string, unknown>;
  readonly seen: Map<string, number>;
  act: SituationActions;
}

/** Each world's situation state, for as long as the world lives. */
const runs = caches.weakMap<World, Map<string, RunState>>('properties/matrix-situations: run state');

function stateOf(world: World, situation: Situation): RunState {
  let bySituation = runs.get(world);
  if (!bySituation) {
    bySituation = new Map();
    runs.set(world, bySituation);
  }
  let state = bySituation.get(situation.id);
  if (!state) {
    const memory = new Map<string, unknown>();
    const act: SituationActions = {
      world,
      memory,
      loseReply: (call) => world.applyFault({ kind: 'loseReply', callee: call.provider }),
      jumpClock: (ms) => world.applyFault({ kind: 'clockJump', ms }),
      restartConsumer: (afterMs) => {
        world.applyFault({ kind: 'kill', process: CONSUMER_PACKAGE });
        world.spawn(`situation ${situation.id}: relaunch the consumer`, async () => {
          await world.scheduler.sleep(afterMs);
          await world.launchApp(CONSUMER_PACKAGE);
        });
      },
    };
    state = { memory, seen: new Map(), act };
    bySituation.set(situation.id, state);
    situation.install?.(world, act);
  }
  return state;
}

function readCall(
  world: World,
  provider: ContentProvider,
  packageName: string,
  method: string,
  extras: Bundle | null,
  state: RunState,
): SituationCall {
  const requestId = extras?.typeOf('request_id') === 'String' ? extras.getString('request_id') : null;
  const operationId = extras?.typeOf('operation_id') === 'String' ? extras.getString('operation_id') : null;
  const tool = extras?.typeOf('tool_name') === 'String' ? extras.getString('tool_name') : null;
  const key = `${method}|${requestId ?? ''}|${operationId ?? ''}`;
  const seen = requestId === null && operationId === null ? 0 : (state.seen.get(key) ?? 0);
  state.seen.set(key, seen + 1);
  void world;
  return {
    provider: packageName,
    method,
    callerUid: provider.context.binder.getCallingUid(),
    requestId,
    tool,
    seen,
    operationId,
    extras,
  };
}

/** The app with every ContentProvider's call() watched by the situation. */
function watched(world: World, situation: Situation, packageName: string, factory: AppFactory): AppFactory {
  return (context) => {
    const app: App = factory(context);
    if (!app.providers) return app;
    const providers: Record<string, ContentProvider> = {};
    for (const [name, inner] of Object.entries(app.providers)) {
      providers[name] = new Proxy(inner, {
        get(target, key, receiver) {
          if (key !== 'call') {
            const value = Reflect.get(target, key, target);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          void receiver;
          return (authority: string, method: string, arg: string | null, extras: Bundle | null) => {
            const state = stateOf(world, situation);
            const call = readCall(world, target, packageName, method, extras, state);
            situation.before?.(state.act, call);
            const reply = target.call(authority, method, arg, extras);
            const settle = (bundle: Bundle | null): Bundle | null => {
              remember(state, call, bundle);
              situation.after?.(state.act, call, bundle);
              return bundle;
            };
            return reply instanceof Promise ? reply.then(settle) : settle(reply);
          };
        },
      });
    }
    return { ...app, providers };
  };
}

/** Remembers the session token each provider gave a caller (the foreign-token situation uses the peer's). */
function remember(state: RunState, call: SituationCall, reply: Bundle | null): void {
  if (call.method !== 'negotiate' || !reply || call.callerUid !== state.memory.get('peerUid')) return;
  let token: unknown;
  try {
    token = (JSON.parse(reply.getString('data') ?? 'null') as { session_token?: unknown } | null)
      ?.session_token;
  } catch {
    return;
  }
  if (typeof token === 'string') state.memory.set(`peerToken:${call.provider}`, token);
}

/** A provider fixture whose installs are watched by `situation`. */
export function withSituation(fixture: ProviderFixture, situation: Situation): ProviderFixture {
  return {
    ...fixture,
    tools: { ...fixture.tools, ...situation.tools?.[fixture.packageName] },
    install: (world: World, variant: Variant) => {
      const state = stateOf(world, situation);
      const authorities = (state.memory.get('authorities') as string[] | undefined) ?? [];
      state.memory.set('authorities', [...authorities, fixture.authority]);
      const install = world.install.bind(world);
      const proxy = Object.create(world) as World;
      Object.defineProperty(proxy, 'install', {
        value: (spec: PackageSpec, factory?: AppFactory) =>
          install(spec, factory ? watched(world, situation, spec.manifest.packageName, factory) : undefined),
      });
      fixture.install(proxy, variant);
      situation.installed?.(world, state.act, fixture.packageName);
    },
  };
}
