/**
 * The provider's durable records (spec §6, §4.3, §4.4; spec/interpretations.md "request state
 * machine"). One request record per (calling UID, provider_id, request_id) of an effect tool,
 * bound to the tool name and the args digest (6-02, 6-03), moving from pending_confirmation or
 * queued/running to a terminal state; an operation index (operation_id → request); confirmation
 * records behind resume tokens. All of it lives in the app's durable store, so it survives a
 * process restart (4.4-16, 4.4-17) and is written inside the mutation executor's transactions.
 */
import type { JsonObject, JsonValue } from '../../base/json.ts';
import { type RequestKey, TERMINAL_OPERATION_STATES } from '../../protocol/index.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import type { ConfirmationText } from './types.ts';

/**
 * `{ ...record, ...changes }`, built with Object.assign (same keys, same order). On Node 20 V8 takes
 * a slow runtime path — about a microsecond — for an object spread followed by more properties, and
 * records are rewritten at every state change.
 */
export function withChanges<T extends object>(record: T, changes: Partial<T>): T {
  return Object.assign({}, record, changes);
}

export const REQUESTS = 'cetp.requests';
export const OPERATIONS = 'cetp.operations';
export const CONFIRMATIONS = 'cetp.confirmations';
export const TOKENS = 'cetp.resume_tokens';
export const GRANTS = 'cetp.grants';

export type RequestState =
  | 'pending_confirmation'
  | 'queued'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'user_cancelled';

/** A request's terminal states: an operation's (the protocol's), and the user's cancel before one began. */
export const TERMINAL_REQUEST_STATES: readonly RequestState[] = [
  ...TERMINAL_OPERATION_STATES,
  'user_cancelled',
];

export function isTerminal(state: RequestState): boolean {
  return TERMINAL_REQUEST_STATES.includes(state);
}

export interface RecordedError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: JsonObject;
}

export interface RequestRecord {
  readonly uid: number;
  readonly requestId: string;
  readonly tool: string;
  readonly argsDigest: string;
  state: RequestState;
  readonly createdAtMs: number;
  terminalAtMs: number | null;
  confirmationId: string | null;
  operationId: string | null;
  /** The exact args, kept for async workers (which run after the call returned). */
  args: string | null;
  /** The caller's packages and certificates at acceptance, for async workers. */
  callerPackages: string[] | null;
  result: JsonValue | null;
  error: RecordedError | null;
  progress: { current: number; total: number; message?: string } | null;
  cancelRequested: boolean;
}

export interface OperationIndex {
  /** The request record's key. */
  readonly requestKey: string;
  readonly uid: number;
  /** The creating request's request_id, normalised (4.1-11). */
  readonly requestId: RequestKey;
}

export type ConfirmationKind = 'confirm' | 'grant';
export type ConfirmationState = 'pending' | 'approved' | 'denied' | 'dismissed' | 'consumed';

export interface ConfirmationRecord {
  readonly id: string;
  readonly kind: ConfirmationKind;
  readonly requestKey: string;
  readonly uid: number;
  readonly callerPackages: string[];
  readonly identity: string;
  /** The request's request_id, normalised. */
  readonly requestId: RequestKey;
  readonly tool: string;
  readonly argsDigest: string;
  /** The token itself (kept so a duplicate of R gets the same resolution, 6-07) and its hash. */
  readonly token: string;
  readonly expiresAtMs: number;
  state: ConfirmationState;
  /** What the user decided, kept once the token is consumed: a same-request retry after a lost reply
   *  replays it instead of failing (NOTES 2). Absent until consumed. */
  readonly decision?: 'approved' | 'denied';
  readonly text: ConfirmationText | null;
  readonly scopes: string[];
}

/** The dedup key (6-02): calling UID, provider_id and the normalised request_id. */
export function recordKey(uid: number, providerId: string, requestKey: RequestKey): string {
  return `${uid}|${providerId}|${requestKey}`;
}

// The records are JSON in the store; these casts are the one place they are typed.
export async function readRequest(tx: StoreTransaction, key: string): Promise<RequestRecord | undefined> {
  return (await tx.get(REQUESTS, key)) as RequestRecord | undefined;
}

export async function writeRequest(tx: StoreTransaction, key: string, record: RequestRecord): Promise<void> {
  await tx.put(REQUESTS, key, record as unknown as JsonObject);
}

export async function readConfirmation(
  tx: StoreTransaction,
  id: string,
): Promise<ConfirmationRecord | undefined> {
  return (await tx.get(CONFIRMATIONS, id)) as ConfirmationRecord | undefined;
}

export async function writeConfirmation(tx: StoreTransaction, record: ConfirmationRecord): Promise<void> {
  await tx.put(CONFIRMATIONS, record.id, record as unknown as JsonObject);
}

export function newRequestRecord(
  init: Pick<RequestRecord, 'uid' | 'requestId' | 'tool' | 'argsDigest' | 'state' | 'createdAtMs'>,
  rest: Partial<
    Omit<RequestRecord, 'uid' | 'requestId' | 'tool' | 'argsDigest' | 'state' | 'createdAtMs'>
  > = {},
): RequestRecord {
  // One literal with a fixed shape (spreads of spreads make slow dictionary-mode objects).
  return {
    uid: init.uid,
    requestId: init.requestId,
    tool: init.tool,
    argsDigest: init.argsDigest,
    state: init.state,
    createdAtMs: init.createdAtMs,
    terminalAtMs: rest.terminalAtMs ?? null,
    confirmationId: rest.confirmationId ?? null,
    operationId: rest.operationId ?? null,
    args: rest.args ?? null,
    callerPackages: rest.callerPackages ?? null,
    result: rest.result ?? null,
    error: rest.error ?? null,
    progress: rest.progress ?? null,
    cancelRequested: rest.cancelRequested ?? false,
  };
}
