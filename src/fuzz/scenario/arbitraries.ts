/**
 * fast-check arbitraries for scenarios. Everything a run depends on — commands, the user's answers,
 * faults and the scheduler's decisions — is generated here, so fast-check shrinks all of it together
 * (fast-check's own scheduler cannot shrink schedules; ours are plain integer lists). Pools list their
 * simplest value first, since shrinking moves toward the first alternative.
 */
import fc from 'fast-check';
import type { Fault, FaultAt } from '../../sim/core/faults.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import { type AimedMove, aimedArb, aimsOf } from './aimed-arb.ts';
import { faultsOf } from './app-faults.ts';
import type { ProviderFixture } from './fixtures.ts';
import { hostileBatchArb } from './malformed-arb.ts';
import {
  type ActorName,
  type Command,
  CROSS_CLOCKS,
  type CrossClock,
  DUPLICATED_METHODS,
  type DuplicatedMethod,
  MALFORMED_FLAWS,
  type ResolveMode,
  type RidRef,
  type Scenario,
  SHARED_REQUEST_IDS,
  type Tail,
} from './model.ts';

export type CommandKind = Command['kind'];

/**
 * A move of the extras slot (ScenarioShape.extras): a command kind — `execute` there is a plain
 * valid execution (a fresh id, resolved as the shape's first resolve mode: the honest one) — or an
 * execution made for one situation, so a property's core executions keep their own distribution —
 * - `late-resume`: its confirmation or scope grant is resumed just before or just after the resume
 *   token's lifetime ends (resolve `late-before` / `late-after`; CETP-4.3-06);
 * - `reuse-rid`: under the request id of this actor's last execution, with args and tool drawn
 *   anew — a reused id with other args or another tool (CETP-6-03, 6-04);
 * - `duplicated`: raced by one or two identical copies of itself (CETP-6-06, 6-07);
 * - `hold-resolution`: a confirmation or grant launched and answered, its token kept, not resumed
 *   (for `resume-held` after a lifecycle event);
 * - `retry-resolved`: a retry that, asked to authorize or confirm (again), does and resumes;
 * - `dup:<method>`: a `duplicate-call` of that method (a poll, cancel or listing sent twice at once);
 * - `make`, `own`, `other`: a plain execution of a tool declared `create`, of an args entry naming
 *   the caller's own object (`$OWN:`), or another actor's (`$OTHER:`) (aimed-arb.ts).
 */
export type ExtraMove =
  | CommandKind
  | AimedMove
  | 'late-resume'
  | 'reuse-rid'
  | 'duplicated'
  | 'hold-resolution'
  | 'retry-resolved'
  | `dup:${DuplicatedMethod}`;

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
  /** The durations a `cross` command may cross (default: every one, CROSS_CLOCKS). */
  readonly crossClocks?: readonly CrossClock[];
  /**
   * Weights of command kinds against execute's 6 (default: 2 for polls, cancels and negotiations,
   * 1 for the rest): the attacks a property is about are raised so each happens in a good share of
   * its runs (issue 22: ≥ 20%), measured by src/check/frequencies.ts.
   */
  readonly weights?: Readonly<Partial<Record<Exclude<CommandKind, 'execute'>, number>>>;
  /** Weight of `other: true` in polls and cancels (another actor's operation) against 1 for own. */
  readonly otherOpWeight?: number;
  /** Weights of resolve modes (default: favourFirst over resolveModes). */
  readonly resolveWeights?: Readonly<Partial<Record<ResolveMode, number>>>;
  /** Weight of a shared request id against a fresh one's 4 (default 3; see ridArb). */
  readonly sharedRidWeight?: number;
  /** At least this many faults per run (default 0), at scheduler steps in `faultSteps` (default 0–250). */
  readonly minFaults?: number;
  readonly faultSteps?: readonly [number, number];
  /**
   * Moves appended to an actor's commands, `extraPercent`% of the time (default 0): one sequence of
   * moves picked from these, after whatever the actor did (so there is a session, a request, an
   * operation or a token to misuse or outlive). This is how a property makes the attacks and clock
   * crossings it exists for common (issue 22: floors in src/fuzz/suites.ts) without taking a share
   * from its core moves: the actor's own commands are drawn as if there were no extras (the same
   * kinds, weights and lengths), and the extras come after them, in a slot of their own.
   */
  readonly extras?: readonly (readonly ExtraMove[])[];
  readonly extraPercent?: number;
  /** Weight of an actor mirroring the first actor's commands against 3 for its own (default 1). */
  readonly mirrorWeight?: number;
  /**
   * Whether an actor whose process died (a reboot, its package re-signed or reinstalled) is launched
   * again and goes on with its next command, with what it held (sessions, request ids, operations,
   * resume tokens) kept as an app's journal keeps them (runner.ts). Default false: it stays dead.
   */
  readonly durableActors?: boolean;
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
function ridArb(reuse: boolean, sharedWeight = 3): fc.Arbitrary<RidRef> {
  const fresh = fc.constant<RidRef>({ kind: 'fresh' });
  if (!reuse) return fresh;
  return fc.oneof(
    { weight: 4, arbitrary: fresh },
    { weight: 2, arbitrary: fc.nat({ max: 3 }).map((index): RidRef => ({ kind: 'reuse', index })) },
    { weight: 1, arbitrary: fc.nat({ max: 3 }).map((index): RidRef => ({ kind: 'other', index })) },
    {
      weight: sharedWeight,
      arbitrary: fc
        .nat({ max: SHARED_REQUEST_IDS.length - 1 })
        .map((index): RidRef => ({ kind: 'shared', index })),
    },
  );
}

function resolveArb(shape: ScenarioShape): fc.Arbitrary<ResolveMode> {
  if (!shape.resolveWeights) return favourFirst(shape.resolveModes);
  return fc.oneof(
    ...shape.resolveModes.map((mode, i) => ({
      weight: shape.resolveWeights?.[mode] ?? (i === 0 ? 3 : 1),
      arbitrary: fc.constant(mode),
    })),
  );
}

/** The tools a shape executes, as `provider.tool` (default: every tool of every provider). */
const toolsOf = (shape: ScenarioShape): readonly string[] =>
  shape.tools ?? shape.providers.flatMap((p) => Object.keys(p.tools).map((tool) => `${p.name}.${tool}`));

/** `resolve`: the resolve modes to draw from (default: the shape's, see resolveArb). */
function executeArb(shape: ScenarioShape, resolve = resolveArb(shape)): fc.Arbitrary<Command> {
  const tools = toolsOf(shape);
  return fc
    .record({
      tool: fc.constantFrom(...tools),
      args: fc.nat({ max: 7 }),
      rid: ridArb(shape.ridReuse, shape.sharedRidWeight),
      expiredDeadline: shape.expiredDeadlines ? fc.boolean() : fc.constant(false),
      confirmedFlag: shape.confirmedFlags ? fc.boolean() : fc.constant(false),
      resolve,
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
    case 'poll': {
      const other = otherArb_(shape);
      if (!shape.wrongRidPolls) return other.map((o): Command => ({ kind: 'poll', other: o }));
      return fc
        .record({ other, wrongRid: favourFirst([false, true]) })
        .map((r): Command => ({ kind: 'poll', ...r }));
    }
    case 'cancel':
      // Early (before the commit point), around it, or late (after it).
      return fc
        .record({ other: otherArb_(shape), afterMs: fc.constantFrom(0, 1_000, 5_000, 15_000) })
        .map((r): Command => ({ kind: 'cancel', ...r }));
    case 'cross':
      return fc
        .record({
          clock: fc.constantFrom(...(shape.crossClocks ?? CROSS_CLOCKS)),
          side: fc.constantFrom<'before' | 'after'>('before', 'after'),
        })
        .map((r): Command => ({ kind: 'cross', ...r }));
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
    case 'duplicate-call':
      return fc
        .constantFrom(...DUPLICATED_METHODS)
        .map((method): Command => ({ kind: 'duplicate-call', method }));
    case 'steal-session':
    case 'resume-foreign':
    case 'after-faults':
    case 'collide':
    case 'resume-held':
      return fc.constant<Command>({ kind });
  }
}

/** Whether a poll or cancel names another actor's operation (`otherOpWeight` : 1, default even). */
function otherArb_(shape: ScenarioShape): fc.Arbitrary<boolean> {
  const w = shape.otherOpWeight;
  if (w === undefined) return fc.boolean();
  return fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: w, arbitrary: fc.constant(true) });
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
      weight:
        shape.weights?.[kind] ?? (FREQUENT_COMMANDS.includes(kind) ? 2 : kind === 'hostile-batch' ? 6 : 1),
      arbitrary: otherArb(kind, shape),
    })),
  );
}

export function faultsArb(shape: ScenarioShape): fc.Arbitrary<FaultAt[]> {
  if (shape.faults.length === 0 || shape.maxFaults === 0) return fc.constant([]);
  const [min, max] = shape.faultSteps ?? [0, 250];
  const at = min === 0 ? fc.nat({ max }) : fc.integer({ min, max });
  return fc.array(fc.record({ at, fault: fc.constantFrom(...faultsOf(shape)) }), {
    ...(shape.minFaults !== undefined ? { minLength: shape.minFaults } : {}),
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
  const base = fc.array(commandArb(shape), { minLength: 1, maxLength: shape.maxCommands });
  const commands = withExtras(base, shape);
  const [first, ...rest] = shape.actors;
  if (first === undefined) return fc.constant({});
  const ownOrMirrored = fc.oneof(
    { weight: 3, arbitrary: commands },
    { weight: shape.mirrorWeight ?? 1, arbitrary: fc.constant(MIRRORED) },
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

/** `commands`, followed `extraPercent`% of the time by one of the shape's extra sequences. */
function withExtras(commands: fc.Arbitrary<Command[]>, shape: ScenarioShape): fc.Arbitrary<Command[]> {
  const percent = shape.extraPercent ?? 0;
  const extras = shape.extras ?? [];
  if (percent <= 0 || extras.length === 0) return commands;
  const sequence = fc
    .constantFrom(...extras)
    .chain((moves) => fc.tuple(...moves.map((move) => extraArb(move, shape))));
  return fc
    .tuple(
      commands,
      fc.oneof(
        { weight: 100 - percent, arbitrary: fc.constant<Command[]>([]) },
        { weight: percent, arbitrary: sequence },
      ),
    )
    .map(([own, extra]) => [...own, ...extra]);
}

const LATE_RESUMES: readonly ResolveMode[] = ['late-before', 'late-after'];

function extraArb(move: ExtraMove, shape: ScenarioShape): fc.Arbitrary<Command> {
  // Valid sends (a live deadline, no `confirmed` flag), resolved as the shape's first resolve mode.
  const plain = {
    ...shape,
    ridReuse: false,
    expiredDeadlines: false,
    confirmedFlags: false,
    duplicates: false,
  };
  const first = fc.constant(shape.resolveModes[0] ?? 'honest');
  switch (move) {
    case 'execute':
      return executeArb(plain, first);
    case 'late-resume':
      return executeArb(plain, fc.constantFrom(...LATE_RESUMES));
    case 'reuse-rid':
      return executeArb(plain, first).map((c): Command => ({ ...c, rid: { kind: 'last' } }) as Command);
    case 'duplicated':
      return fc
        .tuple(executeArb(plain, first), fc.constantFrom(1, 2))
        .map(([c, duplicates]): Command => ({ ...c, duplicates }) as Command);
    case 'hold-resolution':
      return executeArb(plain, fc.constant<ResolveMode>('foreign'));
    case 'retry-resolved':
      // Soon: within the window and the grant's lifetime (the app retries what its journal holds).
      return fc
        .record({ index: fc.nat({ max: 3 }), afterMs: fc.constantFrom(0, 3_000) })
        .map((r): Command => ({ kind: 'retry', ...r, resolve: true }));
    case 'make':
    case 'own':
    case 'other':
      return aimedArb(aimsOf(move, shape.providers, toolsOf(shape)), executeArb(plain, first));
    case 'dup:get_operation':
    case 'dup:cancel_operation':
    case 'dup:get_provider_info':
    case 'dup:list_tools':
      return fc.constant<Command>({ kind: 'duplicate-call', method: move.slice(4) as DuplicatedMethod });
    default:
      return otherArb(move, shape);
  }
}

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
