/**
 * `cetp-sim serve --stdio`: the simulated device behind a JSON-lines protocol, for runners written
 * in other languages (runners/java's SimTransport). One request per line on stdin, one response
 * per line on stdout, in order. Values travel in the vectors' typed encoding (format.ts): a runner
 * sends `SendValue`s (variables already resolved, except `now_plus_ms`, which the device's clock
 * resolves) and gets replies as tagged values; a PendingIntent or a file descriptor in a reply
 * carries an opaque `handle` that a later `user` or `read-fd` request names.
 *
 * A session (`open`) is one vector's device: a fresh simulated world with the provider fixture and
 * two agent apps, seeded by the session's seed. The session's world keeps running between requests
 * (serve-session.ts LiveSession): its driver runs each action as it comes and waits for the next,
 * so a request costs the same whatever came before, and each action runs exactly as
 * src/vectors/engine.ts runs the step, so a runner driving this protocol sees what `vectors run`
 * sees. Malformed input gets one error line naming the field; the process keeps serving.
 *
 * The requests (types, schemas, errors) are in serve-requests.ts, the replayed session in
 * serve-session.ts; this module is the protocol's state machine and the command.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { Option } from 'commander';
import { MUTANTS, mutantById } from '../../fuzz/mutants.ts';
import { REFERENCE, type Variant } from '../../fuzz/scenario/model.ts';
import { CliError, EXIT_OK } from '../../harness/errors.ts';
import { type AndroidRelease, DEFAULT_ANDROID } from '../../sim/core/release.ts';
import { runConsumerVector } from '../../vectors/consumer-engine.ts';
import type { ConsumerVector } from '../../vectors/consumer-format.ts';
import { bestError, blobReader } from '../../vectors/corpus.ts';
import { REFERENCE_FIXTURES } from '../../vectors/fixtures.ts';
import { ABILITIES } from '../../vectors/format.ts';
import type { Actual } from '../../vectors/typed.ts';
import { androidFlag } from '../args.ts';
import type { Io } from '../io.ts';
import {
  type Action,
  describe,
  REQUEST_SCHEMAS,
  RequestError,
  type Result,
  requestValidator,
  type ServeError,
} from './serve-requests.ts';
import { LiveSession, type SessionSpec } from './serve-session.ts';
import { DEFAULT_VECTORS_DIR } from './vectors.ts';

export const SERVE_PROTOCOL = 'cetp-sim-serve/1';

/** The Java types the simulated Bundle holds (typed.ts); a runner skips a vector sending others. */
const VALUE_TYPES = ['int', 'long', 'boolean', 'string', 'int[]', 'bundle', 'null'] as const;

// ---- the server ----

export interface ServeOptions {
  readonly seed: string;
  readonly variant?: string;
  /** The Android release profile of every session's world (`--android`; absent: the default). */
  readonly android?: AndroidRelease;
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
  private session: LiveSession | null = null;
  private sessions = 0;
  private readonly defaultVariant: Variant;

  constructor(private readonly options: ServeOptions) {
    try {
      this.defaultVariant = this.onProfile(variantOf(options.variant, '--variant'));
    } catch (error) {
      throw new CliError('unknown_variant', (error as Error).message);
    }
  }

  /** `variant` on the server's release profile (`--android`). */
  private onProfile(variant: Variant): Variant {
    const android = this.options.android;
    return android === undefined ? variant : { ...variant, android };
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
      const validate = typeof op === 'string' ? requestValidator(op) : undefined;
      if (validate === undefined)
        throw new RequestError(
          'invalid_request',
          `unknown op ${JSON.stringify(op)}; one of ${Object.keys(REQUEST_SCHEMAS).join(', ')}`,
          '$.op',
        );
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
      const body = await this.dispatch(op as string, r);
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
          android: this.options.android ?? DEFAULT_ANDROID,
        };
      case 'open':
        return this.open(r as { fixture: string; seed?: string; fresh?: string[]; variant?: string });
      case 'close':
        this.close();
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
      variant:
        r.variant !== undefined ? this.onProfile(variantOf(r.variant, '$.variant')) : this.defaultVariant,
    };
    this.close();
    const session = await LiveSession.open(spec);
    this.session = session;
    return { ok: true, caller_uid: session.callerUid, fresh: session.fresh };
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
    return session.act(clean as Action);
  }

  /** Ends the open session, if any (its world runs out). */
  close(): void {
    this.session?.close();
    this.session = null;
  }

  private async consumer(r: { vector: ConsumerVector; variant?: string }): Promise<Result> {
    const variant =
      r.variant !== undefined ? this.onProfile(variantOf(r.variant, '$.variant')) : this.defaultVariant;
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
  readonly android?: AndroidRelease;
}

/** Serves requests from `lines` until it ends; responses go to `out`, in request order. */
export async function serveLines(server: Server, lines: AsyncIterable<string>, out: (line: string) => void) {
  for await (const line of lines) {
    if (line.trim() === '') continue;
    out(await server.handle(line));
  }
  server.close();
}

export async function serveCommand(io: Io, flags: ServeFlags): Promise<number> {
  if (!flags.stdio) throw new CliError('invalid_usage', 'serve needs --stdio (the only transport so far)');
  const server = new Server({
    seed: flags.seed,
    dir: flags.dir,
    ...(flags.variant !== undefined ? { variant: flags.variant } : {}),
    ...(flags.android !== undefined ? { android: flags.android } : {}),
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
  kill {process?}                         kill the app's main process (process: main, the default)
                                          or its provider's (provider: <pkg>:name if android:process)
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
    .addOption(androidFlag("of the sessions' worlds"))
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
