/**
 * Small helpers every step shares: the atomic boundary, what an answer echoes and an audit event
 * names, the deadline and output checks as values, the effect note, rendering a value.
 */

import type { JsonValue } from '../../../base/json.ts';
import type { RequestKey } from '../../../protocol/index.ts';
import type { Bundle } from '../../../sim/binder/bundle.ts';
import type { StoreTransaction } from '../../../sim/storage/storage.ts';
import type { CompiledTool } from '../catalogue.ts';
import type { TokenBinding } from '../confirmations.ts';
import { REQUESTS, type RequestRecord } from '../records.ts';
import { type Echo, errorBundle, successBundle, WireFailure } from '../responses.ts';
import { renderResult } from '../results.ts';
import type { AuditSubject } from '../runtime.ts';
import { type MutationTool, type ToolCall, ToolFailure } from '../types.ts';
import type { Execution, Next, Runtime } from './types.ts';

/** Carry on with `ex`. */
export function go(ex: Execution): Next {
  return { go: ex };
}

/** Answer with `bundle`. */
export function answer(bundle: Bundle): Next {
  return { answer: bundle };
}

/** Answer with an error of this call. */
export function refuse(ex: Execution, failure: WireFailure): Next {
  return { answer: errorBundle(echo(ex), failure.code, failure.init) };
}

/**
 * `{ ...ex, ...changes }`, as one literal of a fixed shape: every step that learns something makes
 * one, and a generic copy (a spread, Object.assign) costs several times more on V8 (Node 20).
 */
export function withExecution(ex: Execution, changes: Partial<Execution>): Execution {
  return {
    rt: ex.rt,
    caller: ex.caller,
    session: ex.session,
    req: changes.req ?? ex.req,
    extras: ex.extras,
    compiled: changes.compiled ?? ex.compiled,
    call: changes.call ?? ex.call,
    digest: changes.digest ?? ex.digest,
    key: changes.key ?? ex.key,
    pending: changes.pending !== undefined ? changes.pending : ex.pending,
    confirmation: changes.confirmation !== undefined ? changes.confirmation : ex.confirmation,
    value: changes.value !== undefined ? changes.value : ex.value,
  };
}

/** The tool of a call past the `tool` step. */
export function toolOf(ex: Execution): CompiledTool {
  if (ex.compiled === null) throw new Error('execute_tool: a step ran before the tool step');
  return ex.compiled;
}

export function echo(ex: Execution): Echo & { method: 'execute_tool'; requestId: string } {
  return { method: 'execute_tool', requestId: ex.req.requestId };
}

export function who(ex: Execution): AuditSubject {
  return {
    uid: ex.caller.uid,
    packages: ex.caller.packages,
    tool: ex.req.toolName,
    requestId: ex.req.requestId,
  };
}

/** What a resume token of this call must be bound to (4.3-04 … 4.3-06, 4.3-14). */
export function binding(ex: Execution): TokenBinding {
  return {
    uid: ex.caller.uid,
    requestKey: ex.req.requestKey,
    tool: ex.req.toolName,
    argsDigest: ex.digest,
    nowMs: ex.rt.context.currentTimeMillis(),
  };
}

/** The app's atomic boundary (10-06), or the store's transaction when the app gave none. */
export function atomically<T>(
  rt: Runtime,
  label: string,
  body: (tx: StoreTransaction) => Promise<T>,
): Promise<T> {
  return rt.executor ? rt.executor.atomically(label, body) : rt.context.storage.transaction(label, body);
}

/** This request's committed record, as the dedup lookup sees it. */
export async function committedRecord(ex: Execution): Promise<RequestRecord | undefined> {
  return ex.rt.parts.live(
    ex,
    (await ex.rt.context.storage.get(REQUESTS, ex.key)) as RequestRecord | undefined,
  );
}

/** DEADLINE_EXCEEDED once the call's deadline has passed (4.1-14, 10-03), else null. */
export function deadlineFailure(ex: Execution): WireFailure | null {
  if (!ex.rt.gates.on('CETP-4.1-14', 'CETP-10-03')) return null;
  if (ex.rt.context.currentTimeMillis() < ex.req.deadlineAtMs) return null;
  return new WireFailure('DEADLINE_EXCEEDED', {
    retryable: true,
    message: 'The deadline passed before the work could start.',
  });
}

/** The provider validates its own output (4.2-03); a bad one is an internal error, never sent. */
export function checkOutput(rt: Runtime, compiled: CompiledTool, value: JsonValue): void {
  if (!rt.gates.on('CETP-4.2-03')) return;
  const issues = compiled.validateOutput(value);
  if (issues.length > 0) {
    rt.context.log('E', 'CetpProvider', `${compiled.tool.name} produced output that breaks its schema`);
    throw new WireFailure('INTERNAL_ERROR', { retryable: true });
  }
}

/**
 * Declares R's business effect through the public effect API (AppContext.declareEffect, the same any
 * ContentProvider calls; docs/oracles.md), inside the transaction that commits it. The SDK keeps each
 * caller's records apart, so the data touched is the caller's own.
 */
export function effectNote(
  rt: Runtime,
  tx: StoreTransaction,
  uid: number,
  requestKey: RequestKey,
  tool: MutationTool,
  call: ToolCall,
): void {
  rt.context.declareEffect(
    {
      tool: tool.name,
      requestId: requestKey,
      callerUid: uid,
      ownerUid: uid,
      args: call.args,
      approvalRequired: approvalRequired(tool, call),
    },
    tx,
  );
}

/**
 * Whether the app's policy needs the user's approval for this call: its tool is always confirmed, or
 * the tool finds the runtime risk of these args above its static declaration (3.4-12). A fact about
 * the policy, declared with the effect whatever the SDK enforced (the gates): the oracles judge
 * from the user's screens whether the approval was there.
 */
export function approvalRequired(tool: MutationTool, call: ToolCall): boolean {
  return tool.annotations.confirmation === 'always' || (tool.needsConfirmation?.(call) ?? false);
}

/** A value rendered for this session: inline, or a file result (4.2, 4.5). */
export function respondWithValue(ex: Execution, value: JsonValue, committed: boolean): Bundle {
  const rendered = renderResult(ex.rt, ex.session, value, committed);
  const bundle = successBundle(echo(ex), rendered.data, rendered.dataJson ?? undefined);
  if (rendered.fd) bundle.putParcelFileDescriptor('result_fd', rendered.fd);
  return bundle;
}

/** Business outcomes that are R's terminal result; UNAVAILABLE and PERMISSION_DENIED are rejections. */
export function isRecordedFailure(failure: ToolFailure): boolean {
  return failure.code === 'CONFLICT' || failure.code === 'INVALID_ARGS';
}

/** A ToolFailure thrown by tool code outside the effect's transaction, as the wire error it is. */
export function rethrowToolFailure(error: unknown): never {
  if (error instanceof ToolFailure) {
    throw new WireFailure(error.code, { message: error.safeMessage, retryable: !isRecordedFailure(error) });
  }
  throw error;
}
