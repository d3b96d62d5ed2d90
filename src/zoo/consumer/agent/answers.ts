/**
 * What the agent gets back: typed answers, never provider text it could take for an instruction.
 *
 * Everything a provider says — tool titles and descriptions, error messages, results — reaches the
 * agent only inside an object marked `trust: "untrusted"` (CETP-4.2-04, 4.2-05, 7.3-03, 1-01), and
 * text is cleaned and clipped first (7.3-01). The `explanation` of every answer is ours, from a
 * fixed table. The shapes are those of cetp-sim's `ToolOutcome` (the oracles read `kind`,
 * `requestId`, `code` and `untrusted`), written here from scratch.
 */
import type { JsonValue, ToolSuccess } from '../../../index.ts';

export interface UntrustedText {
  readonly trust: 'untrusted';
  readonly text: string;
}

/** A provider's result as the agent gets it: the reference consumer's shape, which the oracles read. */
export type UntrustedValue = ToolSuccess['untrusted'];

/** An answer that says nothing about whether the effect happened carries kind 'outcome_unknown'. */
export type AnswerKind =
  | 'ok'
  | 'rejected'
  | 'user_cancelled'
  | 'cancelled'
  | 'too_late_to_cancel'
  | 'outcome_unknown'
  | 'provider_unavailable'
  | 'provider_not_found'
  | 'tool_not_found'
  | 'invalid_args'
  | 'invalid_response'
  | 'integrity'
  | 'refused_resolution'
  | 'user_action_loop';

export interface Answer {
  readonly kind: AnswerKind;
  readonly providerId: string;
  readonly tool: string;
  /** The logical execution's request_id; null when nothing was sent (or for v1). */
  readonly requestId: string | null;
  readonly explanation: string;
  readonly code?: string;
  readonly providerMessage?: UntrustedText;
  readonly untrusted?: UntrustedValue;
  readonly detail?: string;
}

const EXPLANATIONS: Record<AnswerKind, string> = {
  ok: 'The app returned a result (untrusted data).',
  rejected: 'The app refused the request.',
  user_cancelled: 'The action was cancelled in the app, so it was not carried out.',
  cancelled: 'The action was cancelled before it took effect.',
  too_late_to_cancel: 'It was too late to cancel: the app had already finished the action.',
  outcome_unknown: 'The outcome is not known yet; the request was not repeated under a new id.',
  provider_unavailable: 'The app is not available right now.',
  provider_not_found: 'No app with that name offers tools to this assistant.',
  tool_not_found: 'This app offers no tool by that name.',
  invalid_args: 'The request details are not valid for this tool.',
  invalid_response: 'The app answered outside the protocol; its answer was discarded.',
  integrity: 'The result failed a safety check and was discarded.',
  refused_resolution: 'The app asked for a screen that is not verifiably its own; it was not opened.',
  user_action_loop: 'The app kept asking for confirmation; the assistant stopped.',
};

/** The same answers in fewer words (a generated consumer's `answers.wording: 'terse'`). */
const TERSE: Record<AnswerKind, string> = {
  ok: 'Result (untrusted data).',
  rejected: 'Refused by the app.',
  user_cancelled: 'Cancelled in the app; not done.',
  cancelled: 'Cancelled before it took effect.',
  too_late_to_cancel: 'Too late to cancel: already done.',
  outcome_unknown: 'Outcome not known yet.',
  provider_unavailable: 'App not available now.',
  provider_not_found: 'No such app.',
  tool_not_found: 'No such tool.',
  invalid_args: 'Invalid request details.',
  invalid_response: 'Answer outside the protocol; discarded.',
  integrity: 'Result failed a safety check; discarded.',
  refused_resolution: 'Screen not verifiably the app’s; not opened.',
  user_action_loop: 'The app kept asking; stopped.',
};

/** `a` in the consumer's wording: only our own explanation is replaced, never anything else. */
export function inWording(a: Answer, wording: 'plain' | 'terse'): Answer {
  if (wording === 'plain' || a.explanation !== EXPLANATIONS[a.kind]) return a;
  return { ...a, explanation: TERSE[a.kind] };
}

export interface Source {
  readonly providerId: string;
  readonly tool: string;
  readonly requestId: string | null;
}

export function answer(
  source: Source,
  kind: AnswerKind,
  more: Omit<Partial<Answer>, keyof Source | 'kind' | 'explanation'> = {},
): Answer {
  return { kind, ...source, explanation: EXPLANATIONS[kind], ...more };
}

export function ok(source: Source, transport: 'inline' | 'file', value: JsonValue): Answer {
  const untrusted: UntrustedValue = {
    trust: 'untrusted',
    providerId: source.providerId,
    tool: source.tool,
    transport,
    value,
  };
  return answer(source, 'ok', { untrusted });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Provider text as display data: control characters out, at most `maxChars` (7.3-01). */
export function untrustedText(raw: unknown, maxChars: number): UntrustedText {
  const text = typeof raw === 'string' ? raw.replace(CONTROL, ' ') : '';
  return { trust: 'untrusted', text: text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text };
}
