/**
 * Planted bugs: small, realistic mistakes switched on by name in the reference provider SDK and
 * consumer (their `plantedBugs` option), each declared with its description and how it is planted
 * next to its component (src/providers/sdk/planted.ts, src/consumer/gates.ts). The property suites must kill every one: some property must
 * fail against the mutant. Each names the rules it breaks and the properties expected to catch it
 * (tried in order). Time-to-failure is tracked by `cetp-sim mutants` and bench/.
 *
 * Not planted, because the reference design makes them equivalent (unobservable): a resume token
 * not bound to the args — the request record binds the args first and rejects a changed resume
 * (6-04) before the token is looked at; a predictable session token — unpredictability cannot be
 * shown by a deterministic simulation (CETP-2.2-07 is marked untestable).
 */
import { CONSUMER_PLANTED_BUGS, type ConsumerBug } from '../consumer/planted.ts';
import type { RuleId } from '../protocol/index.ts';
import { PROVIDER_PLANTED_BUGS, type ProviderBug } from '../providers/sdk/planted.ts';
import type { Variant } from './scenario/model.ts';

/** A planted bug of the reference provider or consumer: what `mutant` (and `--mutant`) switches on. */
export interface PlantedBugInfo {
  readonly id: string;
  readonly component: 'provider' | 'consumer';
  readonly description: string;
  /** The rules it breaks. */
  readonly ruleIds: readonly RuleId[];
  /** Property ids that should kill it, tried in order. */
  readonly killers: readonly string[];
}

export interface Mutant extends PlantedBugInfo {
  readonly variant: Variant;
}

/** A planted bug as a mutant: the reference variant with that one bug switched on. */
function mutant(info: PlantedBugInfo): Mutant {
  const mine = (component: Mutant['component']) => (info.component === component ? [info.id] : []);
  return {
    ...info,
    variant: { providerBugs: mine('provider'), consumerBugs: mine('consumer'), disabledRules: [] },
  };
}

const provider = (id: ProviderBug, ruleIds: RuleId[], killers: string[]) =>
  mutant({ id, component: 'provider', description: PROVIDER_PLANTED_BUGS[id].description, ruleIds, killers });

export const PROVIDER_MUTANTS: readonly Mutant[] = [
  provider('dedup-check-then-insert', ['CETP-6-06', 'CETP-6-07', 'CETP-10-06'], ['idempotency']),
  provider('dedup-key-without-uid', ['CETP-6-02'], ['idempotency', 'identity']),
  provider('dedup-ignores-args', ['CETP-6-03', 'CETP-6-04'], ['idempotency']),
  provider('dedup-record-expires-early', ['CETP-6-05', 'CETP-2.2-20'], ['idempotency']),
  provider('uid-after-await', ['CETP-7.1-01'], ['idempotency', 'identity']),
  provider('resume-token-reusable', ['CETP-4.3-13', 'CETP-4.3-05'], ['confirmation']),
  provider('effect-before-approval', ['CETP-4.3-08'], ['confirmation']),
  provider('trust-confirmed-flag', ['CETP-4.3-10', 'CETP-1-02'], ['confirmation']),
  provider('deadline-after-effect', ['CETP-4.1-14', 'CETP-10-03'], ['confirmation']),
  provider('confirmation-pi-collides', ['CETP-7.2-04', 'CETP-4.3-02'], ['confirmation']),
  provider('cancel-after-commit', ['CETP-4.4-21', 'CETP-4.4-19'], ['operations']),
  provider('operations-in-memory', ['CETP-4.4-16', 'CETP-4.4-17', 'CETP-10-13'], ['operations']),
  provider('operation-not-bound-to-uid', ['CETP-4.4-12', 'CETP-4.4-13'], ['identity']),
  provider('session-not-bound-to-uid', ['CETP-2.2-09'], ['identity']),
  provider('session-keyed-by-app', ['CETP-2.2-09'], ['identity']),
  provider('v1-lists-write-tools', ['CETP-2.1-06', 'CETP-8-10'], ['versions']),
  provider('provider-fd-leak', ['CETP-4.5-09'], ['large-results']),
  provider('internal-error-leaks-stack', ['CETP-5-25', 'CETP-5-02'], ['idempotency', 'malformed']),
];

const consumer = (id: ConsumerBug, ruleIds: RuleId[], killers: string[]) =>
  mutant({ id, component: 'consumer', description: CONSUMER_PLANTED_BUGS[id].description, ruleIds, killers });

/** The reference consumer's planted bugs (src/consumer/planted.ts), run against the reference providers,
 *  the rate-limited alerts app and the hostile cases. */
export const CONSUMER_MUTANTS: readonly Mutant[] = [
  consumer('consumer-retries-non-retryable', ['CETP-5-26', 'CETP-5-28'], ['consumer', 'hostile']),
  consumer('consumer-new-request-id-on-retry', ['CETP-4.1-04', 'CETP-4.1-16', 'CETP-6-08'], ['consumer']),
  consumer('consumer-downgrades-to-v1', ['CETP-8-03', 'CETP-8-08', 'CETP-8-09'], ['consumer-versions']),
  consumer('consumer-skips-sha256', ['CETP-4.5-06'], ['hostile']),
  consumer('consumer-ignores-retry-after', ['CETP-5-27'], ['consumer']),
  consumer('consumer-leaks-fd-on-error', ['CETP-4.5-09'], ['hostile']),
  consumer('consumer-accepts-foreign-pi', ['CETP-4.3-02', 'CETP-7.2-04', 'CETP-7.2-05'], ['hostile']),
  consumer('consumer-uses-stable-call', ['CETP-6-08', 'CETP-4.1-15'], ['consumer']),
  consumer('consumer-calls-unnegotiated-method', ['CETP-2.3-04', 'CETP-4-05', 'CETP-4-06'], ['consumer']),
  consumer('consumer-trusts-unknown-error-retryable', ['CETP-5-26'], ['hostile']),
  consumer('consumer-forgets-request-id-on-restart', ['CETP-6-08', 'CETP-4.1-16'], ['consumer']),
];

export const MUTANTS: readonly Mutant[] = [...PROVIDER_MUTANTS, ...CONSUMER_MUTANTS];

export function mutantById(id: string): Mutant | undefined {
  return MUTANTS.find((m) => m.id === id);
}
