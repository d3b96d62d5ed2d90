/**
 * The `confirmation` step (spec §4.3, NOTES 2): whether the user must approve this call first, and
 * resuming a call the user was asked about.
 *
 * A read tool with confirmation 'always' is confirmed without a record. A write that needs
 * confirmation (4.3-08, 3.4-09, 3.4-12) is reserved as pending_confirmation with a fresh
 * confirmation (USER_ACTION_REQUIRED); the same request again gets the same resolution (6-07); its
 * resume — bound to caller, request, tool and args — goes on to the effect once approved (after its
 * own deadline), is USER_CANCELLED once denied, and is asked again once the confirmation expired.
 */
import { consumeConfirmation, createConfirmation } from '../confirmations.ts';
import {
  type ConfirmationRecord,
  isTerminal,
  newRequestRecord,
  type RequestRecord,
  readRequest,
  withChanges,
  writeRequest,
} from '../records.ts';
import { errorBundle } from '../responses.ts';
import { audit } from '../runtime.ts';
import { isReadTool, type MutationTool } from '../types.ts';
import { answerExisting, invalidResumeToken, mayReplace, otherRequest, replayRecord } from './replay.ts';
import { openResolution, resolutionBundle, resolutionRequest, resumeUnrecorded } from './resolution.ts';
import {
  answer,
  atomically,
  binding,
  committedRecord,
  echo,
  go,
  refuse,
  toolOf,
  who,
  withExecution,
} from './support.ts';
import type { Execution, Next } from './types.ts';

/** One turn of settling a write's confirmation: its outcome, or a record another call made first. */
type Turn = { readonly next: Next } | { readonly existing: RequestRecord };

export function confirmCall(ex: Execution): Next | Promise<Next> {
  const tool = toolOf(ex).tool;
  if (
    isReadTool(tool)
      ? tool.annotations.confirmation !== 'always'
      : ex.pending === null && !ex.rt.parts.needsConfirmation(ex, tool)
  ) {
    return go(ex);
  }
  return confirm(ex);
}

async function confirm(ex: Execution): Promise<Next> {
  const tool = toolOf(ex).tool;
  if (isReadTool(tool)) {
    const confirmed = ex.req.resumeToken !== undefined ? await resumeUnrecorded(ex, 'confirm') : 'expired';
    if (confirmed === 'approved') return go(ex);
    if (confirmed !== 'expired') return answer(confirmed);
    return answer(await openResolution(ex, 'confirm', [], null));
  }
  let turn: Turn =
    ex.pending === null ? await reserve(ex, tool, false) : await onRecord(ex, tool, ex.pending);
  // A reservation can find a record another call under this request_id made meanwhile.
  while ('existing' in turn) turn = await onRecord(ex, tool, turn.existing);
  return turn.next;
}

/** The reference decision: 'always', or the tool says so for these args (4.3-08, 3.4-09, 3.4-12). */
export function needsConfirmation(ex: Execution, tool: MutationTool): boolean {
  const { gates } = ex.rt;
  return (
    gates.on('CETP-4.3-08', 'CETP-3.4-09') &&
    (tool.annotations.confirmation === 'always' ||
      (gates.on('CETP-3.4-12') && (tool.needsConfirmation?.(ex.call) ?? false)))
  );
}

/** This request's record, found by the lookup or by a reservation (6-04 … 6-07, NOTES 1–3, 10, 11). */
async function onRecord(ex: Execution, tool: MutationTool, record: RequestRecord): Promise<Turn> {
  const { rt } = ex;
  const other = otherRequest(ex, record);
  if (other) return { next: refuse(ex, other) };
  if (isTerminal(record.state) || record.state === 'queued' || record.state === 'running') {
    return { next: answer(replayRecord(ex, record)) };
  }
  // pending_confirmation
  const current = record.confirmationId
    ? ((await rt.context.storage.get('cetp.confirmations', record.confirmationId)) as
        | ConfirmationRecord
        | undefined)
    : undefined;
  if (ex.req.resumeToken === undefined) {
    if (current) return { next: answer(resolutionBundle(ex, current)) };
    return reserve(ex, tool, false);
  }
  return resume(ex, tool);
}

async function resume(ex: Execution, tool: MutationTool): Promise<Turn> {
  const { rt } = ex;
  const { gates } = rt;
  const token = ex.req.resumeToken as string;
  const verdict = await atomically(rt, 'check resume', async (tx) => {
    const check = await rt.parts.checkResumeToken(tx, token, binding(ex), gates);
    if (!check.ok && 'invalid' in check) return { invalid: check.invalid };
    const record = await readRequest(tx, ex.key);
    if (record?.state !== 'pending_confirmation') return { again: true };
    if (!check.ok) return { expired: true };
    if (check.record.id !== record.confirmationId)
      return { invalid: 'a newer confirmation replaced this one' };
    if (rt.parts.approves(check.record)) return { approved: check.record };
    await consumeConfirmation(tx, check.record);
    await writeRequest(
      tx,
      ex.key,
      withChanges(record, { state: 'user_cancelled', terminalAtMs: rt.context.currentTimeMillis() }),
    );
    return { cancelled: true };
  });
  if ('invalid' in verdict) {
    return { next: refuse(ex, invalidResumeToken(verdict.invalid)) };
  }
  if ('again' in verdict) {
    const record = await committedRecord(ex);
    if (record) return { next: answer(answerExisting(ex, record)) };
    return { next: refuse(ex, invalidResumeToken('no such pending request')) };
  }
  if ('expired' in verdict) {
    audit(rt, who(ex), { confirmation: 'expired', outcome: 'USER_ACTION_REQUIRED' });
    return reserve(ex, tool, true);
  }
  if ('cancelled' in verdict) {
    audit(rt, who(ex), { confirmation: 'denied', outcome: 'user_cancelled' });
    return { next: answer(errorBundle(echo(ex), 'USER_CANCELLED')) };
  }
  // Approved: the resume call's own deadline, then the effect (consuming the token atomically with it).
  const approved = withExecution(ex, { pending: null, confirmation: verdict.approved });
  const late = await rt.parts.steps.deadline(approved);
  return { next: 'answer' in late ? late : go(approved) };
}

/** Reserves R as pending_confirmation with a fresh confirmation: USER_ACTION_REQUIRED. */
async function reserve(ex: Execution, tool: MutationTool, replace: boolean): Promise<Turn> {
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
  if ('existing' in outcome) return { existing: outcome.existing };
  audit(rt, who(ex), {
    authorization: 'allowed',
    confirmation: 'requested',
    outcome: 'USER_ACTION_REQUIRED',
  });
  return { next: answer(resolutionBundle(ex, outcome.confirmation)) };
}
