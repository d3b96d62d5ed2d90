/**
 * What an execution ends with, as the agent sees it: a typed success carrying an UntrustedValue, or
 * a typed failure. Every outcome carries a user-safe `explanation` written by the consumer from a
 * fixed table — never the provider's text (4.2-05, 7.3-03). The provider's own error message, when
 * there is one, travels beside it as clipped UntrustedText, for display as a quotation only.
 */
import type { ErrorCode } from '../protocol/index.ts';
import type { UntrustedText, UntrustedValue } from './untrusted.ts';

/** Where an execution ran: the routing key (3.1-07) and the logical execution's ids. */
export interface OutcomeSource {
  readonly providerId: string;
  readonly tool: string;
  readonly executionId: string;
  /** The request_id of the logical execution; null for v1 calls and calls never sent. */
  readonly requestId: string | null;
}

export type IntegrityCheck =
  | 'size'
  | 'sha256'
  | 'output_schema'
  | 'over_local_limit'
  | 'media_type'
  | 'encoding'
  | 'read_error'
  | 'missing_fd'
  | 'fd_not_read_only';

export type ToolFailureBody =
  | { readonly kind: 'provider_unavailable'; readonly temporary: boolean; readonly retryAfterMs?: number }
  | { readonly kind: 'provider_not_found' }
  | { readonly kind: 'tool_not_found' }
  | { readonly kind: 'invalid_args'; readonly issues: readonly string[] }
  | { readonly kind: 'declined_locally' }
  | {
      readonly kind: 'rejected';
      readonly code: ErrorCode | 'UNRECOGNIZED';
      readonly providerMessage: UntrustedText | null;
    }
  | { readonly kind: 'user_cancelled' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'too_late_to_cancel'; readonly completed: ToolOutcome }
  | { readonly kind: 'integrity'; readonly check: IntegrityCheck }
  | { readonly kind: 'refused_resolution'; readonly reason: string }
  | { readonly kind: 'user_action_loop' }
  | { readonly kind: 'result_too_large'; readonly committed: boolean }
  | { readonly kind: 'result_expired' }
  | { readonly kind: 'outcome_unknown'; readonly reason: string }
  | { readonly kind: 'invalid_response'; readonly issues: readonly string[] };

export type ToolFailure = ToolFailureBody & OutcomeSource & { readonly explanation: string };

export type ToolSuccess = OutcomeSource & {
  readonly kind: 'ok';
  readonly untrusted: UntrustedValue;
  readonly explanation: string;
};

export type ToolOutcome = ToolSuccess | ToolFailure;

export type FailureKind = ToolFailureBody['kind'];

const CODE_EXPLANATIONS: Partial<Record<ErrorCode | 'UNRECOGNIZED', string>> = {
  PERMISSION_DENIED: 'The app does not allow this assistant to use that tool.',
  INVALID_ARGS: 'The app did not accept the request details. Change them before trying again.',
  INVALID_REQUEST: 'The app could not process the request.',
  CONFLICT: 'The app cannot do this in its current state.',
  TOOL_NOT_FOUND: 'That tool is not available in the app.',
  METHOD_NOT_FOUND: 'The app does not support that request.',
  UNSUPPORTED_VERSION: 'The app does not speak a compatible protocol version.',
  UNSUPPORTED_CAPABILITY: 'The app does not support that feature in this session.',
  RATE_LIMITED: 'The app is busy. Try again later.',
  UNAVAILABLE: 'The app is temporarily unavailable. Try again later.',
  DEADLINE_EXCEEDED: 'The app did not finish in time. Nothing more is known about the result.',
  INTERNAL_ERROR: 'Something went wrong inside the app.',
  AUTH_REQUIRED: 'The app needs you to sign in or grant access, and that could not be completed.',
  USER_ACTION_REQUIRED: 'The app needs your confirmation, and that could not be completed.',
  NEGOTIATION_REQUIRED: 'The connection to the app could not be set up again.',
  UNRECOGNIZED: 'The app reported an error this assistant does not recognise.',
};

/** The consumer's own, user-safe explanation of a failure (never provider text). */
export function explain(body: ToolFailureBody): string {
  switch (body.kind) {
    case 'provider_unavailable':
      return body.temporary
        ? 'The app is temporarily unavailable. Try again later.'
        : 'The app has been disabled for this assistant because it failed a protocol or security check.';
    case 'provider_not_found':
      return 'No app with that name offers tools to this assistant.';
    case 'tool_not_found':
      // Not the SDK's TOOL_NOT_FOUND message ("That tool is not available.", src/protocol/errors.ts): the
      // agent must be able to tell the consumer's words from provider text (agent-gets-data).
      return 'This app offers no tool by that name.';
    case 'invalid_args':
      return 'The request details are not valid for this tool.';
    case 'declined_locally':
      return 'You declined the action, so it was not sent to the app.';
    case 'rejected':
      return CODE_EXPLANATIONS[body.code] ?? 'The app refused the request.';
    case 'user_cancelled':
      return 'The action was cancelled in the app, so it was not carried out.';
    case 'cancelled':
      return 'The action was cancelled before it took effect.';
    case 'too_late_to_cancel':
      return 'It was too late to cancel: the app had already carried out the action.';
    case 'integrity':
      return 'The result from the app failed a safety check and was discarded.';
    case 'refused_resolution':
      return 'The app asked for a confirmation screen that could not be verified as its own, so it was not opened.';
    case 'user_action_loop':
      return 'The app kept asking for confirmation; the assistant stopped to avoid a loop.';
    case 'result_too_large':
      return body.committed
        ? 'The action was carried out, but its result was too large to return.'
        : 'The result was too large to return.';
    case 'result_expired':
      return 'The result is no longer available from the app.';
    case 'outcome_unknown':
      return 'The outcome is not known yet. It was not repeated; the assistant can check again later.';
    case 'invalid_response':
      return 'The app answered in a way that breaks the protocol, so its answer was discarded.';
  }
}

export function failure(source: OutcomeSource, body: ToolFailureBody): ToolFailure {
  return Object.assign({}, body, source, { explanation: explain(body) }) as ToolFailure;
}

export function success(source: OutcomeSource, untrusted: UntrustedValue): ToolSuccess {
  return {
    kind: 'ok',
    ...source,
    untrusted,
    explanation: 'The app returned a result (untrusted data).',
  };
}

/** Failure kinds after which the logical execution may still have an effect no one has observed. */
export function isOutcomeOpen(outcome: ToolOutcome): boolean {
  return outcome.kind === 'outcome_unknown';
}
