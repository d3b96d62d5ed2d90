/**
 * The reference consumer's numeric options and their floors (src/protocol/option-floors.ts). The
 * spec sets no minimum for a consumer's own caps (2.2-21, 2.2-22, 7.3-01: it MAY hold less than was
 * negotiated), so each floor is the smallest value with which the option still means something: a
 * deadline or a timeout in the past refuses every call, a cap of zero refuses every reply, a
 * negative count or delay is nonsense. Checked when the consumer is configured (consumerApp,
 * resolveConsumerOptions): refused with an OptionsError naming each option, its floor and rule ids.
 */
import { checkOptionFloors, type OptionFloor, OptionsError } from '../protocol/option-floors.ts';

const cap = (option: string, ruleIds: readonly string[], what: string): OptionFloor => ({
  option: `limits.${option}`,
  floor: 1,
  ruleIds,
  why: `a cap of 0 refuses every ${what}`,
});

const count = (option: string, floor: number, why: string, ruleIds: readonly string[] = []): OptionFloor => ({
  option: `retry.${option}`,
  floor,
  ruleIds,
  why,
});

export const CONSUMER_OPTION_FLOORS: readonly OptionFloor[] = [
  {
    option: 'callDeadlineMs',
    floor: 1,
    ruleIds: ['CETP-4.1-14', 'CETP-5-18'],
    why: 'a deadline_at_ms not after now makes every call DEADLINE_EXCEEDED',
  },
  {
    option: 'callTimeoutMs',
    floor: 1,
    ruleIds: [],
    why: 'a Binder call needs time to be answered',
    nullable: true,
  },
  cap('maxInlineResultBytes', ['CETP-2.2-21', 'CETP-2.2-22'], 'inline result'),
  {
    option: 'limits.maxFileResultBytes',
    floor: 0,
    ruleIds: ['CETP-4.5-08'],
    why: 'a local read limit is a size in bytes',
  },
  cap('maxMetadataBytes', ['CETP-7.3-01'], 'negotiate, list_tools and get_operation answer'),
  cap('maxTools', ['CETP-7.3-01'], 'tool list'),
  cap('maxTitleChars', ['CETP-7.3-01'], 'title'),
  cap('maxDescriptionChars', ['CETP-7.3-01'], 'description'),
  cap('maxMessageChars', ['CETP-7.3-01'], 'error message'),
  cap('maxSchemaBytes', ['CETP-7.3-01', 'CETP-7.3-02'], 'tool schema'),
  cap('maxSchemaDepth', ['CETP-7.3-01', 'CETP-7.3-02'], 'tool schema'),
  count('maxRetries', 0, 'a count of re-sends', ['CETP-4.1-15']),
  count('baseBackoffMs', 0, 'a delay in ms'),
  count('maxBackoffMs', 0, 'a delay in ms'),
  count('maxRetryAfterMs', 0, 'a delay in ms', ['CETP-5-17']),
  count('maxRenegotiations', 0, 'a count of renegotiations', ['CETP-5-07']),
  count('maxUserActions', 0, 'a count of resolutions followed', ['CETP-5-28']),
  count('maxPolls', 1, 'an accepted operation must be polled at least once to learn its outcome', [
    'CETP-4.4-07',
  ]),
  count('minPollMs', 0, 'a delay in ms', ['CETP-4.4-02']),
  count('maxPollMs', 0, 'a delay in ms', ['CETP-4.4-02']),
];

/** Throws an OptionsError when consumer `options` (as given) break a floor. */
export function assertConsumerOptions(subject: string, options: unknown): void {
  const issues = checkOptionFloors(options, CONSUMER_OPTION_FLOORS);
  if (issues.length > 0) throw new OptionsError(subject, issues);
}
