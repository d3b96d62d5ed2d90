/**
 * `execute_tool` (spec §4, §4.3, §6) as an ordered table of steps. The envelope, the session and
 * admission (max_concurrent_requests) come first, in provider.ts; then, in this order:
 *
 *   tool → args → key → scopes → grant → dedup → deadline → confirmation → effect → result
 *
 * `tool`: TOOL_NOT_FOUND for unknown and hidden tools (5-12, 7.2-01). `args`: size (4.1-08), input
 * schema and business validation (5-14, 7.3-04). `key`: the request record's key (6-02). `scopes`:
 * scopes and authorization (3.4-15, 7.2-03, 10-01); `grant`: a granted resume goes on as a fresh
 * request. `dedup`: the request record, looked up before any resume token is checked (NOTES 2).
 * `deadline`: before any reservation or effect (4.1-14, 10-03). `confirmation` (4.3-08).
 * `effect`: de-duplicated execution inside the mutation executor (6-01 … 6-07, 10-06), or an
 * operation (4.4). `result`: output schema (4.2-03) ⇒ inline or file result (4.5).
 *
 * Each step is a small function of the call's `Execution` that returns a value: carry on with what
 * it learned, or the answer. The steps are parts (`rt.parts.steps`), so a planted bug replaces or
 * wraps one from outside (planted.ts). A WireFailure thrown deeper (inside a transaction, where it
 * rolls the transaction back) is still answered as its error; any other exception in app code is
 * INTERNAL_ERROR with a generic message, never its text (5-24, 5-25).
 *
 * The spec's list reads deadline before tool; the reference checks it after the record lookup, so a
 * retry of a finished request past its deadline still gets its recorded answer (6-05). The order is
 * the trace corpus's: it did not change when this table replaced execute.ts.
 */
import type { Bundle } from '../../../sim/binder/bundle.ts';
import { errorBundle, WireFailure } from '../responses.ts';
import type { Session } from '../sessions.ts';
import type { CallerIdentity } from '../types.ts';
import { authorizeCall, settleGrantToken } from './authorize.ts';
import { confirmCall } from './confirm.ts';
import { checkDeadline, lookUpRecord } from './dedup.ts';
import { respond, runEffect } from './effect.ts';
import { checkArgs, findTool, keyRequest } from './request.ts';
import {
  type Execution,
  type Next,
  type Runtime,
  STEP_NAMES,
  type Steps,
  type ToolRequest,
} from './types.ts';

/** The reference steps. */
export const REFERENCE_STEPS: Steps = {
  tool: findTool,
  args: checkArgs,
  key: keyRequest,
  scopes: authorizeCall,
  grant: settleGrantToken,
  dedup: lookUpRecord,
  deadline: checkDeadline,
  confirmation: confirmCall,
  effect: runEffect,
  result: respond,
};

export async function executeTool(
  rt: Runtime,
  caller: CallerIdentity,
  session: Session,
  req: ToolRequest,
  extras: Bundle,
): Promise<Bundle> {
  let ex: Execution = {
    rt,
    caller,
    session,
    req,
    extras,
    compiled: null,
    call: { caller, requestId: req.requestId, requestKey: req.requestKey, args: null, context: rt.context },
    digest: '',
    key: '',
    pending: null,
    confirmation: null,
    value: null,
  };
  try {
    const steps = rt.parts.steps;
    let at = 0;
    while (at < STEP_NAMES.length) {
      const name = STEP_NAMES[at] as (typeof STEP_NAMES)[number];
      const step = steps[name](ex);
      // A synchronous step's answer is taken as is (no extra turn of the microtask queue).
      const next: Next = step instanceof Promise ? await step : step;
      if ('answer' in next) return next.answer;
      ex = next.go;
      if (next.skipTo === undefined) at += 1;
      else if (STEP_NAMES.indexOf(next.skipTo) > at) at = STEP_NAMES.indexOf(next.skipTo);
      else throw new Error(`execute_tool: step ${name} skipped back to ${next.skipTo}`);
    }
    throw new Error('execute_tool: no step answered');
  } catch (error) {
    if (error instanceof WireFailure)
      return errorBundle({ method: 'execute_tool', requestId: req.requestId }, error.code, error.init);
    // An exception in app code: INTERNAL_ERROR with a generic message, never its text (5-24, 5-25).
    rt.context.log('E', 'CetpProvider', `execute_tool ${req.toolName} failed: ${String(error)}`);
    return rt.parts.internalError({ rt, requestId: req.requestId }, error);
  }
}

/** The reference answer to an exception in app code: INTERNAL_ERROR, retryable, no details. */
export function internalError(
  ex: { readonly rt: Runtime; readonly requestId: string },
  _error: unknown,
): Bundle {
  return errorBundle({ method: 'execute_tool', requestId: ex.requestId }, 'INTERNAL_ERROR', {
    retryable: true,
  });
}
