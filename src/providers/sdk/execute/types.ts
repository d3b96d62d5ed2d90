/**
 * The shared types of the provider pipeline, in one module: what a provider process holds
 * (`Runtime`), what one execute_tool call carries from step to step (`Execution`), what a step
 * returns (`Next`), and the named, substitutable parts of the reference provider (`Parts`).
 *
 * A planted bug (planted.ts) is a function from `Parts` to `Parts` that replaces or wraps one named
 * part from outside; the reference parts contain no bug branches. This module imports types only.
 */

import type { JsonObject, JsonValue } from '../../../base/json.ts';
import type { ExecuteToolRequest, Received, RequestKey } from '../../../protocol/index.ts';
import type { AppContext } from '../../../sim/app/context.ts';
import type { Bundle } from '../../../sim/binder/bundle.ts';
import type { Task } from '../../../sim/core/scheduler.ts';
import type { ParcelFileDescriptor } from '../../../sim/fd/fd.ts';
import type { StoreTransaction } from '../../../sim/storage/storage.ts';
import type { PendingIntent } from '../../../sim/ui/pending-intent.ts';
import type { Catalogue, CompiledTool } from '../catalogue.ts';
import type { TokenBinding, TokenCheck } from '../confirmations.ts';
import type { Gates } from '../gates.ts';
import type { ConfirmationRecord, OperationIndex, RequestRecord } from '../records.ts';
import type { ErrorInit } from '../responses.ts';
import type { Session, SessionTable } from '../sessions.ts';
import type {
  AccessDecision,
  AuthorizationRequest,
  CallerIdentity,
  CetpProviderDescriptor,
  MutationExecutor,
  MutationTool,
  ProviderOptions,
  ToolCall,
} from '../types.ts';

/**
 * What one running provider process holds: its context, validated catalogue, options, gates and
 * parts, in-memory sessions, the app's authorization policy and mutation executor, per-UID
 * in-flight counts and running operation workers. Passed explicitly to each step.
 */
export interface Runtime {
  readonly context: AppContext;
  readonly descriptor: CetpProviderDescriptor;
  readonly catalogue: Catalogue;
  readonly options: ProviderOptions;
  /** Rule ablation: which enforcement points are on (gates.ts). */
  readonly gates: Gates;
  /** The provider's named parts: the reference ones, or some substituted by planted bugs. */
  readonly parts: Parts;
  readonly sessions: SessionTable;
  readonly executor: MutationExecutor | null;
  authorize(request: AuthorizationRequest): Promise<AccessDecision>;
  /** In-flight execute_tool calls per calling UID (for max_concurrent_requests). */
  readonly inFlight: Map<number, number>;
  readonly workers: Map<string, Task>;
  /** Operations the planted bug "operations-in-memory" keeps out of the store. */
  readonly memoryOperations: Map<string, JsonObject>;
}

/** An execute_tool request as the provider received it (with its RequestKey). */
export type ToolRequest = Received<ExecuteToolRequest>;

/**
 * Everything one execute_tool call carries through the steps. Steps fill it in order: `tool`
 * sets `compiled`; `args` sets `call` and `digest`; `key` sets `key`; `dedup` sets `pending`; the
 * `confirmation` step sets `confirmation`; `effect` sets `value` (or answers).
 */
export interface Execution {
  readonly rt: Runtime;
  readonly caller: CallerIdentity;
  readonly session: Session;
  readonly req: ToolRequest;
  /** The raw request Bundle: read only by planted bugs that trust what a consumer sent. */
  readonly extras: Bundle;
  /** The tool called (null until the `tool` step found it; see `toolOf`). */
  readonly compiled: CompiledTool | null;
  /** What tool code is handed (its args are null until the `args` step). */
  readonly call: ToolCall;
  /** The args digest the request record and resume tokens bind (6-03, 4.3-14; '' until `args`). */
  readonly digest: string;
  /** The dedup key of the request record (6-02): calling UID, provider_id, RequestKey ('' until `key`). */
  readonly key: string;
  /** This request's own record, reserved pending its confirmation (found by `dedup`). */
  readonly pending: RequestRecord | null;
  /** The approved confirmation the effect consumes (set by `confirmation`). */
  readonly confirmation: ConfirmationRecord | null;
  /** The tool's result, once `effect` produced it. */
  readonly value: ResultValue | null;
}

/** A result the `result` step renders: committed for a write (its record holds it), not for a read. */
export interface ResultValue {
  readonly value: JsonValue;
  readonly committed: boolean;
}

/**
 * What a step returns: carry on with what it learned (at the next step, or at a later one named by
 * `skipTo`), or the answer to send.
 */
export type Next = { readonly go: Execution; readonly skipTo?: StepName } | { readonly answer: Bundle };

export type Step = (ex: Execution) => Next | Promise<Next>;

/** The execute_tool steps after envelope, session and admission (provider.ts), in order. */
export const STEP_NAMES = [
  'tool',
  'args',
  'key',
  'scopes',
  'grant',
  'dedup',
  'deadline',
  'confirmation',
  'effect',
  'result',
] as const;

export type StepName = (typeof STEP_NAMES)[number];

export type Steps = { readonly [N in StepName]: Step };

/**
 * The named parts of the reference provider a planted bug may replace or wrap. Each is the one place
 * its decision is made; the reference pipeline calls them through `rt.parts`.
 */
export interface Parts {
  /** The execute_tool steps, by name (run in STEP_NAMES order). */
  readonly steps: Steps;
  /** Binder entry: reads the calling UID before anything else and dispatches (7.1-01). */
  readonly enter: (context: AppContext, dispatch: (uid: number) => Promise<Bundle>) => Promise<Bundle>;
  /** The request record's dedup key (6-02). */
  readonly recordKey: (uid: number, providerId: string, requestKey: RequestKey) => string;
  /** Whether `record` is this very request: same tool and args (6-03, 6-04). */
  readonly sameRequest: (ex: Execution, record: RequestRecord) => boolean;
  /** The record as the dedup lookup sees it (a record is kept for the idempotency window, 6-05). */
  readonly live: (ex: Execution, record: RequestRecord | undefined) => RequestRecord | undefined;
  /** Inside the effect's transaction: the record another call made first, if any (6-06, 10-06). */
  readonly recheck: (ex: Execution, tx: StoreTransaction) => Promise<RequestRecord | undefined>;
  /** Finds and checks a resume token against what the call presents (4.3-04 … 4.3-14). */
  readonly checkResumeToken: (
    tx: StoreTransaction,
    token: string,
    binding: TokenBinding,
    gates: Gates,
    allowConsumed?: boolean,
  ) => Promise<TokenCheck>;
  /** A resume token sent with a write that has no request record: INVALID_REQUEST (4.3-03). */
  readonly strayResume: (ex: Execution) => Promise<Next>;
  /** Whether a resume's confirmation lets the effect run (4.3-08). */
  readonly approves: (confirmation: ConfirmationRecord) => boolean;
  /** Whether this fresh write needs the user's confirmation (4.3-08, 3.4-09, 3.4-12). */
  readonly needsConfirmation: (ex: Execution, tool: MutationTool) => boolean;
  /** The resolution PendingIntent of a confirmation (4.3-02, 7.2-04). */
  readonly resolutionIntent: (context: AppContext, record: ConfirmationRecord) => PendingIntent | null;
  /** The answer to an exception in app code (5-24, 5-25). */
  readonly internalError: (
    ex: { readonly rt: Runtime; readonly requestId: string },
    error: unknown,
  ) => Bundle;
  /** Makes an accepted operation durable with its request record (4.4-16). */
  readonly storeOperation: (
    rt: Runtime,
    tx: StoreTransaction,
    operationId: string,
    record: RequestRecord,
    index: OperationIndex,
  ) => Promise<void>;
  /** Whether `caller` owns the operation (4.4-12, 4.4-13). */
  readonly ownsOperation: (rt: Runtime, index: OperationIndex, caller: CallerIdentity) => boolean;
  /** cancel_operation on a terminal operation: 'conflict' (4.4-21). */
  readonly cancelFinished: (
    tx: StoreTransaction,
    key: string,
    record: RequestRecord,
  ) => Promise<'requested' | 'conflict'>;
  /** Whether a session may be used by `uid` (2.2-09). */
  readonly sessionOwnedBy: (gates: Gates, session: Session, uid: number) => boolean;
  /** The tools a v1 caller may see and run (2.1-06, 8-10). */
  readonly v1Tools: (rt: Runtime) => CompiledTool[];
  /** Releases the provider's own copy of a file result's fd once the reply is sent (4.5-09). */
  readonly releaseResultFd: (context: AppContext, fd: ParcelFileDescriptor, path: string) => void;
  /** What RATE_LIMITED carries besides the code (5-17, 5-27). */
  readonly rateLimited: () => ErrorInit;
}
