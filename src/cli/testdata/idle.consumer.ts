/**
 * A `--consumer` module that does nothing (used by the CLI tests): installed like the reference
 * consumer, but its agent API answers every request at once without calling any provider. Every
 * oracle of the consumer-driven properties passes on it — there is nothing to judge — so the only
 * honest verdict is that those properties exercised nothing.
 */
import { referenceConsumer } from '../../consumer/index.ts';

export const consumer = {
  ...referenceConsumer,
  name: 'idle',
  agent: () => ({
    listTools: async () => [],
    cancellation: () => ({ cancel: () => {} }),
    executeJson: async () => ({ ok: false }),
  }),
};
