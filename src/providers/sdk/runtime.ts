/**
 * What one running provider process holds: its context, validated catalogue, options and gates,
 * in-memory sessions, the app's authorization policy and mutation executor, per-UID in-flight
 * counts, running operation workers, and the audit sink. Passed explicitly to each pipeline step.
 */

import type { JsonObject } from '../../base/json.ts';
import type { AppContext } from '../../sim/context.ts';
import type { Task } from '../../sim/scheduler.ts';
import type { Catalogue } from './catalogue.ts';
import type { Gates } from './gates.ts';
import type { SessionTable } from './sessions.ts';
import type {
  AccessDecision,
  AuthorizationRequest,
  CetpProviderDescriptor,
  MutationExecutor,
  ProviderOptions,
} from './types.ts';

export interface Runtime {
  readonly context: AppContext;
  readonly descriptor: CetpProviderDescriptor;
  readonly catalogue: Catalogue;
  readonly options: ProviderOptions;
  readonly gates: Gates;
  readonly sessions: SessionTable;
  readonly executor: MutationExecutor | null;
  authorize(request: AuthorizationRequest): Promise<AccessDecision>;
  /** In-flight execute_tool calls per calling UID (for max_concurrent_requests). */
  readonly inFlight: Map<number, number>;
  readonly workers: Map<string, Task>;
  /** Operations of the planted bug "operations-in-memory". */
  readonly memoryOperations: Map<string, JsonObject>;
}

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
