/**
 * The catalogue of user-level mistakes (≥ 20): mistakes in an app's own code, not in the SDK, each a
 * change (build.ts `Variation`) of a correct generated app, applied to every app it fits. Each says
 * the properties most likely to catch it and, for the misses, which oracle would be needed.
 */

import type { Mistake } from './mistake-kit.ts';
import { BEHAVIOUR_MISTAKES } from './mistakes-behaviour.ts';
import { STATE_MISTAKES } from './mistakes-state.ts';

export type { Mistake } from './mistake-kit.ts';

export const MISTAKES: readonly Mistake[] = [...STATE_MISTAKES, ...BEHAVIOUR_MISTAKES];

export function mistakeById(id: string): Mistake | undefined {
  return MISTAKES.find((m) => m.id === id);
}
