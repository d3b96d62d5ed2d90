/**
 * fast-check arbitraries for scenarios. Everything a run depends on — commands, the user's answers,
 * faults and the scheduler's decisions — is generated here, so fast-check shrinks all of it together
 * (fast-check's own scheduler cannot shrink schedules; ours are plain integer lists). Pools list their
 * simplest value first, since shrinking moves toward the first alternative.
 */
import fc from 'fast-check';
import type { Fault, FaultAt } from '../../src/sim/faults.ts';
import type { UserDecision } from '../../src/sim/user.ts';
import type { ProviderFixture } from './fixtures.ts';
import { hostileBatchArb } from './malformed-arb.ts';
import {
  type ActorName,
  type Command,
  MALFORMED_FLAWS,
  type ResolveMode,
  type RidRef,
  type Scenario,
  SHARED_REQUEST_IDS,
  type Tail,
} from './model.ts';

export type CommandKind = Command['kind'];

export interface ScenarioShape {
  readonly providers: readonly ProviderFixture[];
  readonly actors: readonly ActorName[];
  /** Command kinds actors may send besides execute (always allowed). */
  readonly commands: readonly Exclude<CommandKind, 'execute'>[];
  /** Tools executed, as `provider.tool`; default: every tool of every provider. */
  readonly tools?: readonly string[];
  readonly resolveModes: readonly ResolveMode[];
  /** Whether an execute may use a request id it did not just make up (see RidRef and ridArb). */
  readonly ridReuse: boolean;
  readonly expiredDeadlines: boolean;
  readonly confirmedFlags: boolean;
  /** Whether an execute may race copies of itself. */
  readonly duplicates: boolean;
  readonly faults: readonly Fault[];
  readonly maxCommands: number;
  readonly maxFaults: number;
  readonly userDecisions: readonly UserDecision[];
  readonly capabilitySets: readonly (readonly string[])[];
  /** Whether a poll may name the operation under another request_id than the one that created it. */
  readonly wrongRidPolls?: boolean;
  /** consumer_versions a negotiate may offer, first the usual one (default: always [2, 1]). */
  readonly versionSets?: readonly (readonly number[])[];
}

/**
 * One of `options`, the first (the cooperative one: the honest resolution, the user approving) three
 * times as likely as each other: most scenarios then get past authorization and confirmation to the
 * effects whose idempotency, cancellation and identity the oracles judge, while refusals stay common.
 */
export function favourFirst<T>(options: readonly T[]): fc.Arbitrary<T> {
  const [first, ...rest] = options;
  if (first === undefined) throw new RangeError('favourFirst: no options');
  if (rest.length === 0) return fc.constant(first);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(first) },
    ...rest.map((option) => ({ weight: 1, arbitrary: fc.constant(option) })),
  );
}

/** Which strategies finish a schedule after the generated decisions (`--strategy`). */
export function tailArb(tails: readonly Tail[]): fc.Arbitrary<Tail> {
  return fc.constantFrom(...tails);
}

/**
 * An execute's request id (see RidRef): fresh first (the simplest), then the collision cases —
 * reusing its own, taking another actor's, or a shared one. Shared ids are weighted high: together
 * with mirrored actors (actorsArb) they make one request_id from several UIDs to several providers
 * a common case rather than a lucky one.
 */
function ridArb(reuse: boolean): fc.Arbitrary<RidRef> {
  const fresh = fc.constant<RidRef>({ kind: 'fresh' });
  if (!reuse) return fresh;
  return fc.oneof(
    { weight: 4, arbitrary: fresh },
    { weight: 2, arbitrary: fc.nat({ max: 3 }).map((index): RidRef => ({ kind: 'reuse', index })) },
    { weight: 1, arbitrary: fc.nat({ max: 3 }).map((index): RidRef => ({ kind: 'other', index })) },
    {
      weight: 3,
      arbitrary: fc
        .nat({ max: SHARED_REQUEST_IDS.length - 1 })
        .map((index): RidRef => ({ kind: 'shared', index })),
    },
  );
}

function executeArb(shape: ScenarioShape): fc.Arbitrary<Command> {
  const tools =
    shape.tools ?? shape.providers.flatMap((p) => Object.keys(p.tools).map((tool) => `${p.name}.${tool}`));
  return fc
    .record({
      tool: fc.constantFrom(...tools),
      args: fc.nat({ max: 7 }),
      rid: ridArb(shape.ridReuse),
      expiredDeadline: shape.expiredDeadlines ? fc.boolean() : fc.constant(false),
      confirmedFlag: shape.confirmedFlags ? fc.boolean() : fc.constant(false),
      resolve: favourFirst(shape.resolveModes),
      duplicates: shape.duplicates ? fc.constantFrom(0, 0, 1, 2) : fc.constant(0),
    })
    .map(({ tool, ...rest }): Command => {
      const [provider, name] = tool.split('.') as [string, string];
      return { kind: 'execute', provider, tool: name, ...rest };
    });
}

function otherArb(kind: Exclude<CommandKind, 'execute'>, shape: ScenarioShape): fc.Arbitrary<Command> {
  switch (kind) {
    case 'negotiate':
      if (!shape.versionSets) {
        return fc.constantFrom(...shape.capabilitySets).map((caps): Command => ({ kind: 'negotiate', caps }));
      }
      return fc
        .record({ caps: fc.constantFrom(...shape.capabilitySets), versions: favourFirst(shape.versionSets) })
        .map((r): Command => ({ kind: 'negotiate', ...r }));
    case 'retry':
      // Right away, after a short wait, after the device slept for hours, or past the window (a day).
      return fc
        .record({ index: fc.nat({ max: 3 }), afterMs: fc.constantFrom(0, 3_000, 7_200_000, 90_000_000) })
        .map((r): Command => ({ kind: 'retry', ...r }));
    case 'poll':
      if (!shape.wrongRidPolls) return fc.boolean().map((other): Command => ({ kind: 'poll', other }));
      return fc
        .record({ other: fc.boolean(), wrongRid: favourFirst([false, true]) })
        .map((r): Command => ({ kind: 'poll', ...r }));
    case 'cancel':
      // Early (before the commit point), around it, or late (after it).
      return fc
        .record({ other: fc.boolean(), afterMs: fc.constantFrom(0, 1_000, 5_000, 15_000) })
        .map((r): Command => ({ kind: 'cancel', ...r }));
    case 'v1-list':
      return fc
        .constantFrom(...shape.providers.map((p) => p.name))
        .map((provider): Command => ({ kind: 'v1-list', provider }));
    case 'wait':
      // Seconds let operations progress; hours age records past a session, a token, or the window.
      return fc
        .constantFrom(500, 3_000, 20_000, 7_200_000, 90_000_000)
        .map((ms): Command => ({ kind: 'wait', ms }));
    case 'malformed':
      return fc
        .record({
          provider: fc.constantFrom(...shape.providers.map((p) => p.name)),
          flaw: fc.constantFrom(...MALFORMED_FLAWS),
        })
        .map((r): Command => ({ kind: 'malformed', ...r }));
    case 'hostile-batch':
      return hostileBatchArb(shape);
    case 'steal-session':
    case 'resume-foreign':
      return fc.constant<Command>({ kind });
  }
}

/**
 * Twice as likely as the other side commands: polls and cancels (operations and their races), and
 * negotiations (a session without async_operations makes the same tool run synchronously, the path
 * where concurrent duplicates race the dedup record: measured in bench/mutant-depth.ts).
 */
const FREQUENT_COMMANDS: readonly CommandKind[] = ['poll', 'cancel', 'negotiate'];

export function commandArb(shape: ScenarioShape): fc.Arbitrary<Command> {
  return fc.oneof(
    { weight: 6, arbitrary: executeArb(shape) },
    ...shape.commands.map((kind) => ({
      weight: FREQUENT_COMMANDS.includes(kind) ? 2 : kind === 'hostile-batch' ? 6 : 1,
      arbitrary: otherArb(kind, shape),
    })),
  );
}

export function faultsArb(shape: ScenarioShape): fc.Arbitrary<FaultAt[]> {
  if (shape.faults.length === 0 || shape.maxFaults === 0) return fc.constant([]);
  return fc.array(fc.record({ at: fc.nat({ max: 250 }), fault: fc.constantFrom(...shape.faults) }), {
    maxLength: shape.maxFaults,
  });
}

/**
 * Each actor's commands. Every actor after the first runs commands of its own or, a quarter of the
 * time, the first actor's very list: the same app logic under another UID (two apps on one agent
 * SDK, one app in two profiles). Their requests then match tool for tool and args for args, so
 * where both use a shared request id (see RidRef) they are the same request from two callers: the
 * cross-tenant collision a provider must keep apart (CETP-6-02).
 */
function actorsArb(shape: ScenarioShape): fc.Arbitrary<Partial<Record<ActorName, Command[]>>> {
  const commands = fc.array(commandArb(shape), { minLength: 1, maxLength: shape.maxCommands });
  const [first, ...rest] = shape.actors;
  if (first === undefined) return fc.constant({});
  const ownOrMirrored = fc.oneof(
    { weight: 3, arbitrary: commands },
    { weight: 1, arbitrary: fc.constant(MIRRORED) },
  );
  return fc.tuple(commands, ...rest.map(() => ownOrMirrored)).map(([firsts, ...others]) => {
    const actors: Partial<Record<ActorName, Command[]>> = { [first]: firsts };
    rest.forEach((actor, i) => {
      const own = others[i];
      actors[actor] = own === MIRRORED || own === undefined ? firsts : own;
    });
    return actors;
  });
}

const MIRRORED = 'mirrored' as const;

/**
 * `generateDecisions: false` leaves the whole schedule to the tail strategy (used to compare
 * strategies: PCT against uniform random on the same commands).
 */
export function scenarioArb(
  shape: ScenarioShape,
  tails: readonly Tail[] = ['fifo'],
  generateDecisions = true,
): fc.Arbitrary<Scenario> {
  return fc.record({
    seed: fc.nat({ max: 1_000_000 }),
    tail: tailArb(tails),
    actors: actorsArb(shape),
    user: fc.array(favourFirst(shape.userDecisions), { maxLength: 4 }),
    faults: faultsArb(shape),
    decisions: generateDecisions ? fc.array(fc.nat({ max: 7 }), { maxLength: 80 }) : fc.constant([]),
  });
}
