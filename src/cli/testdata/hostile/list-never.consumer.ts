/** A `--consumer` module whose agent's listTools() returns a Promise that never settles (used by the tests). */
import { referenceConsumer } from 'cetp-sim';

export const consumer = {
  ...referenceConsumer,
  name: 'listnever',
  agent: (context: Parameters<typeof referenceConsumer.agent>[0]) => {
    const bridge = referenceConsumer.agent(context);
    return {
      listTools: () => new Promise<never>(() => {}),
      cancellation: () => bridge.cancellation(),
      executeJson: (p: string, t: string, a: string, o: { cancel?: unknown }) =>
        bridge.executeJson(p, t, a, o as never),
    };
  },
};
