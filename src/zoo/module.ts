/**
 * A zoo app as a `--provider` module exports it: `zooProviders(seed, index, mistake)` rebuilds the
 * app (and its mistake) from the zoo's seed and the app's index, so a replay file written by
 * `cetp-sim zoo --out DIR` re-runs with `npx cetp-sim replay FILE --provider DIR/…provider.ts`.
 */
import type { ProviderFixture } from '../index.ts';
import { buildApp } from './build.ts';
import { generateApp } from './generate.ts';
import { mistakeById } from './mistakes.ts';

export function zooProviders(seed: number, index: number, mistake: string | null = null): ProviderFixture[] {
  const spec = generateApp(seed, index);
  if (mistake === null) return [buildApp(spec).fixture];
  const found = mistakeById(mistake);
  if (!found) throw new Error(`no zoo mistake ${mistake}`);
  return [buildApp(spec, found.variation).fixture];
}
