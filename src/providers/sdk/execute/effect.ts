/**
 * The `effect` and `result` steps (spec §6, §4.2, §4.4, §4.5, NOTES 3).
 *
 * A read runs its tool and checks the output (4.2-03). A write runs asynchronously when the session
 * and the tool allow it (operations.ts), else inside the mutation executor's atomic boundary
 * (10-06): the record is looked up again inside it (6-06), the approved confirmation consumed
 * (4.3-13), the effect, the output check and the terminal record committed together; a business
 * failure is R's recorded result, an outage or refusal rolls back (NOTES 3). `result` renders the
 * value inline or as a file result and records the audit event (7.2-07).
 */
import type { JsonValue } from '../../../base/json.ts';
import type { StoreTransaction } from '../../../sim/storage/storage.ts';
import { consumeConfirmation } from '../confirmations.ts';
import { acceptOperation } from '../operations.ts';
import {
  type ConfirmationRecord,
  newRequestRecord,
  type RequestRecord,
  readConfirmation,
  readRequest,
  withChanges,
  writeRequest,
} from '../records.ts';
import { errorBundle, WireFailure } from '../responses.ts';
import { audit } from '../runtime.ts';
import { isReadTool, type MutationTool, ToolFailure } from '../types.ts';
import { answerExisting, mayReplace } from './replay.ts';
import {
  answer,
  atomically,
  checkOutput,
  echo,
  effectNote,
  go,
  isRecordedFailure,
  respondWithValue,
  rethrowToolFailure,
  toolOf,
  who,
  withExecution,
} from './support.ts';
import type { Execution, Next } from './types.ts';

/** A synchronous execution reports no progress and is never asked to stop. */
async function neverStop(): Promise<boolean> {
  return false;
}

export async function runEffect(ex: Execution): Promise<Next> {
  const compiled = toolOf(ex);
  const tool = compiled.tool;
  if (isReadTool(tool)) {
    const value = await tool.read(ex.call).catch(rethrowToolFailure);
    checkOutput(ex.rt, compiled, value);
    return go(withExecution(ex, { value: { value, committed: false } }));
  }
  const async =
    tool.annotations.execution === 'sync_or_async' && ex.session.capabilities.includes('async_operations');
  if (async) return answer(await acceptOperation(ex, ex.confirmation));
  return runSync(ex, tool);
}

/** The reference lookup inside the effect's transaction: a record another call made first (6-06). */
export async function recheckRecord(ex: Execution, tx: StoreTransaction): Promise<RequestRecord | undefined> {
  const existing = ex.rt.parts.live(ex, await readRequest(tx, ex.key));
  return existing && !mayReplace(ex, existing) ? existing : undefined;
}

async function runSync(ex: Execution, tool: MutationTool): Promise<Next> {
  const { rt, confirmation } = ex;
  const { gates } = rt;
  let prepared: JsonValue = null;
  if (tool.prepare) {
    // The work control is built per call (not a module constant) so a mutation test can reach it.
    prepared = await tool.prepare(ex.call, { progress: neverStop }).catch(rethrowToolFailure);
    // A long preparation may outlive the call's deadline: check again right before the effect (4.1-14).
    // Without a prepare there is no scheduling point since the deadline step: nothing to check again.
    const late = await rt.parts.steps.deadline(ex);
    if ('answer' in late) return late;
  }
  let outcome: { existing: RequestRecord } | { value: JsonValue } | { failure: ToolFailure };
  try {
    outcome = await atomically(rt, `execute ${tool.name}`, async (tx) => {
      const existing = await rt.parts.recheck(ex, tx);
      if (existing) return { existing };
      if (confirmation) {
        const current = await readConfirmation(tx, confirmation.id);
        if (gates.on('CETP-4.3-13') && current?.state === 'consumed') {
          return { existing: (await readRequest(tx, ex.key)) as RequestRecord };
        }
        await consumeConfirmation(tx, confirmation);
      }
      const value = await tool.mutate(ex.call, tx, prepared);
      checkOutput(rt, toolOf(ex), value);
      effectNote(rt, tx, ex.caller.uid, ex.req.requestKey, tool, ex.call);
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
    // A temporary outage or a policy refusal rolls back and is not R's outcome (NOTES 3). Their
    // retryable flags are fixed by the §5 table (UNAVAILABLE yes, PERMISSION_DENIED no): no hint.
    if (!isRecordedFailure(error)) throw new WireFailure(error.code, { message: error.safeMessage });
    outcome = { failure: error };
  }
  if ('existing' in outcome) return answer(answerExisting(ex, outcome.existing));
  if ('failure' in outcome) return answer(await recordFailure(ex, outcome.failure, confirmation));
  return go(withExecution(ex, { value: { value: outcome.value, committed: true } }));
}

/** A business failure reached after reservation is R's terminal result (NOTES 3). */
async function recordFailure(ex: Execution, failure: ToolFailure, confirmation: ConfirmationRecord | null) {
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

/** Renders the value for this session and records the call's audit event. */
export function respond(ex: Execution): Next {
  const result = ex.value;
  if (result === null) throw new Error('execute_tool: the result step ran before the effect');
  audit(ex.rt, who(ex), {
    authorization: 'allowed',
    confirmation: ex.confirmation ? 'approved' : 'not_needed',
    outcome: 'succeeded',
  });
  return answer(respondWithValue(ex, result.value, result.committed));
}
