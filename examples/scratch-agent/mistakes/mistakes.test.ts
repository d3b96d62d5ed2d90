/**
 * The scratch agent's mistake catalogue holds to account both the catalogue and the consumer oracles:
 * every patch still applies to the example; the oracles this work added or changed fail on the
 * mistake they exist for and stay silent on the example (agent.fuzz.test.ts) and on the reference:
 * consumer-offers-v1, consumer-verifies-file (judged from the agent's answers, not the reference
 * consumer's audit log), agent-unknown-not-unavailable, consumer-resumes-latest-token,
 * consumer-retry-discipline (a resolution whose Activity result came back is the user's turn).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { REFERENCE_CONSUMER, runConsumerScenario } from '../../../src/fuzz/scenario/consumer.ts';
import { propertyById } from '../../../src/fuzz/suites.ts';
import { type ConsumerUnderTest, fuzzConsumer, replay } from '../../../src/index.ts';
import { consumer as scratch } from '../agent.consumer.ts';
import { MISTAKES } from './catalogue.ts';
import { patchCount, removeVariants, writeVariant } from './variant.ts';

async function variant(id: string): Promise<ConsumerUnderTest> {
  const mistake = MISTAKES.find((m) => m.id === id);
  if (!mistake) throw new Error(`no mistake ${id}`);
  return ((await import(writeVariant(mistake))) as { consumer: ConsumerUnderTest }).consumer;
}

async function fired(consumer: ConsumerUnderTest, property: string, runs: number): Promise<string[]> {
  const report = await fuzzConsumer(consumer, { property, runs, replayDir: null });
  return [...new Set(report.properties.flatMap((p) => p.violations.map((v) => v.checker)))];
}

afterAll(removeVariants); // the patched copies this test wrote, and nothing else
describe('the scratch agent mistake catalogue', () => {
  it.each(MISTAKES.map((m) => [m.id, m] as const))('%s: its patch applies exactly once', (_, mistake) => {
    expect(patchCount(mistake)).toBe(1);
    expect(mistake.oracle !== null || (mistake.why ?? '').length > 0).toBe(true);
  });
});

describe('consumer oracles that judge from the wire and the agent answers can fail', () => {
  it('consumer-offers-v1 (0-02, 2.2-02): a negotiate offering only [2]', async () => {
    expect(await fired(await variant('negotiate-v2-only'), 'consumer-versions', 3)).toContain(
      'consumer-offers-v1',
    );
  });

  it('consumer-verifies-file (4.5-05, 4.5-06): a file result handed on unchecked', {
    timeout: 120_000,
  }, async () => {
    expect(await fired(await variant('skips-sha256'), 'hostile', 60)).toContain('consumer-verifies-file');
  });

  it('consumer-retry-discipline (5-28): AUTH_REQUIRED answered by a bare re-send', async () => {
    expect(await fired(await variant('loops-on-auth-required'), 'consumer', 5)).toContain(
      'consumer-retry-discipline',
    );
  });

  it('consumer-retry-discipline: a same-id query after the resolution screen died is not a loop', async () => {
    const file = fileURLToPath(
      new URL('../regressions/resolution-died-then-query.replay.json', import.meta.url),
    );
    const result = await replay(file, { consumer: scratch });
    expect(result.violations.map((v) => v.checker)).toEqual([]);
  });

  it('agent-unknown-not-unavailable (4.1-15, 6-05, 6-08): a lost reply told as "unavailable"', async () => {
    const def = propertyById('consumer');
    if (def?.kind !== 'consumer') throw new Error('no consumer property');
    // The reply of the resume call (accepted, the effect commits after it) is lost.
    const scenario = {
      seed: 1,
      tail: 'fifo' as const,
      threads: [
        [
          {
            kind: 'execute' as const,
            provider: 'alerts',
            tool: 'create_alert',
            args: 0,
            cancelAfterMs: null,
          },
        ],
      ],
      consumerRestartsAtMs: [],
      hostile: null,
      consumerCaps: 0,
      user: ['approve' as const],
      faults: [
        {
          at: 60,
          fault: { kind: 'loseReply' as const, callee: 'com.example.alerts', caller: 'com.clawseed.agent' },
        },
      ],
      decisions: [],
    };
    const variantOf = { providerBugs: [], consumerBugs: [], disabledRules: [] };
    const checkers = async (consumer: ConsumerUnderTest) =>
      (await runConsumerScenario({ ...def.fixture, consumer }, scenario, variantOf)).violations.map(
        (v) => v.checker,
      );
    expect(await checkers(await variant('lost-reply-as-unavailable'))).toContain(
      'agent-unknown-not-unavailable',
    );
    expect(await checkers(scratch)).toEqual([]);
    expect(await checkers(REFERENCE_CONSUMER)).toEqual([]);
  });

  it('consumer-resumes-latest-token (4.3-07): a second resolution resumed with the first token', async () => {
    const def = propertyById('consumer');
    if (def?.kind !== 'consumer') throw new Error('no consumer property');
    // payments.transfer asks for a grant (AUTH_REQUIRED), then a confirmation (USER_ACTION_REQUIRED).
    const scenario = {
      seed: 1,
      tail: 'fifo' as const,
      threads: [
        [{ kind: 'execute' as const, provider: 'payments', tool: 'transfer', args: 0, cancelAfterMs: null }],
      ],
      consumerRestartsAtMs: [],
      hostile: null,
      consumerCaps: 0,
      user: ['approve' as const, 'approve' as const, 'approve' as const],
      faults: [],
      decisions: [],
    };
    const variantOf = { providerBugs: [], consumerBugs: [], disabledRules: [] };
    const checkers = async (consumer: ConsumerUnderTest) =>
      (await runConsumerScenario({ ...def.fixture, consumer }, scenario, variantOf)).violations.map(
        (v) => v.checker,
      );
    expect(await checkers(await variant('resumes-with-stale-token'))).toContain(
      'consumer-resumes-latest-token',
    );
    expect(await checkers(scratch)).toEqual([]);
    expect(await checkers(REFERENCE_CONSUMER)).toEqual([]);
  });
});
