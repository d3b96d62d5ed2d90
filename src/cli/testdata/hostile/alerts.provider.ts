/** The alerts app through the public API, unpatched: the forgers' control (used by the tests). */
import { ALERTS } from './alerts.ts';

export const providers = [ALERTS];
