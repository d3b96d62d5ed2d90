/**
 * The requests of `cetp-sim serve` (serve.ts): their actions as types, the JSON Schema each op is
 * validated against (send values use the vector format's own definition), and the structured error
 * a bad request or a failed action answers with.
 */
import { caches } from '../../base/caches.ts';
import { Ajv2020, type ValidateFunction } from '../../protocol/schemas/ajv.ts';
import { KILL_TARGETS, type KillTarget, type SendValue } from '../../vectors/format.ts';
import { CONSUMER_FILE_SCHEMA, VECTOR_FILE_SCHEMA } from '../../vectors/schemas.ts';

export type Caller = 'primary' | 'second';
export interface CallAction {
  readonly op: 'call';
  readonly caller?: Caller;
  readonly method: string;
  readonly arg: string | null;
  readonly extras: Readonly<Record<string, SendValue>> | null;
}
export type Action =
  | CallAction
  | { readonly op: 'parallel'; readonly count: number; readonly call: Omit<CallAction, 'op'> }
  | { readonly op: 'user'; readonly answer: 'approve' | 'deny' | 'back' | 'never'; readonly handle: string }
  | { readonly op: 'kill'; readonly process?: KillTarget }
  | { readonly op: 'advance-clock'; readonly ms: number }
  | { readonly op: 'read-fd'; readonly handle: string };

export type Result =
  | { readonly ok: true; readonly [k: string]: unknown }
  | { readonly ok: false; readonly error: ServeError };

export interface ServeError {
  readonly code: string;
  readonly message: string;
  readonly path?: string;
}

export class RequestError extends Error {
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
export const REQUEST_SCHEMAS: Readonly<Record<string, object>> = {
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
  kill: closed('kill', { process: { enum: [...KILL_TARGETS] } }, []),
  'advance-clock': closed('advance-clock', { ms: { type: 'integer', minimum: 0, maximum: 31_536_000_000 } }, [
    'ms',
  ]),
  'read-fd': closed('read-fd', { handle: NAME }, ['handle']),
  consumer: closed('consumer', { vector: { $ref: '#/$defs/consumerVector' }, variant: NAME }, ['vector']),
  close: closed('close', {}, []),
};

/** Compiled on first use, not at import: every command of the CLI loads this module (~0.7 s of CPU). */
const validators = caches.lazy('cli/serve: request validators', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return new Map<string, ValidateFunction>(
    Object.entries(REQUEST_SCHEMAS).map(([op, schema]) => [
      op,
      ajv.compile({ ...schema, $defs: { ...VECTOR_FILE_SCHEMA.$defs, ...CONSUMER_FILE_SCHEMA.$defs } }),
    ]),
  );
});

/** The validator of request `op`, or undefined for an unknown op. */
export function requestValidator(op: string): ValidateFunction | undefined {
  return Object.hasOwn(REQUEST_SCHEMAS, op) ? validators.get().get(op) : undefined;
}

export function describe(error: unknown): ServeError {
  if (error instanceof RequestError)
    return { code: error.code, message: error.message, ...(error.path ? { path: error.path } : {}) };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: 'call_failed', message };
}
