/**
 * Your own oracles, as the public API names them: invariants over an app's storage and a run's
 * history, and a model of what its tools do (fast-check's model-based style). A ProviderFixture
 * carries them (`invariants`, `model`); every run of every property checks them, beside cetp-sim's
 * own oracles, as `invariant:<id>` and `model:<fixture name>` (src/check/user-oracles.ts). What they
 * see is plain data read from the world's record after the run — never the app's memory.
 */
import type { JsonValue } from '../base/json.ts';

/** One table of the app's durable store: key → value, as committed (values are frozen JSON). */
export type StoredTable = Readonly<Record<string, JsonValue>>;

/**
 * The app's durable storage at the end of a run (src/sim/storage/storage.ts DurableStore): table → key →
 * value. Only the app's own tables: the provider SDK's bookkeeping tables (names starting with
 * `cetp.` — request records, operations, confirmations, resume tokens, grants) are left out. A table
 * appears once the run wrote to it (it may then be empty); one never written is absent, so read it
 * as `state.notes ?? {}`. SharedPreferences are not part of it.
 */
export type AppState = Readonly<Record<string, StoredTable>>;

/**
 * How a request ended, as the provider answered it (whether or not the answer reached the caller):
 * - `succeeded`: a call was answered success, or accepted and its operation seen succeeding;
 *   `result` is the result data (for a file result, the JSON written behind its descriptor; null
 *   when those bytes are not known whole or are not JSON);
 * - `error`: every call was answered with an error (or its operation failed), and the world recorded
 *   no business effect for it: the last such code;
 * - `cancelled`: its operation was seen cancelled;
 * - `unknown`: it may have taken effect, but no success was seen: a call got no answer (the provider
 *   died first), an accepted operation was never seen ending, or an effect was recorded anyway.
 */
export type RequestOutcome =
  | { readonly kind: 'succeeded'; readonly result: JsonValue | null }
  | { readonly kind: 'error'; readonly code: string; readonly retryable: boolean | null }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'unknown' };

/** One execute_tool call of a request (a retry sends the same request_id again). */
export interface HistoryCall {
  /** The call's id in the world's record (World.contentCalls), as violations cite calls. */
  readonly callId: number;
  readonly step: number;
  /** Virtual time the call was made, ms since the epoch. */
  readonly t: number;
  /**
   * What the provider answered: `success`, `accepted`, `error:CODE`, `exception:Name` (e.g. the
   * process died), `null` or `none` (no answer at all).
   */
  readonly answer: string;
  /** Whether that answer reached the caller (false: the reply was lost on the way back). */
  readonly delivered: boolean;
}

/** One execute_tool request: every call that carried its (caller UID, request_id), in order. */
export interface RequestHistory {
  /** The request_id, normalised to lower case. */
  readonly requestId: string;
  readonly callerUid: number;
  /** The calling package (the first call's). */
  readonly callerPackage: string;
  readonly tool: string;
  /** The args as sent, parsed; undefined when they were not JSON. */
  readonly args: JsonValue | undefined;
  readonly calls: readonly HistoryCall[];
  readonly outcome: RequestOutcome;
  /**
   * Which install of the provider it was sent to: 0 until the package's first wipe (uninstall,
   * reinstall, re-sign under another key), one more after each. The same request_id sent after a
   * wipe is a new request.
   */
  readonly incarnation: number;
  /** Business effects the world recorded for it (declared through AppContext.declareEffect and committed). */
  readonly effects: number;
}

/** A provider process death or a wipe of its data, from the world's trace. */
export interface LifecycleEvent {
  readonly kind: 'restart' | 'wipe';
  readonly step: number;
  /** Its trace event. */
  readonly seq: number;
}

/** A run's history as plain data: the app's requests and its lifecycle, in order. */
export interface RunHistory {
  /** The package the history is of (the fixture's). */
  readonly packageName: string;
  /** Every execute_tool request to the app, in the order of their first call. */
  readonly requests: readonly RequestHistory[];
  /** Deaths of the app's process (`restart`) and wipes of its data (`wipe`), in order. */
  readonly lifecycle: readonly LifecycleEvent[];
  /** How many wipes the run made: `requests` with this `incarnation` are the ones the end state saw. */
  readonly incarnations: number;
}

/**
 * What an invariant's check returns. Holding: nothing, `true`, or an empty array. Violated: `false`,
 * a message, or a non-empty array of messages. Throwing an assertion (node:assert, vitest/chai
 * `expect`: errors named AssertionError) is a violation with its message; any other error thrown is
 * reported as the invariant's own crash (class `crash`), with its message — never the campaign's.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a check that returns nothing (a void function) holds
export type InvariantResult = void | undefined | boolean | string | readonly string[];

/**
 * A property of your app that must hold at the end of every run, whatever the faults: checked after
 * every run of every property as the oracle `invariant:<id>`, shrunk and replayed like cetp-sim's.
 */
export interface Invariant {
  /** Unique among the campaign's invariants: letters, digits, `_`, `-`, `.` (≤ 64). */
  readonly id: string;
  /** What it states, in words (shown with a violation). */
  readonly description?: string;
  /** Spec rule ids it guards (optional; must be ids of spec/rules.json). */
  readonly ruleIds?: readonly string[];
  check(state: AppState, history: RunHistory): InvariantResult;
}

/** What a model's tool step sees of one request that took effect. */
export interface ModelRequest {
  readonly tool: string;
  readonly requestId: string;
  readonly callerUid: number;
  /** The args as sent, parsed (undefined: not JSON). */
  readonly args: JsonValue | undefined;
  /**
   * The request's result: from its answer (delivered or lost), its operation, or — when no answer was
   * ever seen — the provider SDK's request record. Use it for ids the app generated. A file result is
   * the JSON written behind its descriptor, null when those bytes are not known whole or not JSON.
   * (When none of these has it the run is not judged: see `ToolModel`.)
   */
  readonly result: JsonValue;
}

/** One tool's step: the model after the request (return it, or change `model` in place and return nothing). */
export type ModelStep<M> = {
  // A method's parameters are bivariant: a ToolModel<Notes> is a ToolModel<unknown>.
  // biome-ignore lint/suspicious/noConfusingVoidType: a step that changes the model in place returns nothing
  step(model: M, request: ModelRequest): M | undefined | void;
}['step'];

/**
 * A model of what the app's tools do to its storage (fast-check's model-based style). After a run,
 * each request that took effect — once, however many times it was sent or retried, in the order the
 * world committed its effects (declared business effects; a request with none counts from its
 * success) and only since the app's last wipe — is applied to `initial()` by its tool's step; the
 * result must equal `fromStorage(end state)`: `equals`, or deep equality of plain values (Maps and
 * Sets compare as their entries). A mismatch is the violation `model:<fixture name>` naming the first
 * differing part. Tools without a step are taken to change nothing the model holds. A run in which
 * an applied request's result is unknown is not judged (its ids cannot be matched).
 */
export interface ToolModel<M> {
  initial(): M;
  readonly tools: Readonly<Record<string, ModelStep<M>>>;
  fromStorage(state: AppState): M;
  equals?(expected: M, actual: M): boolean;
  /** Spec rule ids it guards (optional; must be ids of spec/rules.json). */
  readonly ruleIds?: readonly string[];
}
