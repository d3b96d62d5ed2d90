/**
 * The consumer's structured audit events, for the checkers that read a finished run's trace. They
 * are recorded with AppContext.audit (trace kind 'app.audit', actor = the consumer package) and hold
 * ids, names and outcomes only — never args, results or provider text.
 *
 * - execution.start    a logical execution begins (one per execution_id, whatever restarts follow)
 * - execution.resumed  a restarted consumer picks a journaled execution up again
 * - execution.attempt  every call sent for an execution, with its reason
 * - execution.end      its outcome kind and error code
 * - provider.disabled  a provider refused or disabled (temporary = merely unavailable for now)
 * - provider.v1        a provider is used through CETP v1
 * - provider.ready     a v2 session was negotiated (capabilities, tool revision)
 */

import type { JsonObject } from '../base/json.ts';
import type { AppContext } from '../sim/app/context.ts';

export type AttemptReason = 'first' | 'retry' | 'resume' | 'poll' | 'cancel' | 'query';

export type ConsumerAuditEvent =
  | {
      readonly event: 'execution.start';
      readonly execution_id: string;
      readonly provider_id: string;
      readonly tool: string;
      readonly request_id: string | null;
      readonly effect: string;
      readonly version: number;
    }
  | {
      readonly event: 'execution.resumed';
      readonly execution_id: string;
      readonly provider_id: string;
      readonly tool: string;
      readonly request_id: string;
    }
  | {
      readonly event: 'execution.attempt';
      readonly execution_id: string;
      readonly request_id: string | null;
      readonly method: string;
      readonly attempt: number;
      readonly reason: AttemptReason;
    }
  | {
      readonly event: 'execution.end';
      readonly execution_id: string;
      readonly request_id: string | null;
      readonly outcome: string;
      readonly error_code: string | null;
    }
  | {
      readonly event: 'provider.disabled';
      readonly package: string;
      readonly provider_id: string | null;
      readonly reason: string;
      readonly temporary: boolean;
    }
  | { readonly event: 'provider.v1'; readonly package: string; readonly authority: string }
  | {
      readonly event: 'provider.ready';
      readonly package: string;
      readonly provider_id: string;
      readonly capabilities: readonly string[];
      readonly revision: string;
    };

export function recordAudit(context: AppContext, event: ConsumerAuditEvent): void {
  context.audit({ ...event } as unknown as JsonObject);
}
