/**
 * The scratch agent fuzzed from a test suite: one vitest test per consumer-driven property
 * (`consumer`, `consumer-versions`, `hostile`) at its CI budget, the scratch agent in place of the
 * reference consumer. In your own project: `import { describeConsumer } from 'cetp-sim/vitest'`.
 */
import { describeConsumer } from '../../src/vitest.ts';
import { consumer } from './agent.consumer.ts';

describeConsumer(consumer, {
  module: './examples/scratch-agent/agent.consumer.ts',
  replayDir: null,
});
