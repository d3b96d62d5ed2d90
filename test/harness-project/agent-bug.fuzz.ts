// The same consumer with a planted bug switched on (it falls back to v1 where it must not).
import { describeConsumer } from 'cetp-sim/vitest';
import { consumer } from './agent.consumer.ts';

describeConsumer(consumer, {
  module: './agent.consumer.ts',
  property: ['consumer-versions'],
  mutant: 'consumer-downgrades-to-v1',
  runs: 200,
});
