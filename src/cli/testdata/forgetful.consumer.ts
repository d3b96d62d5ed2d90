/**
 * A `--consumer` module with a bug of its own (used by the CLI tests): the reference consumer that
 * builds every retry with a fresh request_id, whatever variant the fuzzer asks for.
 */
import { referenceConsumer } from '../../consumer/index.ts';

export const consumer = {
  ...referenceConsumer,
  name: 'forgetful',
  install: (
    world: Parameters<typeof referenceConsumer.install>[0],
    options: Parameters<typeof referenceConsumer.install>[1],
  ) =>
    referenceConsumer.install(world, {
      ...options,
      variant: {
        ...options.variant,
        consumerBugs: [...options.variant.consumerBugs, 'consumer-new-request-id-on-retry'],
      },
    }),
};
