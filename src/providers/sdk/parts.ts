/**
 * The reference provider's named parts (execute/types.ts `Parts`): each the one place its decision
 * is made. A planted bug (planted.ts) substitutes one of them; the reference has none substituted.
 */
import { checkResumeToken, resolutionFor } from './confirmations.ts';
import { needsConfirmation } from './execute/confirm.ts';
import { refuseStrayResume } from './execute/dedup.ts';
import { recheckRecord } from './execute/effect.ts';
import { internalError, REFERENCE_STEPS } from './execute/index.ts';
import type { Parts } from './execute/types.ts';
import { cancelFinished, ownsOperation, storeOperation } from './operations.ts';
import { recordKey } from './records.ts';
import { releaseResultFd } from './results.ts';
import { sessionOwnedBy } from './sessions.ts';
import { v1Tools } from './v1.ts';

export const REFERENCE_PARTS: Parts = {
  steps: REFERENCE_STEPS,
  // The calling UID is read synchronously, before any await (7.1-01).
  enter: (context, dispatch) => dispatch(context.binder.getCallingUid()),
  recordKey,
  sameRequest: (ex, record) =>
    !ex.rt.gates.on('CETP-6-04', 'CETP-6-03') ||
    (record.tool === ex.req.toolName && record.argsDigest === ex.digest),
  // Records are kept for the whole idempotency window (RESULT_EXPIRED after it, execute/replay.ts).
  live: (_ex, record) => record,
  recheck: recheckRecord,
  checkResumeToken,
  strayResume: refuseStrayResume,
  approves: (confirmation) => confirmation.state === 'approved',
  needsConfirmation,
  resolutionIntent: resolutionFor,
  internalError,
  storeOperation,
  ownsOperation,
  cancelFinished,
  sessionOwnedBy,
  v1Tools,
  releaseResultFd,
  rateLimited: () => ({ retryAfterMs: 1_000 }),
};
