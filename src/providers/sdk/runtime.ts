/**
 * The audit sink of a running provider (7.2-07, 10-14). `Runtime` — what one provider process
 * holds — is declared with the pipeline's other shared types in execute/types.ts.
 */

import type { Runtime } from './execute/types.ts';

export type { Runtime } from './execute/types.ts';

/**
 * Audit events (7.2-07, 10-14): caller, tool, request id, authorization and confirmation outcome,
 * terminal state — never args or results. Recorded in the trace, the simulation's audit sink.
 */
export interface AuditSubject {
  readonly uid: number;
  readonly packages: readonly string[];
  readonly tool: string;
  readonly requestId: string;
}

export interface AuditOutcome {
  readonly authorization?: 'allowed' | 'auth_required' | 'denied';
  readonly confirmation?: 'not_needed' | 'requested' | 'approved' | 'denied' | 'expired';
  readonly outcome: string;
}

export function audit(runtime: Runtime, subject: AuditSubject, event: AuditOutcome): void {
  runtime.context.audit({
    provider: runtime.descriptor.providerId,
    uid: subject.uid,
    packages: [...subject.packages],
    tool: subject.tool,
    request_id: subject.requestId,
    authorization: event.authorization ?? null,
    confirmation: event.confirmation ?? null,
    outcome: event.outcome,
  });
}
