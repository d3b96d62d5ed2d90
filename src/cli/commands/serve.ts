/**
 * `cetp-sim serve --stdio`: the simulated device behind a JSON-lines protocol, for runners written
 * in other languages (runners/java's SimTransport). One request per line on stdin, one response
 * per line on stdout, in order. Values travel in the vectors' typed encoding (format.ts): a runner
 * sends `SendValue`s (variables already resolved, except `now_plus_ms`, which the device's clock
 * resolves) and gets replies as tagged values; a PendingIntent or a file descriptor in a reply
 * carries an opaque `handle` that a later `user` or `read-fd` request names.
 *
 * A session (`open`) is one vector's device: a fresh simulated world with the provider fixture and
 * two agent apps, seeded by the session's seed. The simulation cannot wait for input in the middle
 * of a run (a run completes inside one macrotask, see sim/scheduler.ts), so every request replays
 * the session's actions so far in a new world with the same seed and answers with the last one's
 * result: determinism makes the replayed prefix identical (checked on each request), and each
 * action runs exactly as src/vectors/engine.ts runs the step, so a runner driving this protocol
 * sees what `vectors run` sees. Malformed input gets one error line naming the field; the process
 * keeps serving.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { Option } from 'commander';
import { MUTANTS, mutantById } from '../../../properties/mutants.ts';
import type { ProviderFixture } from '../../../properties/scenario/fixtures.ts';
import { REFERENCE, type Variant } from '../../../properties/scenario/model.ts';
import { Ajv2020 } from '../../protocol/schemas/ajv.ts';
import { AGENT, agentPackage, OTHER_AGENT } from '../../providers/testing.ts';
import type { Bundle } from '../../sim/bundle.ts';
import type { ContentProviderClient } from '../../sim/content.ts';
import type { AppContext } from '../../sim/context.ts';
import type { ParcelFileDescriptor } from '../../sim/fd.ts';
import type { PendingIntent } from '../../sim/pending-intent.ts';
import type { UserDecision } from '../../sim/user.ts';
import { World } from '../../sim/world.ts';
import { runConsumerVector } from '../../vectors/consumer-engine.ts';
import type { ConsumerVector } from '../../vectors/consumer-format.ts';
import { bestError, blobReader } from '../../vectors/corpus.ts';
import { REFERENCE_FIXTURES } from '../../vectors/fixtures.ts';
import { ABILITIES, type SendValue } from '../../vectors/format.ts';
import { CONSUMER_FILE_SCHEMA, VECTOR_FILE_SCHEMA } from '../../vectors/schemas.ts';
import { type Actual, fromBundle, toBundle } from '../../vectors/typed.ts';
import { CliError, EXIT_OK } from '../errors.ts';
import type { Io } from '../io.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

export const SERVE_PROTOCOL = 'cetp-sim-serve/1';

/** The Java types the simulated Bundle holds (typed.ts); a runner skips a vector sending others. */
const VALUE_TYPES = ['int', 'long', 'boolean', 'string', 'int[]', 'bundle', 'null'] as const;

type Caller = 'primary' | 'second';
interface CallAction {
  readonly op: 'call';
  readonly caller?: Caller;
  readonly method: string;
  readonly arg: string | null;
  readonly extras: Readonly<Record<string, SendValue>> | null;
}
type Action =
  | CallAction
  | { readonly op: 'parallel'; readonly count: number; readonly call: Omit<CallAction, 'op'> }
  | { readonly op: 'user'; readonly answer: 'approve' | 'deny' | 'back' | 'never'; readonly handle: string }
  | { readonly op: 'kill' }
  | { readonly op: 'advance-clock'; readonly ms: number }
  | { readonly op: 'read-fd'; readonly handle: string };

/** A tagged reply value with handles for the objects a later request may name. */
type Wire =
  | Exclude<Actual, { type: 'bundle' | 'pending_intent' | 'fd' }>
  | { readonly type: 'bundle'; readonly value: Record<string, Wire> }
  | { type: 'pending_intent'; creator: 'provider' | 'other'; immutable: boolean; handle: string }
  | { type: 'fd'; read_only: boolean; handle: string };

type Result =
  | { readonly ok: true; readonly [k: string]: unknown }
  | { readonly ok: false; readonly error: ServeError };

interface ServeError {
  readonly code: string;
  readonly message: string;
  readonly path?: string;
}

class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

// ---- request validation (JSON Schema; send values use the vector format's own definition) ----

const NAME = { type: 'string', minLength: 1 };
const extras = {
  oneOf: [{ type: 'null' }, { type: 'object', additionalProperties: { $ref: '#/$defs/sendValue' } }],
};
const callFields = {
  caller: { enum: ['primary', 'second'] },
  method: NAME,
  arg: { type: ['string', 'null'] },
  extras,
};
const closed = (op: string, properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties: { id: {}, op: { const: op }, ...properties },
  required: ['op', ...required],
  additionalProperties: false,
});
const REQUEST_SCHEMAS: Readonly<Record<string, object>> = {
  hello: closed('hello', {}, []),
  open: closed(
    'open',
    {
      fixture: NAME,
      seed: { type: 'string' },
      fresh: { type: 'array', items: NAME },
      variant: NAME,
    },
    ['fixture'],
  ),
  call: closed('call', callFields, ['method', 'arg', 'extras']),
  parallel: closed(
    'parallel',
    {
      count: { type: 'integer', minimum: 1, maximum: 64 },
      call: {
        type: 'object',
        properties: callFields,
        required: ['method', 'arg', 'extras'],
        additionalProperties: false,
      },
    },
    ['count', 'call'],
  ),
  user: closed('user', { answer: { enum: ['approve', 'deny', 'back', 'never'] }, handle: NAME }, [
    'answer',
    'handle',
  ]),
  kill: closed('kill', {}, []),
  'advance-clock': closed('advance-clock', { ms: { type: 'integer', minimum: 0, maximum: 31_536_000_000 } }, [
    'ms',
  ]),
  'read-fd': closed('read-fd', { handle: NAME }, ['handle']),
  consumer: closed('consumer', { vector: { $ref: '#/$defs/consumerVector' }, variant: NAME }, ['vector']),
  close: closed('close', {}, []),
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = Object.fromEntries(
  Object.entries(REQUEST_SCHEMAS).map(([op, schema]) => [
    op,
    ajv.compile({ ...schema, $defs: { ...VECTOR_FILE_SCHEMA.$defs, ...CONSUMER_FILE_SCHEMA.$defs } }),
  ]),
);

// ---- one session: the replayed world ----

interface SessionSpec {
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
  private readonly clients = new Map<AppContext, ContentProviderClient>();
  private readonly pis = new Map<string, { pi: PendingIntent; from: AppContext }>();
  private readonly fds = new Map<string, ParcelFileDescriptor>();
  private handles = 0;

  constructor(
    private readonly world: World,
    private readonly fixture: ProviderFixture,
    private readonly primary: AppContext,
  ) {}

  private async send(ctx: AppContext, spec: Omit<CallAction, 'op'>): Promise<Bundle | null> {
    const extras =
      spec.extras === null
        ? null
        : toBundle(spec.extras, { vars: new Map(), nowMs: () => ctx.currentTimeMillis() });
    let client = this.clients.get(ctx);
    if (!client) {
      client =
        (await ctx.contentResolver.acquireUnstableContentProviderClient(this.fixture.authority)) ?? undefined;
      if (!client) throw new Error(`cannot acquire ${this.fixture.authority}`);
      this.clients.set(ctx, client);
    }
    try {
      return await client.call(spec.method, spec.arg, extras);
    } catch (error) {
      this.clients.delete(ctx);
      throw error;
    }
  }

  /** The reply and the app that received it (the second UID's calls run in that app's process). */
  private async call(spec: Omit<CallAction, 'op'>): Promise<Wire> {
    if (spec.caller !== 'second') return this.wire(await this.send(this.primary, spec), this.primary);
    const done = this.primary.waiter<{ reply: Bundle | null; ctx: AppContext } | { error: unknown }>(
      'second caller',
    );
    this.world.spawnIn(OTHER_AGENT, 'vector-second', async (ctx) => {
      try {
        done.wake({ reply: await this.send(ctx, spec), ctx });
      } catch (error) {
        done.wake({ error });
      }
    });
    const outcome = await done.wait();
    if ('error' in outcome) throw outcome.error;
    return this.wire(outcome.reply, outcome.ctx);
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
        this.clients.clear();
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

function describe(error: unknown): ServeError {
  if (error instanceof RequestError)
    return { code: error.code, message: error.message, ...(error.path ? { path: error.path } : {}) };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: 'call_failed', message };
}

/** Replays `actions` in a new world of `spec`; one result per action (fewer: it never finished). */
async function replay(
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

// ---- the server ----

export interface ServeOptions {
  readonly seed: string;
  readonly variant?: string;
  readonly dir: string;
}

function variantOf(id: string | undefined, path: string): Variant {
  if (id === undefined || id === 'reference') return REFERENCE;
  const mutant = mutantById(id);
  if (!mutant)
    throw new RequestError('unknown_variant', `no planted bug '${id}' (see cetp-sim mutants --help)`, path);
  return mutant.variant;
}

/** The protocol's state machine: one line in, one line out. */
export class Server {
  private session: { spec: SessionSpec; actions: Action[]; results: string[] } | null = null;
  private sessions = 0;
  private readonly defaultVariant: Variant;

  constructor(private readonly options: ServeOptions) {
    try {
      this.defaultVariant = variantOf(options.variant, '--variant');
    } catch (error) {
      throw new CliError('unknown_variant', (error as Error).message);
    }
  }

  /** The response line to one request line (never throws). */
  async handle(line: string): Promise<string> {
    let id: unknown = null;
    try {
      let request: unknown;
      try {
        request = JSON.parse(line);
      } catch (error) {
        throw new RequestError('malformed_json', `not JSON: ${(error as Error).message}`, '$');
      }
      if (typeof request !== 'object' || request === null || Array.isArray(request))
        throw new RequestError('invalid_request', 'a request is a JSON object', '$');
      const r = request as Record<string, unknown>;
      id = r.id ?? null;
      const op = r.op;
      if (typeof op !== 'string' || !(op in validators))
        throw new RequestError(
          'invalid_request',
          `unknown op ${JSON.stringify(op)}; one of ${Object.keys(validators).join(', ')}`,
          '$.op',
        );
      const validate = validators[op] as ReturnType<typeof ajv.compile>;
      if (!validate(request)) {
        const e = bestError(validate.errors ?? []);
        // A bad value in extras fails every branch of the typed-value union: name the value instead.
        const value = /^\$(?:\.call)?\.extras\.[^.[]+/.exec(e.path)?.[0];
        if (value !== undefined)
          throw new RequestError(
            'invalid_request',
            `not a typed value ({"type": T, "value": …} as in vectors/README.md): ${e.path}: ${e.message}`,
            value,
          );
        throw new RequestError('invalid_request', e.message, e.path);
      }
      const body = await this.dispatch(op, r);
      return JSON.stringify({ id, ...body });
    } catch (error) {
      const e: ServeError =
        error instanceof RequestError
          ? describe(error)
          : { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
      return JSON.stringify({ id, ok: false, error: e });
    }
  }

  private async dispatch(op: string, r: Record<string, unknown>): Promise<Result> {
    switch (op) {
      case 'hello':
        return {
          ok: true,
          protocol: SERVE_PROTOCOL,
          abilities: [...ABILITIES, 'consumer-harness'],
          value_types: VALUE_TYPES,
          fixtures: Object.fromEntries(
            REFERENCE_FIXTURES.map((f) => [f.name, { package: f.packageName, authority: f.authority }]),
          ),
          variants: ['reference', ...MUTANTS.map((m) => m.id)],
        };
      case 'open':
        return this.open(r as { fixture: string; seed?: string; fresh?: string[]; variant?: string });
      case 'close':
        this.session = null;
        return { ok: true };
      case 'consumer':
        return this.consumer(r as { vector: ConsumerVector; variant?: string });
      default:
        return this.act(r as unknown as Action);
    }
  }

  private async open(r: {
    fixture: string;
    seed?: string;
    fresh?: string[];
    variant?: string;
  }): Promise<Result> {
    const fixture = REFERENCE_FIXTURES.find((f) => f.name === r.fixture);
    if (!fixture)
      throw new RequestError(
        'unknown_fixture',
        `no fixture '${r.fixture}'; one of ${REFERENCE_FIXTURES.map((f) => f.name).join(', ')}`,
        '$.fixture',
      );
    const spec: SessionSpec = {
      fixture,
      seed: r.seed ?? `serve:${this.options.seed}:${++this.sessions}`,
      fresh: r.fresh ?? [],
      variant: r.variant !== undefined ? variantOf(r.variant, '$.variant') : this.defaultVariant,
    };
    const { callerUid, fresh } = await replay(spec, []);
    this.session = { spec, actions: [], results: [] };
    return { ok: true, caller_uid: callerUid, fresh };
  }

  private async act(action: Action): Promise<Result> {
    const session = this.session;
    if (!session)
      throw new RequestError(
        'no_session',
        `'${action.op}' needs an open session (send 'open' first)`,
        '$.op',
      );
    const { id: _id, ...clean } = action as Action & { id?: unknown };
    const actions = [...session.actions, clean as Action];
    const { results } = await replay(session.spec, actions);
    for (let i = 0; i < session.results.length; i++)
      if (JSON.stringify(results[i]) !== session.results[i])
        throw new RequestError(
          'replay_diverged',
          `replaying the session gave another result for action ${i}`,
        );
    session.actions = actions;
    const last = results[actions.length - 1];
    const result: Result = last ?? {
      ok: false,
      error: { code: 'never_answered', message: 'the vector never finished (a call was never answered)' },
    };
    session.results.push(JSON.stringify(result));
    return result;
  }

  private async consumer(r: { vector: ConsumerVector; variant?: string }): Promise<Result> {
    const variant = r.variant !== undefined ? variantOf(r.variant, '$.variant') : this.defaultVariant;
    const requests: Record<string, Actual[]> = {};
    let launches: readonly string[] = [];
    let outcome: unknown = null;
    const blob = blobReader({ dir: this.options.dir });
    await runConsumerVector(
      { ...r.vector, requests: {} },
      {
        variant,
        blob: (sha256) => {
          if (!/^[0-9a-f]{64}$/.test(sha256)) throw new RequestError('invalid_request', `bad blob ${sha256}`);
          return blob(sha256);
        },
        judge: {
          requests: (method, actuals) => {
            requests[method] = [...actuals];
            return actuals.map(() => ({ $match: 'any' }));
          },
          launches: (actual) => {
            launches = actual;
            return actual;
          },
          outcome: (actual) => {
            outcome = actual;
            return { $match: 'any' };
          },
        },
      },
    );
    return { ok: true, requests, launches, outcome };
  }
}

// ---- the command ----

export interface ServeFlags {
  readonly stdio: boolean;
  readonly seed: string;
  readonly variant?: string;
  readonly dir: string;
}

/** Serves requests from `lines` until it ends; responses go to `out`, in request order. */
export async function serveLines(server: Server, lines: AsyncIterable<string>, out: (line: string) => void) {
  for await (const line of lines) {
    if (line.trim() === '') continue;
    out(await server.handle(line));
  }
}

export async function serveCommand(io: Io, flags: ServeFlags): Promise<number> {
  if (!flags.stdio) throw new CliError('invalid_usage', 'serve needs --stdio (the only transport so far)');
  const server = new Server({
    seed: flags.seed,
    dir: flags.dir,
    ...(flags.variant !== undefined ? { variant: flags.variant } : {}),
  });
  const input = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  await serveLines(server, input, (line) => io.out(line));
  return EXIT_OK;
}

const SERVE_HELP = `
Serves the simulated device (the reference apps, or one planted-bug variant) over JSON lines on
stdin/stdout, for vector runners in other languages (runners/java). One request per line, one
response per line, in order; every response echoes the request's "id".

Requests ("op"):
  hello                                   protocol, abilities, value types, fixtures, variants
  open {fixture, seed?, fresh?, variant?} a fresh device for one vector; answers caller_uid and a
                                          UUID for each name in fresh (seed default: serve:SEED:N)
  call {method, arg, extras, caller?}     ContentProviderClient.call; answers the typed reply
  parallel {count, call}                  count identical calls at once; answers the replies
  user {answer, handle}                   launch a reply's PendingIntent, the user answers
                                          approve | deny | back | never
  kill                                    kill the provider's process
  advance-clock {ms}                      let ms of device time pass
  read-fd {handle}                        read a reply's file descriptor: size and base64
  consumer {vector, variant?}             run a consumer vector's task against the scripted
                                          provider; answers the requests, launches and outcome
  close                                   end the session
Values use the vectors' typed encoding (vectors/README.md). A malformed line or request gets
{"ok": false, "error": {"code", "message", "path"}} and the server keeps serving.
The same requests with the same --seed give the same responses, byte for byte.
Exit codes: 0 stdin ended, 2 bad usage.`;

/** `cetp-sim serve` (the one registration main.ts makes). */
export function registerServeCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('the simulated device behind a JSON-lines protocol (for device-side vector runners)')
    .addOption(new Option('--stdio', 'serve on stdin/stdout').default(false))
    .addOption(new Option('--seed <seed>', 'seed of sessions opened without their own').default('0'))
    .addOption(new Option('--variant <id>', "a planted bug's id (cetp-sim mutants): serve that variant"))
    .addOption(
      new Option('--dir <dir>', 'the corpus folder (blobs for consumer vectors)').default(
        DEFAULT_VECTORS_DIR,
      ),
    )
    .addHelpText('after', SERVE_HELP)
    .action(async (opts: ServeFlags) => {
      setExit(await serveCommand(io, opts));
    });
}
