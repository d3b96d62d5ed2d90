/**
 * The provider's switchable readings of ambiguous spec points (src/protocol/readings.ts lists them
 * with the notes and rule ids that allow each; spec/interpretations.md explains the reference's).
 * Like a planted bug, a reading is a substitution of named parts (execute/types.ts `Parts`), never a
 * branch inside the reference code; unlike one, every reading here is defensible from the spec. The
 * reference readings substitute nothing. `argsDigest` and `sessionMisuse` are read where they apply
 * (execute/request.ts, provider.ts), as they were before this table.
 */

import { windowPassed } from './execute/replay.ts';
import { findToolSeenOrNot } from './execute/request.ts';
import { atomically, binding, committedRecord, deadlineFailure, refuse, toolOf } from './execute/support.ts';
import type { Execution, Next, Parts, Step } from './execute/types.ts';
import { withChanges } from './records.ts';
import { acceptedBundle, WireFailure } from './responses.ts';
import { isReadTool, type ProviderVariants } from './types.ts';

function swap(parts: Parts, changes: Partial<Parts>): Parts {
  return Object.assign({}, parts, changes);
}

/** Wraps the `dedup` step (the record lookup) with `around`. */
function aroundDedup(parts: Parts, around: (ex: Execution, dedup: Step) => Promise<Next>): Parts {
  const dedup = parts.steps.dedup;
  return swap(parts, {
    steps: Object.assign({}, parts.steps, { dedup: (ex: Execution) => around(ex, dedup) }),
  });
}

/** NOTES 2, `consumedToken: 'refuse'`: the resume token is checked before the record is looked up. */
function tokenFirst(parts: Parts): Parts {
  return aroundDedup(parts, async (ex, dedup) => {
    const token = ex.req.resumeToken;
    if (token !== undefined && !isReadTool(toolOf(ex).tool)) {
      const check = await atomically(ex.rt, 'check resume token first', (tx) =>
        ex.rt.parts.checkResumeToken(tx, token, binding(ex), ex.rt.gates),
      );
      if (!check.ok && 'invalid' in check)
        return refuse(
          ex,
          new WireFailure('INVALID_REQUEST', { message: `Invalid resume_token: ${check.invalid}.` }),
        );
    }
    return dedup(ex);
  });
}

/** NOTES 5, `deadlineCheck: 'first'`: an expired deadline is refused before the record is looked up (10-03). */
function deadlineFirst(parts: Parts): Parts {
  return aroundDedup(parts, async (ex, dedup) => {
    const failure = deadlineFailure(ex);
    if (failure) return refuse(ex, failure);
    return dedup(ex);
  });
}

/** NOTES 10c, `cancelledReplay: 'accepted'`: a replay of a cancelled operation's request answers `accepted`. */
function cancelledAccepted(parts: Parts): Parts {
  return aroundDedup(parts, async (ex, dedup) => {
    const next = await dedup(ex);
    if (!('answer' in next) || next.answer.getString('error_code') !== 'CANCELLED') return next;
    const record = await committedRecord(ex);
    if (record?.state !== 'cancelled' || !record.operationId) return next;
    return { answer: acceptedBundle(ex.req.requestId, record.operationId, ex.rt.options.pollAfterMs) };
  });
}

/** NOTES 16, `expiredToken: 'invalid_request'`: an expired token is refused, not asked about again. */
function expiredRefused(parts: Parts): Parts {
  const check = parts.checkResumeToken;
  return swap(parts, {
    checkResumeToken: async (tx, token, bound, gates, allowConsumed) => {
      const result = await check(tx, token, bound, gates, allowConsumed);
      if (!result.ok && 'expired' in result)
        return { ok: false, invalid: 'resume_token has expired', ruleIds: ['CETP-4.3-06'] };
      return result;
    },
  });
}

/** NOTES 11, `windowStart: 'receipt'`: the idempotency window counts from the request's first receipt. */
function windowFromReceipt(parts: Parts): Parts {
  return onLiveRecord(parts, (ex, record) => {
    const end = record.createdAtMs + ex.session.limits.idempotencyWindowSeconds * 1000;
    // execute/replay.ts answers RESULT_EXPIRED once now > terminalAtMs + window.
    return ex.rt.context.currentTimeMillis() > end
      ? withChanges(record, { terminalAtMs: record.createdAtMs })
      : record;
  });
}

/** `parts` whose live request record (one the reference finds live) goes through `change` first. */
function onLiveRecord(
  parts: Parts,
  change: (
    ex: Parameters<Parts['live']>[0],
    record: NonNullable<ReturnType<Parts['live']>>,
  ) => ReturnType<Parts['live']>,
): Parts {
  const live = parts.live;
  return swap(parts, {
    live: (ex, found) => {
      const record = live(ex, found);
      return record ? change(ex, record) : record;
    },
  });
}

/**
 * NOTES 11, `afterWindow: 're_execute'` (a proposed reading: what a wording that lets a provider
 * forget a request after its window allows): a record whose window passed is not found, so a same-id
 * request is a new one and runs again.
 */
function forgetAfterWindow(parts: Parts): Parts {
  return onLiveRecord(parts, (ex, record) =>
    windowPassed(ex.rt, ex.session.limits.idempotencyWindowSeconds, record) ? undefined : record,
  );
}

/*
 * NOTES 14, `hiddenTool: 'scope_error'` (execute/request.ts `findToolSeenOrNot`): the `tool` step
 * finds a tool the caller cannot see, so the authorization step answers the missing scope (3.4-15).
 */

/** The parts with the provider's readings substituted (the reference readings change nothing). */
export function applyReadings(parts: Parts, variants: ProviderVariants): Parts {
  let p = parts;
  if (variants.consumedToken === 'refuse') p = tokenFirst(p);
  if (variants.deadlineCheck === 'first') p = deadlineFirst(p);
  if (variants.cancelledReplay === 'accepted') p = cancelledAccepted(p);
  if (variants.expiredToken === 'invalid_request') p = expiredRefused(p);
  if (variants.windowStart === 'receipt') p = windowFromReceipt(p);
  if (variants.afterWindow === 're_execute') p = forgetAfterWindow(p);
  if (variants.hiddenTool === 'scope_error')
    p = swap(p, { steps: Object.assign({}, p.steps, { tool: findToolSeenOrNot }) });
  if (variants.cancelFinished === 'accept') p = swap(p, { cancelFinished: async () => 'requested' as const });
  return p;
}
