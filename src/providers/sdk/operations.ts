/**
 * Async operations and cancellation (spec §4.4, NOTES 10, 11, 19).
 *
 * `accepted` reserves the request and its operation in one atomic step; a worker thread in the
 * provider's process runs the tool: an optional long `prepare` (progress persisted, cancellation
 * checked cooperatively, no business effect), then the commit — the business change, output check
 * and terminal state in one transaction, re-checking cancellation inside it, so an operation is
 * either committed or cancelled, never both (4.4-19, 4.4-21). Records are durable: a restarted
 * provider resumes every non-terminal operation from the start of `prepare` without re-executing a
 * committed one (4.4-16, 4.4-17). Operations are bound to the creating UID (4.4-12, 4.4-13) and to
 * the creating request_id (4.1-11), and kept for the idempotency window (4.4-14).
 */

import type { JsonValue } from '../../base/json.ts';
import {
  type OperationRequest,
  type OperationStatus,
  type Received,
  retryableFor,
} from '../../protocol/index.ts';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import { consumeConfirmation } from './confirmations.ts';
import { answerExisting, mayReplace, windowPassed } from './execute/replay.ts';
import { atomically, checkOutput, effectNote, who } from './execute/support.ts';
import type { Execution } from './execute/types.ts';
import { notifyOperationChanged } from './notify.ts';
import {
  type ConfirmationRecord,
  isTerminal,
  newRequestRecord,
  OPERATIONS,
  type OperationIndex,
  REQUESTS,
  type RequestRecord,
  readRequest,
  withChanges,
  writeRequest,
} from './records.ts';
import { acceptedBundle, errorBundle, successBundle, WireFailure } from './responses.ts';
import { renderResult } from './results.ts';
import { audit, type Runtime } from './runtime.ts';
import type { Session } from './sessions.ts';
import { type CallerIdentity, isReadTool, type MutationTool, type ToolCall, ToolFailure } from './types.ts';

/** Reserves R as a queued operation (atomically with consuming its confirmation) and starts a worker. */
export async function acceptOperation(
  ex: Execution,
  confirmation: ConfirmationRecord | null,
): Promise<Bundle> {
  const { rt } = ex;
  const operationId = `op_${rt.context.rng.hex(8)}`;
  const now = rt.context.currentTimeMillis();
  const existing = await atomically(rt, `accept ${ex.req.toolName}`, async (tx) => {
    const current = rt.parts.live(ex, await readRequest(tx, ex.key));
    if (current && !mayReplace(ex, current)) return current;
    if (confirmation) await consumeConfirmation(tx, confirmation);
    const record: RequestRecord = withChanges(
      newRequestRecord({
        uid: ex.caller.uid,
        requestId: ex.req.requestId,
        tool: ex.req.toolName,
        argsDigest: ex.digest,
        state: 'queued',
        createdAtMs: now,
      }),
      {
        confirmationId: confirmation?.id ?? null,
        operationId,
        args: ex.req.args,
        callerPackages: [...ex.caller.packages],
      },
    );
    const index: OperationIndex = {
      requestKey: ex.key,
      uid: ex.caller.uid,
      requestId: ex.req.requestKey,
    };
    await rt.parts.storeOperation(rt, tx, operationId, record, index);
    return null;
  });
  if (existing) return answerExisting(ex, existing);
  audit(rt, who(ex), {
    authorization: 'allowed',
    confirmation: confirmation ? 'approved' : 'not_needed',
    outcome: 'accepted',
  });
  startWorker(rt, operationId);
  return acceptedBundle(ex.req.requestId, operationId, rt.options.pollAfterMs);
}

export function startWorker(rt: Runtime, operationId: string): void {
  if (rt.workers.has(operationId)) return;
  const task = rt.context.spawn(`cetp-op-${operationId}`, async () => {
    try {
      await runOperation(rt, operationId);
    } finally {
      rt.workers.delete(operationId);
    }
  });
  rt.workers.set(operationId, task);
}

/** After a restart: resume every operation that is not terminal (4.4-17). */
export async function recoverOperations(rt: Runtime): Promise<void> {
  for (const id of await rt.context.storage.keys(OPERATIONS)) {
    const index = (await rt.context.storage.get(OPERATIONS, id)) as OperationIndex | undefined;
    const record = index ? await readCommitted(rt, index.requestKey) : undefined;
    if (record && !isTerminal(record.state)) startWorker(rt, id);
  }
}

async function readCommitted(rt: Runtime, key: string): Promise<RequestRecord | undefined> {
  return (await rt.context.storage.get(REQUESTS, key)) as RequestRecord | undefined;
}

interface Located {
  readonly index: OperationIndex;
  readonly record: RequestRecord;
  readonly inMemory: boolean;
}

async function locate(rt: Runtime, operationId: string): Promise<Located | null> {
  const memory = rt.memoryOperations.get(operationId) as unknown as
    | { record: RequestRecord; index: OperationIndex }
    | undefined;
  if (memory) {
    const durable = await readCommitted(rt, memory.index.requestKey);
    return { index: memory.index, record: durable ?? memory.record, inMemory: durable === undefined };
  }
  const index = (await rt.context.storage.get(OPERATIONS, operationId)) as OperationIndex | undefined;
  if (!index) return null;
  const record = await readCommitted(rt, index.requestKey);
  return record ? { index, record, inMemory: false } : null;
}

async function runOperation(rt: Runtime, operationId: string): Promise<void> {
  const located = await locate(rt, operationId);
  if (!located || isTerminal(located.record.state)) return;
  const { index } = located;
  const tool = rt.catalogue.tools.get(located.record.tool);
  if (!tool || isReadTool(tool.tool)) return;
  const mutation = tool.tool as MutationTool;
  const caller: CallerIdentity = {
    uid: located.record.uid,
    packages: located.record.callerPackages ?? [],
    certDigests: {},
  };
  const call: ToolCall = {
    caller,
    requestId: located.record.requestId,
    requestKey: index.requestId,
    args: JSON.parse(located.record.args ?? 'null') as JsonValue,
    context: rt.context,
  };
  if (!located.inMemory)
    await update(rt, index.requestKey, (r) =>
      r.state === 'queued' ? withChanges(r, { state: 'running' }) : r,
    );
  let prepared: JsonValue = null;
  try {
    if (mutation.prepare) {
      prepared = await mutation.prepare(call, {
        progress: async (current, total, message) => {
          if (located.inMemory) return false;
          const r = await update(rt, index.requestKey, (x) =>
            isTerminal(x.state)
              ? x
              : withChanges(x, { progress: { current, total, ...(message ? { message } : {}) } }),
          );
          return r?.cancelRequested ?? false;
        },
      });
    }
    await atomically(rt, `commit ${mutation.name}`, async (tx) => {
      const r = (await readRequest(tx, index.requestKey)) ?? (located.inMemory ? located.record : undefined);
      if (!r || isTerminal(r.state)) return;
      const now = rt.context.currentTimeMillis();
      if (r.cancelRequested && rt.gates.on('CETP-4.4-19', 'CETP-4.4-21')) {
        await writeRequest(tx, index.requestKey, withChanges(r, { state: 'cancelled', terminalAtMs: now }));
        return;
      }
      const value = await mutation.mutate(call, tx, prepared);
      checkOutput(rt, tool, value);
      effectNote(rt, tx, r.uid, index.requestId, mutation, call);
      await writeRequest(
        tx,
        index.requestKey,
        withChanges(r, {
          state: 'succeeded',
          terminalAtMs: now,
          result: value,
          progress: r.progress ? withChanges(r.progress, { current: r.progress.total }) : null,
        }),
      );
      if (located.inMemory) await tx.put(OPERATIONS, operationId, index as unknown as JsonValue);
    });
  } catch (error) {
    const failure =
      error instanceof ToolFailure
        ? {
            code: error.code,
            message: error.safeMessage,
            // The §5 table's value for fixed codes (UNAVAILABLE stays retryable: a NEW execution may work).
            retryable: retryableFor(error.code, false),
            ...(error.details ? { details: error.details } : {}),
          }
        : error instanceof WireFailure
          ? { code: error.code, message: 'The operation failed.', retryable: retryableFor(error.code, false) }
          : {
              code: 'INTERNAL_ERROR',
              message: 'The operation failed because of an internal error.',
              retryable: false,
            };
    if (!(error instanceof ToolFailure) && !(error instanceof WireFailure)) {
      rt.context.log('E', 'CetpProvider', `operation ${operationId} failed: ${String(error)}`);
    }
    await update(rt, index.requestKey, (r) =>
      isTerminal(r.state)
        ? r
        : withChanges(r, { state: 'failed', terminalAtMs: rt.context.currentTimeMillis(), error: failure }),
    );
  }
  const final = await readCommitted(rt, index.requestKey);
  if (final) {
    audit(
      rt,
      {
        uid: final.uid,
        packages: final.callerPackages ?? [],
        tool: final.tool,
        requestId: final.requestId,
      },
      { outcome: final.state },
    );
    if (isTerminal(final.state)) notifyOperationChanged(rt, operationId);
  }
}

async function update(
  rt: Runtime,
  key: string,
  change: (r: RequestRecord) => RequestRecord,
): Promise<RequestRecord | undefined> {
  return atomically(rt, 'update operation', async (tx) => {
    const r = await readRequest(tx, key);
    if (!r) return undefined;
    const next = change(r);
    if (next !== r) await writeRequest(tx, key, next);
    return next;
  });
}

/** Finds the caller's operation: unknown, foreign and mismatched ids look alike (INVALID_REQUEST). */
async function callerOperation(
  rt: Runtime,
  caller: CallerIdentity,
  req: Received<OperationRequest>,
): Promise<Located> {
  const located = await locate(rt, req.operationId);
  const foreign = located !== null && !rt.parts.ownsOperation(rt, located.index, caller);
  const wrongRequest =
    located !== null && rt.gates.on('CETP-4.1-11') && located.index.requestId !== req.requestKey;
  if (!located || foreign || wrongRequest) {
    throw new WireFailure('INVALID_REQUEST', {
      message: 'No such operation for this caller and request_id.',
    });
  }
  return located;
}

export async function getOperation(
  rt: Runtime,
  caller: CallerIdentity,
  session: Session,
  req: Received<OperationRequest>,
): Promise<Bundle> {
  const echo = { method: 'get_operation' as const, requestId: req.requestId };
  try {
    const { record } = await callerOperation(rt, caller, req);
    if (windowPassed(rt, session.limits.idempotencyWindowSeconds, record))
      return errorBundle(echo, 'RESULT_EXPIRED');
    const state = record.state === 'user_cancelled' ? 'cancelled' : record.state;
    const data: Record<string, unknown> = { operation_id: req.operationId, state };
    if (record.progress) data.progress = record.progress;
    if (!isTerminal(record.state)) data.poll_after_ms = rt.options.pollAfterMs;
    if (record.cancelRequested && !isTerminal(record.state)) data.cancellation_requested = true;
    let fd = null;
    if (record.state === 'succeeded') {
      const rendered = renderResult(rt, session, record.result ?? null, true);
      data.result = rendered.data;
      fd = rendered.fd;
    }
    if (record.state === 'failed' && record.error) {
      data.error = {
        error_code: record.error.code,
        error_message: record.error.message,
        retryable: record.error.retryable,
        ...(record.error.details ? { error_details: record.error.details } : {}),
      };
    }
    const bundle = successBundle(echo, data as OperationStatus);
    if (fd) bundle.putParcelFileDescriptor('result_fd', fd);
    return bundle;
  } catch (error) {
    if (error instanceof WireFailure) return errorBundle(echo, error.code, error.init);
    throw error;
  }
}

export async function cancelOperation(
  rt: Runtime,
  caller: CallerIdentity,
  req: Received<OperationRequest>,
): Promise<Bundle> {
  const echo = { method: 'cancel_operation' as const, requestId: req.requestId };
  try {
    const { index } = await callerOperation(rt, caller, req);
    const verdict = await atomically(rt, 'cancel operation', async (tx) => {
      const r = await readRequest(tx, index.requestKey);
      if (!r) return 'requested' as const;
      if (r.state === 'queued' || r.state === 'running') {
        await writeRequest(tx, index.requestKey, withChanges(r, { cancelRequested: true }));
        return 'requested' as const;
      }
      if (r.state === 'cancelled' || r.state === 'user_cancelled') return 'requested' as const;
      return rt.parts.cancelFinished(tx, index.requestKey, r);
    });
    if (verdict === 'conflict' && rt.gates.on('CETP-4.4-21', 'CETP-5-16')) {
      return errorBundle(echo, 'CONFLICT', {
        retryable: false,
        message: 'The operation has already finished and can no longer be cancelled.',
      });
    }
    return successBundle(echo, { operation_id: req.operationId, state: 'cancellation_requested' });
  } catch (error) {
    if (error instanceof WireFailure) return errorBundle(echo, error.code, error.init);
    throw error;
  }
}

/** The reference: the request record and its operation index, durable in the store (4.4-16, 4.4-17). */
export async function storeOperation(
  _rt: Runtime,
  tx: StoreTransaction,
  operationId: string,
  record: RequestRecord,
  index: OperationIndex,
): Promise<void> {
  await writeRequest(tx, index.requestKey, record);
  await tx.put(OPERATIONS, operationId, index as unknown as JsonValue);
}

/** The reference: an operation belongs to the UID that created it (4.4-12, 4.4-13). */
export function ownsOperation(rt: Runtime, index: OperationIndex, caller: CallerIdentity): boolean {
  return !rt.gates.on('CETP-4.4-12', 'CETP-4.4-13') || index.uid === caller.uid;
}

/** The reference: a finished operation can no longer be cancelled (4.4-21). */
export async function cancelFinished(): Promise<'requested' | 'conflict'> {
  return 'conflict';
}
