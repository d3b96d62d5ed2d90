/**
 * The `dedup` and `deadline` steps (spec §6, §4.1).
 *
 * `dedup` looks the request record up, before any resume token is checked (NOTES 2): a read is not
 * recorded, but an id already bound to a write stays bound to it (6-04); a write's own record is
 * answered from — its result, error, operation or INVALID_REQUEST for other args (6-03 … 6-07) —
 * unless it is this request's reservation pending confirmation, which the `confirmation` step
 * resumes; a resume token of a request this caller never reserved is INVALID_REQUEST.
 *
 * `deadline` refuses work whose deadline passed before any reservation or effect (4.1-14, 10-03).
 * A resume of a pending write is checked once its confirmation is approved (the `confirmation` step
 * runs this step again then), and a long `prepare` is followed by another check (the `effect` step).
 */
import { isReadTool } from '../types.ts';
import { invalidResumeToken, otherRequest, replayRecord, reusedRequestId } from './replay.ts';
import {
  answer,
  atomically,
  binding,
  committedRecord,
  deadlineFailure,
  go,
  refuse,
  toolOf,
  withExecution,
} from './support.ts';
import type { Execution, Next } from './types.ts';

export async function lookUpRecord(ex: Execution): Promise<Next> {
  const tool = toolOf(ex).tool;
  const existing = await committedRecord(ex);
  if (isReadTool(tool)) {
    if (
      existing &&
      ex.rt.gates.on('CETP-6-04') &&
      (existing.tool !== ex.req.toolName || existing.argsDigest !== ex.digest)
    ) {
      return refuse(ex, reusedRequestId());
    }
    return go(ex);
  }
  if (existing) {
    const other = otherRequest(ex, existing);
    if (other) return refuse(ex, other);
    // Terminal, queued or running: its answer. Only a reservation pending confirmation goes on.
    if (existing.state !== 'pending_confirmation') return answer(replayRecord(ex, existing));
    return go(withExecution(ex, { pending: existing }));
  }
  if (ex.req.resumeToken !== undefined) return ex.rt.parts.strayResume(ex);
  return go(ex);
}

/** A confirmation token for a request this caller never reserved: INVALID_REQUEST. */
export async function refuseStrayResume(ex: Execution): Promise<Next> {
  const { rt } = ex;
  return atomically(rt, 'check stray token', async (tx) => {
    const check = await rt.parts.checkResumeToken(tx, ex.req.resumeToken as string, binding(ex), rt.gates);
    throw invalidResumeToken(!check.ok && 'invalid' in check ? check.invalid : 'no such pending request');
  });
}

export function checkDeadline(ex: Execution): Next {
  if (ex.pending !== null) return go(ex); // checked once the resume is approved
  const failure = deadlineFailure(ex);
  return failure ? refuse(ex, failure) : go(ex);
}
