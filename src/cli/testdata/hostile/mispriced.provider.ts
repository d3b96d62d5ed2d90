/** The mispriced alerts app, unpatched: the vector forgers' control (used by the tests). */
import { MISPRICED_ALERTS } from './mispriced-alerts.ts';

export const providers = [MISPRICED_ALERTS];
