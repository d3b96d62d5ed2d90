/** A bare ContentProvider that answers every call with an empty Bundle. */
import { Bundle } from '../../../sim/binder/bundle.ts';
import { bareProvider } from './kit.ts';

export const providers = [bareProvider(() => new Bundle())];
