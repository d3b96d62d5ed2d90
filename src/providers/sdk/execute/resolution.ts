/**
 * Resolutions of a call (spec §4.3, §7.2): opening a confirmation or scope grant — a durable
 * record behind a resume token and a PendingIntent, answered USER_ACTION_REQUIRED / AUTH_REQUIRED —
 * and resuming one that has no request record (a scope grant, or the confirmation of a read tool).
 */
import type { Bundle } from '../../../sim/binder/bundle.ts';
import { consumeConfirmation, createConfirmation, type ResolutionRequest } from '../confirmations.ts';
import { identityFingerprint } from '../identity.ts';
import type { ConfirmationKind, ConfirmationRecord } from '../records.ts';
import { errorBundle } from '../responses.ts';
import { audit } from '../runtime.ts';
import type { ConfirmationText, MutationTool } from '../types.ts';
import { invalidResumeToken } from './replay.ts';
import { atomically, binding, echo, who } from './support.ts';
import type { Execution } from './types.ts';

/** What a resolution of this call is bound to: caller, identity, request, tool and args (4.3-04 … 4.3-14). */
export function resolutionRequest(
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
    requestId: ex.req.requestKey,
    tool: ex.req.toolName,
    argsDigest: ex.digest,
    text,
    scopes,
  };
}

/** Opens a confirmation or grant resolution: USER_ACTION_REQUIRED / AUTH_REQUIRED with a PendingIntent. */
export async function openResolution(
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

export function resolutionBundle(ex: Execution, record: ConfirmationRecord): Bundle {
  const resolution = ex.rt.parts.resolutionIntent(ex.rt.context, record);
  return errorBundle(echo(ex), record.kind === 'grant' ? 'AUTH_REQUIRED' : 'USER_ACTION_REQUIRED', {
    retryable: false,
    resumeToken: record.token,
    resolution,
    details: { resolution: record.kind === 'grant' ? 'grant_scopes' : 'confirm', scopes: record.scopes },
  });
}

/**
 * A resume of a resolution that has no request record (a scope grant, or the confirmation of a read
 * tool): 'approved' once the token is consumed, 'expired', or the Bundle to answer with.
 */
export async function resumeUnrecorded(
  ex: Execution,
  kind: ConfirmationKind,
): Promise<'approved' | 'expired' | Bundle> {
  const { rt, req } = ex;
  const token = req.resumeToken as string;
  return atomically(rt, 'resume', async (tx) => {
    // A consumed token re-sent by its own request (bound to caller, request, tool and args above) is
    // a retry after a lost reply: it gets the decision it already had, never a second prompt (NOTES 2).
    const check = await rt.parts.checkResumeToken(tx, token, binding(ex), rt.gates, true);
    if (!check.ok && 'invalid' in check) throw invalidResumeToken(check.invalid);
    if (!check.ok) return 'expired' as const;
    if (check.record.kind !== kind) {
      throw invalidResumeToken('it resolves another step');
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
