/**
 * The catalogue of user-level mistakes (≥ 20): mistakes in an app's own code, not in the SDK, each a
 * change (build.ts `Variation`) of a correct generated app, applied to every app it fits. Each says
 * the properties most likely to catch it and, for the misses, which oracle would be needed.
 */

import type { Mistake } from './mistake-kit.ts';
import { BEHAVIOUR_MISTAKES } from './mistakes-behaviour.ts';
import { STATE_MISTAKES } from './mistakes-state.ts';
import { NO_VARIANT } from './variants.ts';

export type { Mistake } from './mistake-kit.ts';

/**
 * A mistake in the app's code is applied to the app with its default manifest (no variants: one
 * process, no permission guard, one user), so the catalogue's figures stay comparable with those
 * before the manifest variants (docs/zoo.md "Manifest variants": with them, two marginal catches on
 * app 0 of seed 1 were lost to the timing a separate provider process brings); a mistake about the
 * manifest (`trusts-permission-gate`) keeps the app's variants.
 */
const onDefaultManifest = (m: Mistake): Mistake =>
  m.manifestMistake ? m : { ...m, variation: { ...m.variation, manifest: () => NO_VARIANT } };

export const MISTAKES: readonly Mistake[] = [...STATE_MISTAKES, ...BEHAVIOUR_MISTAKES].map(onDefaultManifest);

export function mistakeById(id: string): Mistake | undefined {
  return MISTAKES.find((m) => m.id === id);
}
