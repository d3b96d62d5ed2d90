/**
 * Consumer-side enforcement points by rule id, and the consumer's planted bugs.
 *
 * Every check the reference consumer makes is written `if (gates.on('CETP-x') && …)`, so rule
 * ablation can switch one off by id and show which property catches its removal (as the provider
 * SDK's gates do). Planted bugs are small, realistic consumer mistakes the fuzzer switches on by
 * name; each sits at the place where a real implementation would make it. The reference consumer
 * has every rule on and no bug planted.
 */
import { isRuleId } from '../protocol/index.ts';

/** The consumer's planted bugs, each with the mistake it stands for. */
export const CONSUMER_PLANTED_BUGS = {
  'consumer-retries-non-retryable':
    'retries every error up to the attempt limit, whatever `retryable` says (5-26, 5-28)',
  'consumer-new-request-id-on-retry':
    'builds each retry with a fresh request_id instead of the logical execution id (4.1-04, 4.1-16, 6-08)',
  'consumer-downgrades-to-v1':
    'falls back to v1 when a provider that declares v2 fails negotiation (8-03, 8-08, 8-09)',
  'consumer-skips-sha256': 'accepts a file result without checking its digest (4.5-06)',
  'consumer-ignores-retry-after': 'retries on its own backoff, ignoring retry_after_ms (5-27)',
  'consumer-leaks-fd-on-error': 'closes result fds only on the success path (4.5-09)',
  'consumer-accepts-foreign-pi':
    'launches any resolution PendingIntent without checking creator, explicitness or immutability',
  'consumer-uses-stable-call':
    'calls through ContentResolver.call (a stable reference): a provider crash kills the consumer',
  'consumer-calls-unnegotiated-method':
    'sends cancel_operation / get_operation without the capability in the session (2.3-04, 4-05, 4-06)',
  'consumer-trusts-unknown-error-retryable':
    "trusts an unknown error code's `retryable` flag instead of treating it as not retryable",
  'consumer-forgets-request-id-on-restart':
    'journals the execution but not its request_id: a restarted consumer resumes under a new id (6-08)',
} as const;

export type ConsumerBug = keyof typeof CONSUMER_PLANTED_BUGS;

export function isConsumerBug(name: string): name is ConsumerBug {
  return Object.hasOwn(CONSUMER_PLANTED_BUGS, name);
}

export class ConsumerGates {
  private readonly disabled: ReadonlySet<string>;
  private readonly bugs: ReadonlySet<string>;

  constructor(disabled: Iterable<string> = [], bugs: Iterable<string> = []) {
    this.disabled = new Set(disabled);
    this.bugs = new Set(bugs);
    for (const id of this.disabled) {
      if (!isRuleId(id)) throw new RangeError(`unknown rule id ${id} in disabledRules`);
    }
    for (const name of this.bugs) {
      if (!isConsumerBug(name)) throw new RangeError(`unknown consumer planted bug ${name}`);
    }
  }

  /** Is the enforcement of every one of `ruleIds` on? */
  on(...ruleIds: string[]): boolean {
    for (const id of ruleIds) if (this.disabled.has(id)) return false;
    return true;
  }

  /** Is the planted bug `name` switched on? */
  bug(name: ConsumerBug): boolean {
    return this.bugs.has(name);
  }

  get disabledRules(): readonly string[] {
    return [...this.disabled];
  }

  get plantedBugs(): readonly string[] {
    return [...this.bugs];
  }
}
