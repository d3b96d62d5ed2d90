/**
 * The behavioural check that a consumer under test runs the planted consumer bug it is handed
 * (consumer-planted.ts), both ways for every planted bug: the reference consumer and my-agent (which
 * pass variant.consumerBugs through) run it; a consumer that ignores the variant and one that is
 * not built on the consumer library at all do not.
 */
import { describe, expect, it } from 'vitest';
import { myAgent } from '../../examples/my-agent/my-agent.ts';
import { consumer as deaf } from '../cli/testdata/deaf.consumer.ts';
import { consumer as idle } from '../cli/testdata/idle.consumer.ts';
import { CONSUMER_PLANTED_BUGS, type ConsumerBug } from '../consumer/planted.ts';
import { REFERENCE_CONSUMER } from '../fuzz/scenario/consumer.ts';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import { consumerBugProbes, consumerRunsBug, consumerVariantIgnored } from './consumer-planted.ts';
import { fuzzProvider } from './fuzz.ts';

const BUGS = Object.keys(CONSUMER_PLANTED_BUGS) as ConsumerBug[];

describe('a planted consumer bug reaches the consumer under test, judged from behaviour', () => {
  it('every planted consumer bug has probes', () => {
    for (const bug of BUGS) expect(consumerBugProbes(bug).length, bug).toBeGreaterThan(0);
  });

  it.each(BUGS)(
    '%s: run by the reference consumer and my-agent, not by a consumer that ignores the variant',
    async (bug) => {
      expect(await consumerRunsBug(REFERENCE_CONSUMER, bug)).toBe(true);
      expect(await consumerRunsBug(myAgent, bug)).toBe(true);
      expect(await consumerRunsBug(deaf, bug)).toBe(false);
    },
  );

  it('says which bugs did not reach the consumer, the probes that showed it, and what to do', async () => {
    const variant = {
      providerBugs: [],
      consumerBugs: ['consumer-skips-sha256', 'consumer-ignores-retry-after'],
      disabledRules: [],
    };
    expect(await consumerVariantIgnored(myAgent, variant)).toBeNull();
    const why = await consumerVariantIgnored(deaf, variant);
    expect(why).toMatch(
      /with consumer-skips-sha256, consumer-ignores-retry-after planted it behaved exactly as without/,
    );
    expect(why).toMatch(/file-sha256-wrong/);
    expect(why).toMatch(/variant\.consumerBugs/);
    // A consumer not built on the consumer library cannot run them either.
    expect(await consumerVariantIgnored(idle, variant)).toMatch(/behaved exactly as without/);
    // No planted consumer bug (a provider mutant, or none): nothing to check.
    expect(await consumerVariantIgnored(deaf, { ...variant, consumerBugs: [] })).toBeNull();
  });
});

describe('fuzzProvider with a provider mutant', () => {
  it('refuses a fixture whose install() drops the variant (as the CLI does), and runs one that passes it', async () => {
    const reference = { providerBugs: [], consumerBugs: [], disabledRules: [] };
    const deafAlerts = {
      ...ALERTS,
      name: 'deafalerts',
      install: (world: Parameters<typeof ALERTS.install>[0]) => ALERTS.install(world, reference),
    };
    const options = { mutant: 'dedup-ignores-args', property: 'idempotency', runs: 2, replayDir: null };
    await expect(fuzzProvider(deafAlerts, options)).rejects.toThrow(
      /fuzzProvider\(fixture\): providers\[0\] \(deafalerts\) cannot run planted bug\(s\) dedup-ignores-args: its install\(world, variant\) does not pass variant\.providerBugs/,
    );
    expect((await fuzzProvider(ALERTS, options)).properties[0]?.runs).toBeGreaterThan(0);
  });
});
