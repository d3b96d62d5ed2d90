/**
 * NOT a control: a deliberately broken `--provider` module the malformed oracles must catch. The
 * reference alerts app behind a hand-written front door that trusts the Bundle's types — it reads
 * `deadline_at_ms` as a Long and `request_id` as a String and uses them at once, as code written
 * against a happy-path client does. A request whose deadline is stored as another type, or whose
 * request_id is missing, makes it throw (a NullPointerException / IllegalArgumentException reaches
 * the caller through Parcel.writeException) instead of answering INVALID_REQUEST.
 * `malformed-refused` (CETP-5-15, 9-03) must fail it (properties/controls/malformed-oracles.test.ts).
 */
import { ALERTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { AlertToolProvider, alertsPackage } from '../../../src/providers/apps/alerts.ts';
import { CONFIRM_ACTIVITY } from '../../../src/providers/sdk/confirmations.ts';
import { CETP_PROVIDER } from '../../../src/providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../../../src/providers/sdk/provider.ts';
import type { Bundle } from '../../../src/sim/binder/bundle.ts';
import { IllegalArgumentException, NullPointerException } from '../../../src/sim/core/errors.ts';
import type { World } from '../../../src/sim/world.ts';

class TrustsTypes extends AlertToolProvider {
  override call(authority: string, method: string, arg: string | null, extras: Bundle | null) {
    if (method !== 'negotiate' && extras?.containsKey('protocol_version')) {
      const rid = extras.getString('request_id');
      if (rid === null) throw new NullPointerException('request_id.length() on a null object reference');
      if (extras.typeOf('deadline_at_ms') !== 'Long')
        throw new IllegalArgumentException('deadline_at_ms: expected Long');
    }
    return super.call(authority, method, arg, extras);
  }
}

export const providers = [
  {
    ...ALERTS,
    name: 'throws_on_wrong_type',
    install: (world: World) =>
      world.install(alertsPackage(), () => {
        const provider = new TrustsTypes({});
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      }),
  },
];
