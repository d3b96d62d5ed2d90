/**
 * my-agent fuzzed from a test suite: one vitest test per consumer-driven property, my-agent in
 * place of the reference consumer. In your own project: `import { describeConsumer } from
 * 'cetp-sim/vitest'`. `runs` is lowered to keep cetp-sim's own `npm test` short.
 */
import { describeConsumer } from '../../src/vitest.ts';
import { consumer } from './my-agent.consumer.ts';

describeConsumer(consumer, {
  module: './examples/my-agent/my-agent.consumer.ts',
  runs: 25,
  replayDir: null,
});
