/** A bare ContentProvider that answers every call with a Bundle of the wrong shape. */
import { Bundle } from '../../../sim/binder/bundle.ts';
import { bareProvider } from './kit.ts';

export const providers = [
  bareProvider(() => {
    const b = new Bundle();
    b.putString('status', 'banana');
    b.putInt('data', 7);
    return b;
  }),
];
