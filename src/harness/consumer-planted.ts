/**
 * Does a consumer under test run the planted consumer bug it is handed? `--mutant consumer-…`
 * reaches a user's consumer only through its install(world, { variant }): a consumer that ignores
 * `variant.consumerBugs` (or is not built on cetp-sim's consumer library, where the bugs are planted)
 * runs unmutated, and the campaign would pass, saying nothing. The provider side asks the SDK
 * provider which bugs it runs (src/check/fixture.ts, variantIgnored); a consumer may be any code,
 * so this is judged from behaviour: for each planted bug, a few small consumer scenarios in which
 * that bug changes what the reference consumer does (its calls on the wire, their timing, its
 * process's fate — the whole trace) are run twice against the consumer under test, with the bug and
 * without. If every probe's trace is the same both ways, the bug did not reach the consumer.
 *
 * The probes are fixed data (no generator: they do not move when the property generators do), each
 * chosen so the bug shows in the reference consumer's trace; src/harness/consumer-planted.test.ts
 * holds both directions for every bug (the reference consumer: planted; a consumer that ignores the
 * variant: not planted).
 */

import { type ConsumerBug, isConsumerBug } from '../consumer/planted.ts';
import {
  type AgentCommand,
  ALERTS_ONE_AT_A_TIME,
  type ConsumerScenario,
  runConsumerScenario,
} from '../fuzz/scenario/consumer.ts';
import { ALERTS, PAYMENTS } from '../fuzz/scenario/fixtures.ts';
import { HOSTILE_CASES } from '../providers/hostile/index.ts';
import type {
  CancellationLike,
  ConsumerUnderTest,
  ResolvedProviderFixture,
  Variant,
} from '../subjects/subjects.ts';

/** One probe: a consumer scenario (for the consumer's package) among `providers`, and what it does. */
interface Probe {
  readonly what: string;
  readonly providers: readonly ResolvedProviderFixture[];
  readonly scenario: (consumerPackage: string) => ConsumerScenario;
}

const BASE: ConsumerScenario = {
  seed: 1,
  tail: 'fifo',
  threads: [],
  consumerRestartsAtMs: [],
  hostile: null,
  consumerCaps: 0,
  user: [],
  faults: [],
  decisions: [],
};

function execute(
  provider: string,
  tool: string,
  args = 0,
  cancelAfterMs: number | null = null,
): AgentCommand {
  return { kind: 'execute', provider, tool, args, cancelAfterMs };
}

function hostileIndex(id: string): number {
  const index = HOSTILE_CASES.findIndex((c) => c.id === id);
  if (index < 0) throw new Error(`consumer-planted probe: no hostile case '${id}'`);
  return index;
}

function onHostile(id: string): Probe {
  return {
    what: `a call to the hostile provider case '${id}'`,
    providers: [ALERTS],
    scenario: () => ({ ...BASE, hostile: hostileIndex(id), threads: [[execute('hostile', 'lookup')]] }),
  };
}

/** alerts' reply to the consumer lost at scheduler step `at` of a create_alert (a retry follows). */
function lostReply(at: number): Probe {
  return {
    what: `create_alert whose reply is lost (step ${at})`,
    providers: [ALERTS],
    scenario: (consumer) => ({
      ...BASE,
      threads: [[execute('alerts', 'create_alert')]],
      faults: [{ at, fault: { kind: 'loseReply', callee: ALERTS.packageName, caller: consumer } }],
    }),
  };
}

/** payments killed at scheduler step `at` while a transfer runs. */
function providerKilled(at: number): Probe {
  return {
    what: `a transfer during which the provider process is killed (step ${at})`,
    providers: [PAYMENTS],
    scenario: () => ({
      ...BASE,
      threads: [[execute('payments', 'transfer')]],
      faults: [{ at, fault: { kind: 'kill', process: PAYMENTS.packageName } }],
    }),
  };
}

/** The consumer restarted `ms` into an asynchronous transfer: it resumes from its journal. */
function restarted(ms: number): Probe {
  return {
    what: `an asynchronous transfer with the consumer restarted at ${ms} ms`,
    providers: [PAYMENTS],
    scenario: () => ({ ...BASE, consumerRestartsAtMs: [ms], threads: [[execute('payments', 'transfer')]] }),
  };
}

const PROBES: Readonly<Record<ConsumerBug, readonly Probe[]>> = {
  'consumer-retries-non-retryable': [
    {
      what: 'get_quote of an unknown symbol (a non-retryable error)',
      providers: [ALERTS],
      scenario: () => ({ ...BASE, threads: [[execute('alerts', 'get_quote', 2)]] }),
    },
    {
      what: 'create_alert the user denies',
      providers: [ALERTS],
      scenario: () => ({ ...BASE, threads: [[execute('alerts', 'create_alert')]], user: ['deny'] }),
    },
  ],
  'consumer-new-request-id-on-retry': [lostReply(30), lostReply(40), lostReply(60), restarted(1_000)],
  'consumer-downgrades-to-v1': [onHostile('negotiate-unsupported-version-with-v1-bait')],
  'consumer-skips-sha256': [onHostile('file-sha256-wrong')],
  'consumer-ignores-retry-after': [
    {
      what: 'three concurrent calls to a provider that admits one at a time (RATE_LIMITED, retry_after_ms)',
      providers: [ALERTS_ONE_AT_A_TIME],
      scenario: () => ({
        ...BASE,
        threads: [
          [execute('alerts', 'get_quote', 0)],
          [execute('alerts', 'get_quote', 1)],
          [execute('alerts', 'list_alerts')],
        ],
      }),
    },
  ],
  'consumer-leaks-fd-on-error': [onHostile('file-size-wrong'), onHostile('file-sha256-wrong')],
  'consumer-accepts-foreign-pi': [onHostile('resolution-relayed-pending-intent')],
  'consumer-uses-stable-call': [lostReply(0), providerKilled(20), providerKilled(30)],
  'consumer-calls-unnegotiated-method': [
    {
      what: 'asynchronous calls cancelled after 1 s in a session without the cancellation capability',
      providers: [PAYMENTS],
      scenario: () => ({
        ...BASE,
        consumerCaps: 1,
        threads: [
          [execute('payments', 'transfer', 0, 1_000), execute('payments', 'reconcile_accounts', 0, 1_000)],
        ],
      }),
    },
  ],
  'consumer-trusts-unknown-error-retryable': [onHostile('unknown-error-code-retryable')],
  'consumer-forgets-request-id-on-restart': [restarted(1_000), restarted(3_000)],
};

/** The probes of each planted consumer bug (for the tests). */
export function consumerBugProbes(bug: ConsumerBug): readonly { readonly what: string }[] {
  return PROBES[bug];
}

const NO_BUGS: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };

/** What a probe run did: its trace hash, or the error it ended with. */
async function fingerprint(consumer: ConsumerUnderTest, probe: Probe, variant: Variant): Promise<string> {
  try {
    const run = await runConsumerScenario(
      { providers: probe.providers, checkers: [], consumer },
      probe.scenario(consumer.packageName),
      variant,
    );
    return run.report.traceHash;
  } catch (error) {
    return `threw ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Does `bug` change what `consumer` does in any of its probes? */
export async function consumerRunsBug<C extends CancellationLike>(
  subject: ConsumerUnderTest<C>,
  bug: ConsumerBug,
): Promise<boolean> {
  // The scenarios hand the consumer back only the tokens its own cancellation() made.
  const consumer = subject as unknown as ConsumerUnderTest;
  const planted: Variant = { ...NO_BUGS, consumerBugs: [bug] };
  for (const probe of PROBES[bug]) {
    if ((await fingerprint(consumer, probe, NO_BUGS)) !== (await fingerprint(consumer, probe, planted)))
      return true;
  }
  return false;
}

/**
 * Why `variant`'s planted consumer bugs would not reach `consumer` (null when each of them changes
 * its behaviour): the bugs that changed nothing, the probes that showed it, and what to do.
 */
export async function consumerVariantIgnored<C extends CancellationLike>(
  consumer: ConsumerUnderTest<C>,
  variant: Variant,
): Promise<string | null> {
  const bugs = variant.consumerBugs.filter(isConsumerBug);
  const ignored: ConsumerBug[] = [];
  for (const bug of bugs) if (!(await consumerRunsBug(consumer, bug))) ignored.push(bug);
  if (ignored.length === 0) return null;
  const probes = ignored.flatMap((bug) => PROBES[bug].map((p) => p.what));
  return (
    `with ${ignored.join(', ')} planted it behaved exactly as without (same trace in every probe scenario: ` +
    `${[...new Set(probes)].join('; ')}), so the campaign would test the consumer unmutated and pass. ` +
    "Its install(world, { variant }) must pass variant.consumerBugs to the consumer — with cetp-sim's consumer library, " +
    'consumerApp({ plantedBugs: variant.consumerBugs.filter(isConsumerBug), … }); a consumer built otherwise cannot run ' +
    'planted consumer bugs: fuzz it without --mutant'
  );
}
