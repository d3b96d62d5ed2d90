/**
 * The provider SDK's planted bugs: small, realistic mistakes the fuzzer switches on by name
 * (`plantedBugs`), each declared here with what it stands for and how it is planted — a function
 * that replaces or wraps one named part of the reference provider (execute/types.ts `Parts`). The
 * reference parts have no bug branches; src/fuzz/mutants.ts names the rules each bug breaks and the
 * properties that must catch it.
 */

import type { JsonObject } from '../../base/json.ts';
import { type PlantedBugOf, plantNamed, swapParts } from '../../base/plant.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { Intent } from '../../sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../../sim/ui/pending-intent.ts';
import { CONFIRM_ACTIVITY, checkResumeToken } from './confirmations.ts';
import { atomically, binding, go, toolOf, withExecution } from './execute/support.ts';
import type { Execution, Next, Parts } from './execute/types.ts';
import { withChanges, writeRequest } from './records.ts';
import { WireFailure } from './responses.ts';
import { isReadTool } from './types.ts';

export type PlantedBug = PlantedBugOf<Parts>;

const swap = swapParts<Parts>;

export const PROVIDER_PLANTED_BUGS = {
  'dedup-check-then-insert': {
    description:
      'the dedup record is looked up outside the atomic boundary, so concurrent duplicates both execute',
    plant: (p) => swap(p, { recheck: async () => undefined }),
  },
  'dedup-key-without-uid': {
    description:
      "the dedup key omits the calling UID: one app gets another app's result for the same request_id",
    plant: (p) => swap(p, { recordKey: (_uid, providerId, key) => `*|${providerId}|${key}` }),
  },
  'dedup-ignores-args': {
    description:
      'a reused request_id with different args replays the first result instead of INVALID_REQUEST',
    plant: (p) => swap(p, { sameRequest: () => true }),
  },
  'dedup-record-expires-early': {
    description: 'dedup records are forgotten after an hour, so a late retry executes again',
    plant: (p) =>
      swap(p, {
        live: (ex, record) =>
          record && ex.rt.context.currentTimeMillis() - record.createdAtMs > 3_600_000 ? undefined : record,
      }),
  },
  'uid-after-await': {
    description: "Binder.getCallingUid() is read after an await, where it is the provider's own UID",
    plant: (p) =>
      swap(p, {
        enter: async (context, dispatch) => {
          await context.yield();
          return dispatch(context.binder.getCallingUid());
        },
      }),
  },
  'resume-token-reusable': {
    description:
      'the resume token is bound only to the tool and never used up: one approval runs several requests',
    plant: (p) =>
      swap(p, {
        checkResumeToken: (tx, token, bound, gates, allowConsumed) =>
          checkResumeToken(tx, token, bound, gates, allowConsumed, { bindsRequest: false, singleUse: false }),
        // An approved (or used) token sent with a request it was never issued for runs that request.
        strayResume: async (ex): Promise<Next> => {
          const { rt } = ex;
          const reused = await atomically(rt, 'check stray token', async (tx) => {
            const check = await rt.parts.checkResumeToken(
              tx,
              ex.req.resumeToken as string,
              binding(ex),
              rt.gates,
            );
            if (check.ok && ['approved', 'consumed'].includes(check.record.state)) return check.record;
            if (!check.ok && 'invalid' in check)
              throw new WireFailure('INVALID_REQUEST', {
                message: `Invalid resume_token: ${check.invalid}.`,
              });
            throw new WireFailure('INVALID_REQUEST', {
              message: 'Invalid resume_token: no such pending request.',
            });
          });
          return { go: withExecution(ex, { confirmation: reused }), skipTo: 'effect' };
        },
      }),
  },
  'effect-before-approval': {
    description: 'a resume executes while the confirmation is still pending (the user has not decided)',
    plant: (p) => swap(p, { approves: (c) => p.approves(c) || c.state === 'pending' }),
  },
  'trust-confirmed-flag': {
    description: 'a consumer-sent "confirmed" boolean skips the provider\'s confirmation',
    plant: (p) =>
      swap(p, {
        needsConfirmation: (ex, tool) =>
          !ex.extras.getBoolean('confirmed', false) && p.needsConfirmation(ex, tool),
      }),
  },
  'deadline-after-effect': {
    description: 'the deadline is checked after the effect instead of before it',
    plant: (p) =>
      swap(p, {
        steps: Object.assign({}, p.steps, {
          // Reads keep their check; a write's moves from before the effect to after it.
          deadline: (ex: Execution) => (isReadTool(toolOf(ex).tool) ? p.steps.deadline(ex) : go(ex)),
          result: async (ex: Execution) => {
            if (ex.value?.committed) {
              const late = await p.steps.deadline(ex);
              if ('answer' in late) return late;
            }
            return p.steps.result(ex);
          },
        }),
      }),
  },
  'confirmation-pi-collides': {
    description:
      'every confirmation uses the same PendingIntent (identity ignores extras), so screens get mixed up',
    plant: (p) =>
      swap(p, {
        // The id only in extras: every confirmation shares one PendingIntent, and one token.
        resolutionIntent: (context, record) => {
          const intent = Intent.explicit(context.packageName, CONFIRM_ACTIVITY, {});
          intent.extras.putString('confirmation_id', record.id);
          return context.getActivityPendingIntent(0, intent, FLAG_IMMUTABLE);
        },
      }),
  },
  'cancel-after-commit': {
    description: 'cancel_operation on a committed operation reports it cancelled',
    plant: (p) =>
      swap(p, {
        cancelFinished: async (tx, key, record) => {
          await writeRequest(tx, key, withChanges(record, { state: 'cancelled' }));
          return 'requested';
        },
      }),
  },
  'operations-in-memory': {
    description:
      'operation state is kept in memory until commit, so a restart loses queued and running operations',
    plant: (p) =>
      swap(p, {
        storeOperation: async (rt, _tx, operationId, record, index) => {
          rt.memoryOperations.set(operationId, { record, index } as unknown as JsonObject);
        },
      }),
  },
  'operation-not-bound-to-uid': {
    description: 'get_operation and cancel_operation do not check the caller owns the operation',
    plant: (p) => swap(p, { ownsOperation: () => true }),
  },
  'session-not-bound-to-uid': {
    description: 'a session token works for any UID that presents it',
    plant: (p) => swap(p, { sessionOwnedBy: () => true }),
  },
  'session-keyed-by-app': {
    description:
      'a session is bound to the calling app (its package: the appId), not the UID: the same package in another Android user uses it',
    plant: (p) =>
      swap(p, { sessionOwnedBy: (_gates, session, uid) => session.uid % 100_000 === uid % 100_000 }),
  },
  'v1-lists-write-tools': {
    description: 'the v1 list_tools of a dual-stack provider lists its write tools too',
    plant: (p) => swap(p, { v1Tools: (rt) => [...rt.catalogue.tools.values()] }),
  },
  'provider-fd-leak': {
    description: "the provider never closes its own copy of a file result's fd",
    plant: (p) => swap(p, { releaseResultFd: () => {} }),
  },
  'internal-error-leaks-stack': {
    description: 'an exception in tool code is sent as INTERNAL_ERROR with its stack trace and paths',
    plant: (p) => swap(p, { internalError: (ex, error) => leakyInternalError(ex.requestId, error) }),
  },
  'rate-limited-not-retryable': {
    description: 'RATE_LIMITED is sent as not retryable, so a consumer gives up instead of waiting',
    plant: (p) => swap(p, { rateLimited: () => Object.assign({}, p.rateLimited(), { retryable: false }) }),
  },
} as const satisfies Record<string, PlantedBug>;

export type ProviderBug = keyof typeof PROVIDER_PLANTED_BUGS;

export function isProviderBug(name: string): name is ProviderBug {
  return Object.hasOwn(PROVIDER_PLANTED_BUGS, name);
}

/** `parts` with each named bug planted, in catalogue order; an unknown name is a RangeError. */
export function plantBugs(parts: Parts, names: Iterable<string>): Parts {
  return plantNamed(PROVIDER_PLANTED_BUGS, parts, names, 'provider planted bug');
}

/** Planted bug "internal-error-leaks-stack": an error Bundle built by hand around the exception. */
function leakyInternalError(requestId: string, error: unknown): Bundle {
  const b = new Bundle();
  b.putString('status', 'error');
  b.putString('error_code', 'INTERNAL_ERROR');
  b.putString(
    'error_message',
    error instanceof Error
      ? `${error.name}: ${error.message}\n${checkoutFree(error.stack ?? '')}`
      : String(error),
  );
  b.putBoolean('retryable', true);
  b.putInt('protocol_version', 2);
  b.putString('request_id', requestId);
  return b;
}

/**
 * The leaked stack with the directories above the code replaced by `/<checkout>`: it still leaks frames
 * and paths, but the trace of a run no longer depends on where the repository was cloned.
 */
function checkoutFree(stack: string): string {
  return stack.replace(
    /(?:file:\/\/)?\/[^\s():]*?\/(?=(?:src|dist|properties|examples|test|node_modules)\/)/g,
    '/<checkout>/',
  );
}
