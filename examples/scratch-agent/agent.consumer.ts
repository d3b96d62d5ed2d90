/**
 * The scratch agent as a fuzz subject:
 *
 *   npx cetp-sim fuzz --consumer examples/scratch-agent/agent.consumer.ts
 *
 * A consumer written from scratch on cetp-sim's public API (its own Binder calls, negotiation,
 * catalogue, journal, retry policy, confirmations, polling and file checks), in place of the
 * reference consumer in the consumer-driven properties. In your own project import from
 * 'cetp-sim' instead of the relative path.
 */
import type { ConsumerUnderTest } from '../../src/index.ts';
import { agentIn, SCRATCH_PACKAGE, SUPPORTED, scratchApp, scratchPackage } from './app.ts';
import type { Cancellation } from './cancellation.ts';

export const consumer: ConsumerUnderTest<Cancellation> = {
  name: 'scratchagent',
  packageName: SCRATCH_PACKAGE,
  install(world, { capabilities }) {
    world.install(scratchPackage(), scratchApp(SUPPORTED.filter((c) => capabilities.includes(c))));
  },
  agent: (context) => agentIn(context),
};
