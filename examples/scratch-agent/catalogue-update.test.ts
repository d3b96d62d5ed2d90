/**
 * consumer-uses-current-catalogue (CETP-3.3-04, 3.3-05) can fail: in a consumer scenario that updates
 * the alerts app mid-run to a new catalogue (get_quote and delete_alert gone, a new revision), a
 * generated consumer that keeps the first catalogue it cached whatever revision list_tools names
 * (the zoo's `catalogue-ignores-revision`) executes get_quote in a session whose list no longer names
 * it; the same consumer without the mistake, the reference consumer and this scratch agent do not.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentCommand,
  type ConsumerScenario,
  REFERENCE_CONSUMER,
  runConsumerScenario,
} from '../../src/fuzz/scenario/consumer.ts';
import { REFERENCE } from '../../src/fuzz/scenario/model.ts';
import { CONSUMER_PROPERTIES } from '../../src/fuzz/suites-consumer.ts';
import type { ConsumerUnderTest } from '../../src/index.ts';
import { buildConsumer } from '../../src/zoo/consumer/build.ts';
import { generateConsumers } from '../../src/zoo/consumer/generate.ts';
import { consumerMistakeById } from '../../src/zoo/consumer/mistakes.ts';
import { consumer as scratch } from './agent.consumer.ts';

const quote: AgentCommand = {
  kind: 'execute',
  provider: 'alerts',
  tool: 'get_quote',
  args: 0,
  cancelAfterMs: null,
};

/** Read the alerts catalogue (the update follows), then, after it, ask get_quote again and list. */
const SCENARIO: ConsumerScenario = {
  seed: 7,
  tail: 'fifo',
  threads: [[quote], [{ kind: 'wait', ms: 20_000 }, quote, { kind: 'list' }]],
  consumerRestartsAtMs: [],
  hostile: null,
  consumerCaps: 0,
  user: [],
  faults: [],
  decisions: [],
  lostExecuteReply: null,
  catalogueUpdate: { afterListing: 1, delayMs: 0 },
};

const consumerProperty = CONSUMER_PROPERTIES.find((p) => p.id === 'consumer');

async function checkersFired(consumer: ConsumerUnderTest): Promise<string[]> {
  if (!consumerProperty) throw new Error('no consumer property');
  const run = await runConsumerScenario({ ...consumerProperty.fixture, consumer }, SCENARIO, REFERENCE);
  expect(run.observation.events.some((e) => e.kind === 'pm.update')).toBe(true);
  return [...new Set(run.violations.map((v) => v.checker))];
}

describe('consumer-uses-current-catalogue (3.3-04, 3.3-05) after a catalogue update mid-run', () => {
  // A generated consumer that keeps catalogues (catalogueRevisions > 0), as the mistake needs.
  const spec = generateConsumers(1, 20).find((s) => s.catalogueRevisions > 0);

  it('fails a consumer that uses its first cached catalogue whatever revision list_tools names', async () => {
    const mistake = consumerMistakeById('catalogue-ignores-revision');
    if (!spec || !mistake) throw new Error('no consumer or mistake');
    expect(await checkersFired(buildConsumer(spec, mistake.change))).toContain(
      'consumer-uses-current-catalogue',
    );
  }, 60_000);

  it('passes the same consumer without the mistake, the reference consumer and the scratch agent', async () => {
    if (!spec) throw new Error('no consumer');
    expect(await checkersFired(buildConsumer(spec, (c) => c))).toEqual([]);
    expect(await checkersFired(REFERENCE_CONSUMER)).toEqual([]);
    expect(await checkersFired(scratch)).toEqual([]);
  }, 60_000);
});
