/**
 * A `--provider` module that a crash leaves unusable (used by the crash-point tests): the alerts app
 * takes a lock of its own in storage around every write and refuses all work while the lock is held
 * — so a kill between taking and releasing it wedges the app for good, as a stale lock file does.
 * Without faults it behaves like the reference.
 */
import { ALERTS, providerOptions } from '../../fuzz/scenario/fixtures.ts';
import type { Variant } from '../../fuzz/scenario/model.ts';
import { AlertToolProvider, alertsPackage } from '../../providers/apps/alerts.ts';
import { CONFIRM_ACTIVITY } from '../../providers/sdk/confirmations.ts';
import { CETP_PROVIDER } from '../../providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../../providers/sdk/provider.ts';
import type { AccessDecision, AuthorizationRequest, MutationExecutor } from '../../providers/sdk/types.ts';
import type { World } from '../../sim/world.ts';

const LOCKS = 'app.locks';

class StaleLockAlerts extends AlertToolProvider {
  protected override mutationExecutor(): MutationExecutor {
    const storage = this.context.storage;
    return {
      async atomically(label, body) {
        await storage.put(LOCKS, 'writer', true);
        const result = await storage.transaction(label, body);
        await storage.transaction('unlock', (tx) => tx.delete(LOCKS, 'writer'));
        return result;
      },
    };
  }

  protected override async authorize(request: AuthorizationRequest): Promise<AccessDecision> {
    if ((await this.context.storage.get(LOCKS, 'writer')) === true) throw new Error('database is locked');
    return super.authorize(request);
  }
}

export const providers = [
  {
    ...ALERTS,
    name: 'lockedalerts',
    install: (world: World, variant: Variant) =>
      world.install(alertsPackage(), () => {
        const provider = new StaleLockAlerts(providerOptions(variant));
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      }),
  },
];
