/**
 * A zoo consumer as a `--consumer` module exports it: `zooConsumer(seed, index, mistake)` rebuilds
 * the generated consumer (and its mistake) from the zoo's seed and the consumer's index, so a replay
 * file written by `cetp-sim zoo --consumers --out DIR` re-runs with
 * `npx cetp-sim replay FILE --consumer DIR/…consumer.ts`.
 */
import type { ConsumerUnderTest } from '../../index.ts';
import type { Cancellation } from './agent/cancellation.ts';
import { buildConsumer } from './build.ts';
import { generateConsumer } from './generate.ts';
import { consumerMistakeById } from './mistakes.ts';

export function zooConsumer(
  seed: number,
  index: number,
  mistake: string | null = null,
): ConsumerUnderTest<Cancellation> {
  const spec = generateConsumer(seed, index);
  if (mistake === null) return buildConsumer(spec);
  const found = consumerMistakeById(mistake);
  if (!found) throw new Error(`no consumer zoo mistake ${mistake}`);
  return buildConsumer(spec, found.change);
}
