// A user's consumer under cetp-sim's consumer-driven properties.
import { describeConsumer } from 'cetp-sim/vitest';
import { consumer } from './agent.consumer.ts';

describeConsumer(consumer, { module: './agent.consumer.ts', property: ['consumer-versions'], runs: 15 });
