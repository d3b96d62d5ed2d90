/**
 * A `--consumer` module (used by the CLI tests, and an example of the interface): the reference
 * consumer app, driven through its ExternalToolBridge.
 */
export { referenceConsumer as consumer } from '../../consumer/index.ts';
