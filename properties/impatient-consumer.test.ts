/**
 * Found run (issue #14, false alarm 2): consumer-retry-discipline judged a re-send by the previous
 * call's reply even when that reply arrived after the re-send. The control consumer
 * properties/controls/impatient.consumer.ts (the reference consumer with a 150 ms call timeout)
 * timed out on a slow `transfer`, re-sent the same request_id (CETP-4.1-15, 6-08) four times, and the
 * provider's CONFLICT answers to the earlier attempts ("request in progress") arrived only after the
 * re-sends — the consumer had not seen them when it re-sent (consumer property, seed 0, run 94).
 */
import { describe, expect, it } from 'vitest';
import { loadConsumerModule, withConsumer } from '../src/cli/consumer-module.ts';
import { fuzzProperty, replayScenario } from '../src/fuzz/fuzz.ts';
import type { ConsumerScenario } from '../src/fuzz/scenario/consumer.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../src/fuzz/suites.ts';

const FOUND: ConsumerScenario = {
  seed: 0,
  tail: 'fifo',
  threads: [
    [
      { kind: 'execute', provider: 'payments', tool: 'transfer', args: 1, cancelAfterMs: null },
      { kind: 'wait', ms: 1000 },
    ],
  ],
  consumerRestartsAtMs: [],
  hostile: null,
  consumerCaps: 3,
  user: [],
  faults: [],
  decisions: [],
};

describe('consumer-retry-discipline judges a re-send only by answers the consumer had (CETP-5-26, 4.1-15)', () => {
  it('an impatient consumer re-sending before the late CONFLICT arrived is not a retry after CONFLICT', async () => {
    const module = await loadConsumerModule('properties/controls/impatient.consumer.ts', process.cwd());
    const def = withConsumer(propertyById('consumer') as PropertyDef, module);
    const run = await replayScenario(def, { scenario: FOUND, variant: REFERENCE });
    const transfers = run.observation.calls.filter((c) => c.toolName === 'transfer');
    // The run still has what the old oracle misjudged: a CONFLICT that arrived after a re-send.
    const late = transfers.some(
      (c, i) =>
        c.reply.kind === 'bundle' &&
        c.reply.errorCode === 'CONFLICT' &&
        transfers.slice(i + 1).some((n) => c.replyStep !== null && n.step < c.replyStep),
    );
    expect(late).toBe(true);
    expect(run.violations.map((v) => `${v.checker}: ${v.message}`)).toEqual([]);
  });

  it('a consumer that re-sends after a non-retryable answer it had received still fails it', async () => {
    const def = propertyById('consumer') as PropertyDef;
    const variant = { ...REFERENCE, consumerBugs: ['consumer-retries-non-retryable'] };
    const result = await fuzzProperty(def, { seed: 0, runs: 300, variant });
    expect(result.status).toBe('failed');
    expect(result.failure?.replay.violations.map((v) => v.checker)).toContain('consumer-retry-discipline');
  });
});
