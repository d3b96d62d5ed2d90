/**
 * The provider SDK's public shapes: what a provider app supplies to CetpV2ContentProvider (spec §10)
 * — its descriptor and scope catalogue (§3.1, §3.2), its tools with annotations (§3.4), an
 * authorization policy (default deny, 10-01) and a mutation executor (10-06) — and what the SDK
 * hands back to app code: the caller's identity (§7.1) and per-call tool context.
 */

import type { JsonObject, JsonValue } from '../../base/json.ts';
import type {
  Capability,
  Confirmation,
  Effect,
  ErrorCode,
  Execution,
  RequestKey,
  Risk,
  ScopeAccess,
  Sensitivity,
} from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';

export interface ProviderScope {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly access: ScopeAccess;
  readonly sensitivity: Sensitivity;
}

export interface CetpProviderDescriptor {
  /** Stable; the package name or under it (3.1-01, 3.1-02). */
  readonly providerId: string;
  readonly providerName: string;
  readonly description: string;
  readonly scopes: readonly ProviderScope[];
}

export interface ToolAnnotations {
  readonly effect: Effect;
  readonly risk: Risk;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
  readonly confirmation: Confirmation;
  readonly execution: Execution;
}

/** Who is calling, captured at call() entry (7.1-01) and resolved through PackageManager (7.1-03). */
export interface CallerIdentity {
  readonly uid: number;
  /** Every package of the UID visible to the provider (several for a shared UID). */
  readonly packages: readonly string[];
  /** Current signing-certificate SHA-256 of each package, by package. */
  readonly certDigests: Readonly<Record<string, readonly string[]>>;
}

/** What a confirmation screen must show for a high-risk call (7.2-06). */
export interface ConfirmationText {
  /** The concrete object acted on, e.g. "Alert ALRT-7 on AAPL". */
  readonly object: string;
  /** The action, e.g. "Delete the alert". */
  readonly action: string;
  /** Key parameters, as label/value pairs. */
  readonly parameters: readonly (readonly [string, string])[];
  /** What cannot be undone, or null when the action is reversible. */
  readonly irreversible: string | null;
}

/** A failure the tool reports on purpose (a business outcome), never an exception's text. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
  constructor(
    readonly code: Extract<ErrorCode, 'CONFLICT' | 'INVALID_ARGS' | 'PERMISSION_DENIED' | 'UNAVAILABLE'>,
    /** User-safe text: it is sent to the consumer as error_message. */
    readonly safeMessage: string,
    readonly details?: JsonObject,
  ) {
    super(safeMessage);
  }
}

/** Per-call context handed to tool code. */
export interface ToolCall {
  readonly caller: CallerIdentity;
  /** The request_id as sent. */
  readonly requestId: string;
  /** The request_id normalised (lower case): what dedup keys and effect notes use. */
  readonly requestKey: RequestKey;
  readonly args: JsonValue;
  readonly context: AppContext;
}

/** Progress reporting and cooperative cancellation for long-running (async) work. */
export interface WorkControl {
  /** Persists progress (4.4-08) and returns true when cancellation was requested (4.4-19). */
  progress(current: number, total: number, message?: string): Promise<boolean>;
}

interface ToolBase {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject;
  /** The complete set of scopes needed (3.4-14). */
  readonly scopes: readonly string[];
  readonly annotations: ToolAnnotations;
  /**
   * list_tools visibility for this caller (7.2-01, 7.2-02); hidden tools are TOOL_NOT_FOUND (or, under
   * the provider reading `hiddenTool: 'scope_error'`, a scope error: NOTES 14). May read the app's
   * state (a scope grant) through `context`, hence async.
   */
  isVisibleTo?(caller: CallerIdentity, context: AppContext): boolean | Promise<boolean>;
  /** Business validation beyond the schema (7.3-04, 10-10): user-safe problems, empty when fine. */
  validate?(call: ToolCall): string[] | Promise<string[]>;
}

export interface ReadTool extends ToolBase {
  readonly annotations: ToolAnnotations & { readonly effect: 'read' };
  /** Computes the result; must not change business state (3.4-08). */
  read(call: ToolCall): Promise<JsonValue>;
}

export interface MutationTool extends ToolBase {
  /**
   * For confirmation = provider_policy: does this call need the user's confirmation? Also the hook
   * for runtime risk above the static declaration (3.4-12, 3.4-13).
   */
  needsConfirmation?(call: ToolCall): boolean;
  /** What the confirmation screen shows (7.2-06). */
  describeForConfirmation(call: ToolCall): ConfirmationText | Promise<ConfirmationText>;
  /**
   * Optional long-running part before the commit point, run by an async operation's worker: it may
   * report progress and must stop when cancellation is requested. Whatever it returns is handed to
   * `mutate`. Nothing it does may be a business effect.
   */
  prepare?(call: ToolCall, work: WorkControl): Promise<JsonValue>;
  /** The business change, inside the mutation executor's atomic boundary (10-06). */
  mutate(call: ToolCall, tx: StoreTransaction, prepared: JsonValue): Promise<JsonValue>;
}

export type ProviderTool = ReadTool | MutationTool;

export function isReadTool(tool: ProviderTool): tool is ReadTool {
  return tool.annotations.effect === 'read';
}

/** The decision of the app's authorization policy for one call (7.1-06, 3.4-15). */
export type AccessDecision =
  | { readonly kind: 'allow' }
  /** The user can fix it (login, scope grant): AUTH_REQUIRED with a resolution. */
  | { readonly kind: 'needs_grant'; readonly scopes: readonly string[] }
  /** Never for this caller: PERMISSION_DENIED. */
  | { readonly kind: 'deny'; readonly reason: string };

export interface AuthorizationRequest {
  readonly caller: CallerIdentity;
  readonly tool: ProviderTool;
  /** The tool's complete scope set (3.4-14). */
  readonly scopes: readonly string[];
  readonly context: AppContext;
}

/** The atomic boundary the app supplies (10-06): reservation, business change and result together. */
export interface MutationExecutor {
  atomically<T>(label: string, body: (tx: StoreTransaction) => Promise<T>): Promise<T>;
}

/** The reference executor: one transaction of the app's durable store. */
export function durableMutationExecutor(context: AppContext): MutationExecutor {
  return {
    atomically(label, body) {
      return context.storage.transaction(label, body);
    },
  };
}

export interface ProviderLimits {
  readonly maxRequestBytes: number;
  readonly maxInlineResultBytes: number;
  readonly maxConcurrentRequests: number;
  readonly idempotencyWindowSeconds: number;
}

/** Readings of the spec that are both defensible (spec/interpretations.md). */
export interface ProviderVariants {
  /** NOTES 6: hash args as exact bytes (default) or RFC 8785 canonical JSON. */
  readonly argsDigest: 'bytes' | 'jcs';
  /** NOTES 8a: a token of another UID is NEGOTIATION_REQUIRED (default) or INVALID_REQUEST. */
  readonly sessionMisuse: 'negotiation_required' | 'invalid_request';
  /** NOTES 2: a consumed resume token re-sent by its request replays the record (default) or is refused. */
  readonly consumedToken: 'replay' | 'refuse';
  /** NOTES 5: the deadline is checked after the record lookup (default) or before anything. */
  readonly deadlineCheck: 'after_lookup' | 'first';
  /** NOTES 10a: cancel of a finished operation is CONFLICT (default) or success that changes nothing. */
  readonly cancelFinished: 'conflict' | 'accept';
  /** NOTES 10c: a replay of a cancelled operation's request is CANCELLED (default) or `accepted`. */
  readonly cancelledReplay: 'cancelled_error' | 'accepted';
  /** NOTES 11: the idempotency window starts at the terminal state (default) or at first receipt. */
  readonly windowStart: 'terminal' | 'receipt';
  /**
   * NOTES 11 (proposed, not a reading of today's text: `cetp-sim propose` only): after the window a
   * same-id request is RESULT_EXPIRED (default) or, its record dropped, executed again.
   */
  readonly afterWindow: 'result_expired' | 're_execute';
  /** NOTES 16: a resume with an expired token asks again (default) or is INVALID_REQUEST. */
  readonly expiredToken: 'new_confirmation' | 'invalid_request';
  /** NOTES 14: a call of a tool hidden from the caller is TOOL_NOT_FOUND (default) or a scope error. */
  readonly hiddenTool: 'not_found' | 'scope_error';
}

export interface ProviderOptions {
  /** Major versions served: [2] (v2-only) or [1, 2] (dual stack). */
  readonly versions: readonly number[];
  readonly capabilities: readonly Capability[];
  readonly limits: ProviderLimits;
  readonly sessionTtlMs: number;
  readonly resumeTokenTtlMs: number;
  readonly pollAfterMs: number;
  readonly variants: ProviderVariants;
  /** Enforcement points switched off by rule id (rule ablation). */
  readonly disabledRules: ReadonlySet<string>;
  /** Planted bugs switched on by id (the fuzzer's mutants, planted.ts); empty in the reference provider. */
  readonly plantedBugs: ReadonlySet<string>;
}

export const DEFAULT_PROVIDER_OPTIONS: ProviderOptions = {
  versions: [1, 2],
  capabilities: ['async_operations', 'cancellation', 'large_results'],
  limits: {
    maxRequestBytes: 65_536,
    maxInlineResultBytes: 262_144,
    maxConcurrentRequests: 4,
    idempotencyWindowSeconds: 86_400,
  },
  sessionTtlMs: 3_600_000,
  resumeTokenTtlMs: 600_000,
  pollAfterMs: 1_000,
  variants: {
    argsDigest: 'bytes',
    sessionMisuse: 'negotiation_required',
    consumedToken: 'replay',
    deadlineCheck: 'after_lookup',
    cancelFinished: 'conflict',
    cancelledReplay: 'cancelled_error',
    windowStart: 'terminal',
    afterWindow: 'result_expired',
    expiredToken: 'new_confirmation',
    hiddenTool: 'not_found',
  },
  disabledRules: new Set(),
  plantedBugs: new Set(),
};
