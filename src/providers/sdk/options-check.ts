/**
 * The provider SDK's numeric options and their floors (src/protocol/option-floors.ts): the
 * negotiated limits of §2.2 may not go below the spec's minimums (CETP-2.2-17 … 2.2-20: the SDK
 * would announce them in every negotiate, which its own schema check refuses as INTERNAL_ERROR), and
 * the lifetimes and poll interval must be usable. Checked when a provider is defined
 * (defineProvider) and again when an instance starts (a hand-written subclass): refused with an
 * OptionsError naming each option, its floor and the rule ids.
 */
import { LIMIT_MINIMUMS, LIMIT_RULES } from '../../protocol/limits.ts';
import { checkOptionFloors, type OptionFloor, OptionsError } from '../../protocol/option-floors.ts';

const limit = (option: string, wire: keyof typeof LIMIT_MINIMUMS): OptionFloor => ({
  option: `limits.${option}`,
  floor: LIMIT_MINIMUMS[wire],
  ruleIds: [LIMIT_RULES[wire]],
  why: `the negotiated ${wire} must be at least ${LIMIT_MINIMUMS[wire]}`,
});

export const PROVIDER_OPTION_FLOORS: readonly OptionFloor[] = [
  limit('maxRequestBytes', 'max_request_bytes'),
  limit('maxInlineResultBytes', 'max_inline_result_bytes'),
  limit('maxConcurrentRequests', 'max_concurrent_requests'),
  limit('idempotencyWindowSeconds', 'idempotency_window_seconds'),
  {
    option: 'sessionTtlMs',
    floor: 1,
    ruleIds: ['CETP-2.2-11', 'CETP-2.2-14'],
    why: 'a session must live a while, or every call after negotiate is NEGOTIATION_REQUIRED',
  },
  {
    option: 'resumeTokenTtlMs',
    floor: 1,
    ruleIds: ['CETP-4.3-06'],
    why: 'a resume token needs a validity period, or no confirmation can ever be resumed',
  },
  {
    option: 'pollAfterMs',
    floor: 0,
    ruleIds: ['CETP-4.4-02', 'CETP-4.4-07'],
    why: 'poll_after_ms is a non-negative integer',
  },
];

/** Throws an OptionsError when `options` (as given to a provider) break a floor. */
export function assertProviderOptions(subject: string, options: unknown): void {
  const issues = checkOptionFloors(options, PROVIDER_OPTION_FLOORS);
  if (issues.length > 0) throw new OptionsError(subject, issues);
}
