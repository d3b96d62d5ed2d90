/**
 * my-agent as a fuzz subject:
 *
 *   npx cetp-sim fuzz --consumer examples/my-agent/my-agent.consumer.ts
 *
 * runs the consumer-driven properties with my-agent in place of the reference consumer.
 */
export { myAgent as consumer } from './my-agent.ts';
