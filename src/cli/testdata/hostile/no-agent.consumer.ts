/** A `--consumer` module of the wrong shape: no agent() (used by the tests). */
import { referenceConsumer } from 'cetp-sim';

export const consumer = {
  name: 'noagent',
  packageName: referenceConsumer.packageName,
  install: referenceConsumer.install,
};
