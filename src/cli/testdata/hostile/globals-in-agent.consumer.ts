/** A `--consumer` module whose agent replaces Date.now while it runs (used by the tests). */
import { referenceConsumer } from 'cetp-sim';

export const consumer = {
  ...referenceConsumer,
  name: 'clockpatcher',
  agent: (context: Parameters<typeof referenceConsumer.agent>[0]) => {
    Date.now = () => context.currentTimeMillis();
    return referenceConsumer.agent(context);
  },
};
