/**
 * `execute_tool` (spec §4, §4.3, §6), in the spec's order: tool (TOOL_NOT_FOUND for unknown and
 * hidden tools, 5-12) ⇒ args size (4.1-08) ⇒ input schema and business validation (5-14, 7.3-04) ⇒
 * scopes and authorization (3.4-15, 7.2-03, 10-01) ⇒ the request record (looked up before any
 * resume token is checked, NOTES 2) ⇒ deadline before any reservation or effect (4.1-14, 10-03) ⇒
 * confirmation (4.3-08) ⇒ de-duplicated execution inside the mutation executor (6-01 … 6-07, 10-06)
 * ⇒ output schema (4.2-03) ⇒ inline or file result (4.5). The session, envelope and rate limit were
 * checked by the caller (provider.ts).
 */

import type { JsonValue } from '../../base/json.ts';
import { argsDigest, type ExecuteToolRequest, utf8Length } from '../../protocol/index.ts';
import { type Bundle, Bundle as BundleClass } from '../../sim/bundle.ts';
import type { StoreTransaction } from '../../sim/storage.ts';
import type { CompiledTool } from './catalogue.ts';
import {
  checkResumeToken,
  consumeConfirmation,
  createConfirmation,
  type ResolutionRequest,
  resolutionFor,
} from './confirmations.ts';
import { identityFingerprint } from './identity.ts';
import { acceptOperation } from './operations.ts';
import {
  type ConfirmationKind,
  type ConfirmationRecord,
  isTerminal,
  newRequestRecord,
  REQUESTS,
  type RequestRecord,
  readConfirmation,
  readRequest,
  requestKey,
  withChanges,
  writeRequest,
} from './records.ts';
import { replayRecord } from './replay.ts';
import { errorBundle, successBundle, WireFailure } from './responses.ts';
import { renderResult } from './results.ts';
import { type AuditSubject, audit, type Runtime } from './runtime.ts';
import type { Session } from './sessions.ts';
import {
  type CallerIdentity,
  type ConfirmationText,
  isReadTool,
  type MutationTool,
  type ToolCall,
  ToolFailure,
} from './types.ts';

/** Everything one execute_tool call carries through the pipeline. */
export interface Execution {
  readonly rt: Runtime;
  readonly caller: CallerIdentity;
  readonly session: Session;
  readonly req: ExecuteToolRequest;
  readonly extras: Bundle;
  readonly compiled: CompiledTool;
  readonly call: ToolCall;
  readonly digest: string;
  readonly key: string;
}

export async function executeTool(
  rt: Runtime,
  caller: CallerIdentity,
  session: Session,
  req: ExecuteToolRequest,
  extras: Bundle,
): Promise<Bundle> {
  try {
    return await runPipeline(rt, caller, session, req, extras);
  } catch (error) {
    if (error instanceof WireFailure)
      return errorBundle({ method: 'execute_tool', requestId: req.requestId }, error.code, error.init);
    // An exception in app code: INTERNAL_ERROR with a generic message, never its text (5-24, 5-25).
    rt.context.log('E', 'CetpProvider', `execute_tool ${req.toolName} failed: ${String(error)}`);
    if (rt.gates.bug('internal-error-leaks-stack')) return leakyInternalError(req.requestId, error);
    return errorBundle({ method: 'execute_tool', requestId: req.requestId }, 'INTERNAL_ERROR', {
      retryable: true,
    });
  }
}

/** Planted bug "internal-error-leaks-stack": an error Bundle built by hand around the exception. */
function leakyInternalError(requestId: string, error: unknown): Bundle {
  const b = new BundleClass();
  b.putString('status', 'error');
  b.putString('error_code', 'INTERNAL_ERROR');
  b.putString(
    'error_message',
    error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error),
  );
  b.putBoolean('retryable', true);
  b.putInt('protocol_version', 2);
  b.putString('request_id', requestId);
  return b;
}

async function runPipeline(
  rt: Runtime,
  caller: CallerIdentity,
  session: Session,
  req: ExecuteToolRequest,
  extras: Bundle,
): Promise<Bundle> {
  const { gates } = rt;
  const compiled = rt.catalogue.tools.get(req.toolName);
  const hidden = compiled?.tool.isVisibleTo && gates.on('CETP-7.2-01') && !compiled.tool.isVisibleTo(caller);
  if (!compiled || hidden) throw new WireFailure('TOOL_NOT_FOUND');
  const tool = compiled.tool;
  if (gates.on('CETP-4.1-08') && utf8Length(req.args) > session.limits.maxRequestBytes) {
    throw new WireFailure('INVALID_ARGS', {
      message: `The arguments are larger than ${session.limits.maxRequestBytes} bytes.`,
    });
  }
  let args: JsonValue;
  try {
    args = (req.argsValue !== undefined ? req.argsValue : JSON.parse(req.args)) as JsonValue;
  } catch {
    throw new WireFailure('INVALID_ARGS', { message: 'The arguments are not valid JSON.' });
  }
  if (gates.on('CETP-5-14', 'CETP-10-10')) {
    const issues = compiled.validateInput(args);
    if (issues.length > 0) {
      throw new WireFailure('INVALID_ARGS', {
        message: 'The arguments do not match the tool input schema.',
        details: { issues: issues.slice(0, 10).map((i) => `${i.path ?? ''} ${i.message}`.trim()) },
      });
    }
  }
  const call: ToolCall = { caller, requestId: req.requestId, args, context: rt.context };
  if (tool.validate && gates.on('CETP-7.3-04')) {
    const problems = await tool.validate(call);
    if (problems.length > 0)
      throw new WireFailure('INVALID_ARGS', { message: problems[0] ?? 'Invalid arguments.' });
  }
  const digested = argsDigest(req.args, rt.options.variants.argsDigest);
  if (!digested.ok) throw new WireFailure('INVALID_ARGS', { message: 'The arguments are not valid JSON.' });
  const key = requestKey(
    caller.uid,
    rt.descriptor.providerId,
    req.requestId,
    !gates.bug('dedup-key-without-uid'),
  );
  const ex: Execution = { rt, caller, session, req, extras, compiled, call, digest: digested.value, key };

  const authorization = await authorizeCall(ex);
  if (authorization) return authorization;
  const next = await settleGrantToken(ex);
  if (isReadTool(tool)) return runRead(next);
  return runMutation(next, tool);
}

/**
 * A resume after the user granted scopes carries the grant's token: once authorization passes, it
 * is consumed and the call goes on as a fresh request (which may still need a confirmation).
 */
async function settleGrantToken(ex: Execution): Promise<Execution> {
  const token = ex.req.resumeToken;
  if (token === undefined) return ex;
  const isGrant = await atomically(ex.rt, 'settle grant token', async (tx) => {
    // A retried resume after a lost reply re-sends the grant token, already used (NOTES 2): that is
    // fine for a grant, which authorises nothing by itself — authorization was just re-checked.
    const check = await checkResumeToken(tx, token, binding(ex), ex.rt.gates, true);
    if (!check.ok || check.record.kind !== 'grant') return false;
    await consumeConfirmation(tx, check.record);
    return true;
  });
  if (!isGrant) return ex;
  const { resumeToken: _used, ...req } = ex.req;
  return withChanges(ex, { req });
}

/** Scopes and the app's policy, every call (3.4-15, 3.4-16, 7.2-03); grants resume via a token. */
async function authorizeCall(ex: Execution): Promise<Bundle | null> {
  const { rt, caller, compiled, req } = ex;
  if (!rt.gates.on('CETP-3.4-15', 'CETP-10-01')) return null;
  const tool = compiled.tool;
  const decision = await rt.authorize({ caller, tool, scopes: tool.scopes, context: rt.context });
  if (decision.kind === 'allow') return null;
  if (decision.kind === 'deny') {
    audit(rt, who(ex), { authorization: 'denied', outcome: 'PERMISSION_DENIED' });
    throw new WireFailure('PERMISSION_DENIED', { message: decision.reason });
  }
  // The user can grant the missing scopes in the provider's UI (AUTH_REQUIRED, 4.3-01).
  if (req.resumeToken !== undefined) {
    const resumed = await resumeUnrecorded(ex, 'grant');
    if (resumed === 'approved') {
      const again = await rt.authorize({ caller, tool, scopes: tool.scopes, context: rt.context });
      if (again.kind === 'allow') return null;
    } else if (resumed !== 'expired') {
      return resumed;
    }
  }
  audit(rt, who(ex), { authorization: 'auth_required', outcome: 'AUTH_REQUIRED' });
  return openResolution(ex, 'grant', decision.scopes, null);
}

/**
 * A resume of a resolution that has no request record (a scope grant, or the confirmation of a read
 * tool): 'approved' once the token is consumed, 'expired', or the Bundle to answer with.
 */
async function resumeUnrecorded(
  ex: Execution,
  kind: ConfirmationKind,
): Promise<'approved' | 'expired' | Bundle> {
  const { rt, req } = ex;
  const token = req.resumeToken as string;
  return atomically(rt, 'resume', async (tx) => {
    // A consumed token re-sent by its own request (bound to caller, request, tool and args above) is
    // a retry after a lost reply: it gets the decision it already had, never a second prompt (NOTES 2).
    const check = await checkResumeToken(tx, token, binding(ex), rt.gates, true);
    if (!check.ok && 'invalid' in check)
      throw new WireFailure('INVALID_REQUEST', { message: `Invalid resume_token: ${check.invalid}.` });
    if (!check.ok) return 'expired' as const;
    if (check.record.kind !== kind) {
      throw new WireFailure('INVALID_REQUEST', {
        message: 'Invalid resume_token: it resolves another step.',
      });
    }
    const approved =
      check.record.state === 'consumed'
        ? check.record.decision === 'approved'
        : check.record.state === 'approved';
    await consumeConfirmation(tx, check.record);
    if (approved) return 'approved' as const;
    audit(rt, who(ex), { confirmation: 'denied', outcome: 'USER_CANCELLED' });
    return errorBundle(echo(ex), 'USER_CANCELLED');
  });
}

/** What a resolution of this call is bound to: caller, identity, request, tool and args (4.3-04 … 4.3-14). */
function resolutionRequest(
  ex: Execution,
  kind: ConfirmationKind,
  text: ConfirmationText | null,
  scopes: readonly string[],
): ResolutionRequest {
  return {
    kind,
    requestKey: ex.key,
    uid: ex.caller.uid,
    callerPackages: ex.caller.packages,
    identity: identityFingerprint(ex.caller),
    requestId: ex.req.requestId,
    tool: ex.req.toolName,
    argsDigest: ex.digest,
    text,
    scopes,
  };
}

/** Opens a confirmation or grant resolution: USER_ACTION_REQUIRED / AUTH_REQUIRED with a PendingIntent. */
async function openResolution(
  ex: Execution,
  kind: ConfirmationKind,
  scopes: readonly string[],
  tool: MutationTool | null,
): Promise<Bundle> {
  const { rt } = ex;
  const text = tool ? await tool.describeForConfirmation(ex.call) : null;
  const record = await atomically(rt, `open ${kind}`, (tx) =>
    createConfirmation(
      tx,
      rt.context,
      rt.options.resumeTokenTtlMs,
      resolutionRequest(ex, kind, text, scopes),
    ),
  );
  return resolutionBundle(ex, record);
}

function resolutionBundle(ex: Execution, record: ConfirmationRecord): Bundle {
  const resolution = resolutionFor(ex.rt.context, record, ex.rt.gates);
  return errorBundle(echo(ex), record.kind === 'grant' ? 'AUTH_REQUIRED' : 'USER_ACTION_REQUIRED', {
    retryable: false,
    resumeToken: record.token,
    resolution,
    details: { resolution: record.kind === 'grant' ? 'grant_scopes' : 'confirm', scopes: record.scopes },
  });
}

async function runRead(ex: Execution): Promise<Bundle> {
  const { rt, compiled } = ex;
  // A read is not recorded, but an id already bound to a write request stays bound to it (6-04).
  const bound = await committedRecord(ex);
  if (
    bound &&
    rt.gates.on('CETP-6-04') &&
    (bound.tool !== ex.req.toolName || bound.argsDigest !== ex.digest)
  ) {
    throw new WireFailure('INVALID_REQUEST', {
      message: 'This request_id was already used with a different tool or arguments.',
    });
  }
  checkDeadline(ex);
  const tool = compiled.tool;
  if (isReadTool(tool) && tool.annotations.confirmation === 'always') {
    const confirmed = ex.req.resumeToken !== undefined ? await resumeUnrecorded(ex, 'confirm') : 'expired';
    if (confirmed !== 'approved') {
      if (confirmed !== 'expired') return confirmed;
      return openResolution(ex, 'confirm', [], null);
    }
  }
  if (!isReadTool(tool)) throw new WireFailure('INTERNAL_ERROR');
  const value = await tool.read(ex.call).catch(rethrowToolFailure);
  checkOutput(rt, ex.compiled, value);
  audit(rt, who(ex), { authorization: 'allowed', confirmation: 'not_needed', outcome: 'succeeded' });
  return respondWithValue(ex, value, false);
}

async function runMutation(ex: Execution, tool: MutationTool): Promise<Bundle> {
  const { rt } = ex;
  const { gates } = rt;
  const existing = await committedRecord(ex);
  if (existing) return handleExisting(ex, tool, existing);
  if (ex.req.resumeToken !== undefined) {
    // A confirmation token for a request this caller never reserved.
    const reused = await atomically(rt, 'check stray token', async (tx) => {
      const check = await checkResumeToken(tx, ex.req.resumeToken as string, binding(ex), gates);
      if (
        gates.bug('resume-token-reusable') &&
        check.ok &&
        ['approved', 'consumed'].includes(check.record.state)
      ) {
        return check.record;
      }
      if (!check.ok && 'invalid' in check)
        throw new WireFailure('INVALID_REQUEST', { message: `Invalid resume_token: ${check.invalid}.` });
      throw new WireFailure('INVALID_REQUEST', { message: 'Invalid resume_token: no such pending request.' });
    });
    return execute(ex, tool, reused);
  }
  if (!gates.bug('deadline-after-effect')) checkDeadline(ex);
  const trustsFlag = gates.bug('trust-confirmed-flag') && ex.extras.getBoolean('confirmed', false);
  const needsConfirmation =
    gates.on('CETP-4.3-08', 'CETP-3.4-09') &&
    !trustsFlag &&
    (tool.annotations.confirmation === 'always' ||
      (gates.on('CETP-3.4-12') && (tool.needsConfirmation?.(ex.call) ?? false)));
  if (needsConfirmation) return reserveForConfirmation(ex, tool);
  return execute(ex, tool, null);
}

/** Whether `record` is this very request: the same tool and args (6-03, 6-04 — unless they are off). */
function sameRequest(ex: Execution, record: RequestRecord): boolean {
  const { gates } = ex.rt;
  if (!gates.on('CETP-6-04', 'CETP-6-03') || gates.bug('dedup-ignores-args')) return true;
  return record.tool === ex.req.toolName && record.argsDigest === ex.digest;
}

function refuseOtherRequest(ex: Execution, record: RequestRecord): void {
  if (!sameRequest(ex, record)) {
    throw new WireFailure('INVALID_REQUEST', {
      message: 'This request_id was already used with a different tool or arguments.',
    });
  }
}

/**
 * Whether a transaction of this call may write its own record over `existing`: only over this
 * request's own reservation for confirmation (its approved resume). Another call under the same
 * request_id may have reserved it — with other args — between this call's first look and its
 * transaction; that reservation stands.
 */
export function mayReplace(ex: Execution, existing: RequestRecord): boolean {
  return existing.state === 'pending_confirmation' && sameRequest(ex, existing);
}

/**
 * The answer when this call's transaction found a record another call made first: refused if that
 * is another request under the same id (6-04), else that request's answer (replayRecord).
 */
export function answerExisting(ex: Execution, record: RequestRecord): Bundle {
  refuseOtherRequest(ex, record);
  return replayRecord(ex, record);
}

/** The same request again (6-04 … 6-07, NOTES 1–3, 10, 11). */
async function handleExisting(ex: Execution, tool: MutationTool, record: RequestRecord): Promise<Bundle> {
  const { rt } = ex;
  refuseOtherRequest(ex, record);
  if (isTerminal(record.state) || record.state === 'queued' || record.state === 'running') {
    return replayRecord(ex, record);
  }
  // pending_confirmation
  const current = record.confirmationId
    ? ((await rt.context.storage.get('cetp.confirmations', record.confirmationId)) as
        | ConfirmationRecord
        | undefined)
    : undefined;
  if (ex.req.resumeToken === undefined) {
    if (current) return resolutionBundle(ex, current);
    return reserveForConfirmation(ex, tool);
  }
  return resumeConfirmed(ex, tool);
}

async function resumeConfirmed(ex: Execution, tool: MutationTool): Promise<Bundle> {
  const { rt } = ex;
  const { gates } = rt;
  const token = ex.req.resumeToken as string;
  const verdict = await atomically(rt, 'check resume', async (tx) => {
    const check = await checkResumeToken(tx, token, binding(ex), gates);
    if (!check.ok && 'invalid' in check) return { invalid: check.invalid };
    const record = await readRequest(tx, ex.key);
    if (record?.state !== 'pending_confirmation') return { again: true };
    if (!check.ok) return { expired: true };
    if (check.record.id !== record.confirmationId)
      return { invalid: 'a newer confirmation replaced this one' };
    if (
      check.record.state === 'approved' ||
      (gates.bug('effect-before-approval') && check.record.state === 'pending')
    ) {
      return { approved: check.record };
    }
    await consumeConfirmation(tx, check.record);
    await writeRequest(
      tx,
      ex.key,
      withChanges(record, { state: 'user_cancelled', terminalAtMs: rt.context.currentTimeMillis() }),
    );
    return { cancelled: true };
  });
  if ('invalid' in verdict)
    throw new WireFailure('INVALID_REQUEST', { message: `Invalid resume_token: ${verdict.invalid}.` });
  if ('again' in verdict) {
    const record = await committedRecord(ex);
    if (record) return answerExisting(ex, record);
    throw new WireFailure('INVALID_REQUEST', { message: 'Invalid resume_token: no such pending request.' });
  }
  if ('expired' in verdict) {
    audit(rt, who(ex), { confirmation: 'expired', outcome: 'USER_ACTION_REQUIRED' });
    return reserveForConfirmation(ex, tool, true);
  }
  if ('cancelled' in verdict) {
    audit(rt, who(ex), { confirmation: 'denied', outcome: 'user_cancelled' });
    return errorBundle(echo(ex), 'USER_CANCELLED');
  }
  // Approved: the resume call's own deadline, then the effect (consuming the token atomically with it).
  if (!gates.bug('deadline-after-effect')) checkDeadline(ex);
  return execute(ex, tool, verdict.approved);
}

/** Reserves R as pending_confirmation with a fresh confirmation: USER_ACTION_REQUIRED. */
async function reserveForConfirmation(ex: Execution, tool: MutationTool, replace = false): Promise<Bundle> {
  const { rt } = ex;
  const now = rt.context.currentTimeMillis();
  const text = await tool.describeForConfirmation(ex.call);
  const outcome = await atomically(rt, 'reserve for confirmation', async (tx) => {
    const existing = await readRequest(tx, ex.key);
    if (existing && !(replace && mayReplace(ex, existing))) return { existing };
    const confirmation = await createConfirmation(
      tx,
      rt.context,
      rt.options.resumeTokenTtlMs,
      resolutionRequest(ex, 'confirm', text, []),
    );
    const record =
      existing ??
      newRequestRecord({
        uid: ex.caller.uid,
        requestId: ex.req.requestId,
        tool: ex.req.toolName,
        argsDigest: ex.digest,
        state: 'pending_confirmation',
        createdAtMs: now,
      });
    await writeRequest(tx, ex.key, withChanges(record, { confirmationId: confirmation.id }));
    return { confirmation };
  });
  if ('existing' in outcome) return handleExisting(ex, tool, outcome.existing);
  audit(rt, who(ex), {
    authorization: 'allowed',
    confirmation: 'requested',
    outcome: 'USER_ACTION_REQUIRED',
  });
  return resolutionBundle(ex, outcome.confirmation);
}

/** A synchronous execution reports no progress and is never asked to stop. */
const SYNC_WORK = { progress: async () => false };

/** Runs the effect: async when the session and tool allow it, else synchronously and atomically. */
async function execute(
  ex: Execution,
  tool: MutationTool,
  confirmation: ConfirmationRecord | null,
): Promise<Bundle> {
  const async =
    tool.annotations.execution === 'sync_or_async' && ex.session.capabilities.includes('async_operations');
  if (async) return acceptOperation(ex, confirmation);
  const { rt } = ex;
  const { gates } = rt;
  const prepared = tool.prepare ? await tool.prepare(ex.call, SYNC_WORK).catch(rethrowToolFailure) : null;
  // A long preparation may outlive the call's deadline: check again right before the effect (4.1-14).
  if (tool.prepare && !gates.bug('deadline-after-effect')) checkDeadline(ex);
  let outcome: { existing: RequestRecord } | { value: JsonValue } | { failure: ToolFailure };
  try {
    outcome = await atomically(rt, `execute ${tool.name}`, async (tx) => {
      if (!gates.bug('dedup-check-then-insert')) {
        const existing = live(ex, await readRequest(tx, ex.key));
        if (existing && !mayReplace(ex, existing)) return { existing };
      }
      if (confirmation) {
        const current = await readConfirmation(tx, confirmation.id);
        if (gates.on('CETP-4.3-13') && current?.state === 'consumed') {
          return { existing: (await readRequest(tx, ex.key)) as RequestRecord };
        }
        await consumeConfirmation(tx, confirmation);
      }
      const value = await tool.mutate(ex.call, tx, prepared);
      checkOutput(rt, ex.compiled, value);
      effectNote(rt, tx, ex.caller.uid, ex.req.requestId, tool.name, ex.call.args);
      const now = rt.context.currentTimeMillis();
      await writeRequest(
        tx,
        ex.key,
        newRequestRecord(
          {
            uid: ex.caller.uid,
            requestId: ex.req.requestId,
            tool: tool.name,
            argsDigest: ex.digest,
            state: 'succeeded',
            createdAtMs: now,
          },
          { terminalAtMs: now, confirmationId: confirmation?.id ?? null, result: value },
        ),
      );
      return { value };
    });
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    // A temporary outage or a policy refusal rolls back and is not R's outcome (NOTES 3).
    if (!isRecordedFailure(error))
      throw new WireFailure(error.code, { message: error.safeMessage, retryable: true });
    outcome = { failure: error };
  }
  if ('existing' in outcome) return answerExisting(ex, outcome.existing);
  if ('failure' in outcome) return recordFailure(ex, outcome.failure, confirmation);
  if (gates.bug('deadline-after-effect')) checkDeadline(ex);
  audit(rt, who(ex), {
    authorization: 'allowed',
    confirmation: confirmation ? 'approved' : 'not_needed',
    outcome: 'succeeded',
  });
  return respondWithValue(ex, outcome.value, true);
}

/** A business failure reached after reservation is R's terminal result (NOTES 3). */
async function recordFailure(
  ex: Execution,
  failure: ToolFailure,
  confirmation: ConfirmationRecord | null,
): Promise<Bundle> {
  const { rt } = ex;
  const existing = await atomically(rt, 'record failure', async (tx) => {
    const current = await readRequest(tx, ex.key);
    if (current && !mayReplace(ex, current)) return current;
    if (confirmation) await consumeConfirmation(tx, confirmation);
    await writeRequest(
      tx,
      ex.key,
      withChanges(
        newRequestRecord({
          uid: ex.caller.uid,
          requestId: ex.req.requestId,
          tool: ex.req.toolName,
          argsDigest: ex.digest,
          state: 'failed',
          createdAtMs: rt.context.currentTimeMillis(),
        }),
        {
          terminalAtMs: rt.context.currentTimeMillis(),
          error: {
            code: failure.code,
            message: failure.safeMessage,
            retryable: false,
            ...(failure.details ? { details: failure.details } : {}),
          },
        },
      ),
    );
    return null;
  });
  if (existing) return answerExisting(ex, existing);
  audit(rt, who(ex), { authorization: 'allowed', outcome: `failed:${failure.code}` });
  return errorBundle(echo(ex), failure.code, {
    message: failure.safeMessage,
    retryable: false,
    ...(failure.details ? { details: failure.details } : {}),
  });
}

export function respondWithValue(ex: Execution, value: JsonValue, committed: boolean): Bundle {
  const rendered = renderResult(ex.rt.context, ex.session, value, committed, ex.rt.gates);
  const echoed = { method: 'execute_tool', requestId: ex.req.requestId } as const;
  const bundle = successBundle(echoed, rendered.data, rendered.dataJson ?? undefined);
  if (rendered.fd) bundle.putParcelFileDescriptor('result_fd', rendered.fd);
  return bundle;
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

export function checkDeadline(ex: Execution): void {
  if (!ex.rt.gates.on('CETP-4.1-14', 'CETP-10-03')) return;
  if (ex.rt.context.currentTimeMillis() >= ex.req.deadlineAtMs) {
    throw new WireFailure('DEADLINE_EXCEEDED', {
      retryable: true,
      message: 'The deadline passed before the work could start.',
    });
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
  requestId: string,
  tool: string,
  args: JsonValue,
): void {
  rt.context.declareEffect({ tool, requestId, callerUid: uid, ownerUid: uid, args }, tx);
}

export function echo(ex: Execution): { method: 'execute_tool'; requestId: string } {
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

function binding(ex: Execution) {
  return {
    uid: ex.caller.uid,
    requestId: ex.req.requestId,
    tool: ex.req.toolName,
    argsDigest: ex.digest,
    nowMs: ex.rt.context.currentTimeMillis(),
  };
}

async function committedRecord(ex: Execution): Promise<RequestRecord | undefined> {
  return live(ex, (await ex.rt.context.storage.get(REQUESTS, ex.key)) as RequestRecord | undefined);
}

/** Planted bug "dedup-record-expires-early": records older than an hour are forgotten (re-executed). */
export function live(ex: Execution, record: RequestRecord | undefined): RequestRecord | undefined {
  if (!record || !ex.rt.gates.bug('dedup-record-expires-early')) return record;
  return ex.rt.context.currentTimeMillis() - record.createdAtMs > 3_600_000 ? undefined : record;
}

/** The app's atomic boundary (10-06), or the store's transaction when the app gave none. */
export function atomically<T>(
  rt: Runtime,
  label: string,
  body: (tx: StoreTransaction) => Promise<T>,
): Promise<T> {
  return rt.executor ? rt.executor.atomically(label, body) : rt.context.storage.transaction(label, body);
}

function rethrowToolFailure(error: unknown): never {
  if (error instanceof ToolFailure) {
    throw new WireFailure(error.code, { message: error.safeMessage, retryable: !isRecordedFailure(error) });
  }
  throw error;
}

/** Business outcomes that are R's terminal result; UNAVAILABLE and PERMISSION_DENIED are rejections. */
export function isRecordedFailure(failure: ToolFailure): boolean {
  return failure.code === 'CONFLICT' || failure.code === 'INVALID_ARGS';
}
