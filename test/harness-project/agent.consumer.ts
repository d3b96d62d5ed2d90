// A user's consumer module, as `npx cetp-sim fuzz --consumer ./agent.consumer.ts` loads it: here the
// reference consumer as cetp-sim exports it.
export { referenceConsumer as consumer } from 'cetp-sim';
