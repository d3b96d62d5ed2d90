/**
 * Control: slow providers. The reference alerts and payments apps, except that after the SDK has
 * produced a reply — with the caller's identity read synchronously as 7.1-01 requires — they wait
 * 400 ms of simulated time (a disk flush, a metrics upload) before returning it.
 *
 * Unusual but legal: the spec bounds a provider's latency only by the caller's deadline; it says
 * (§4.1) "Consumer 超时并不代表 Provider 已停止" — slowness and consumer timeouts are expected, and
 * a late reply is still a reply. A test bed that breaks here is judging timing, not the protocol —
 * or, as the SDK did (issue #14), closes a file result's descriptor before the reply is sent (EBADF).
 *
 * An execution's wait runs in the SDK's `replyTail`, inside its admission slot: the call holds its
 * Binder thread until it returns, so max_concurrent_requests counts it in flight until then (5-17).
 * A first version wrapped call() for every method; its executions' waits ran after the slot was
 * freed, and a fifth execution of a session was admitted while four were still returning
 * (`admission-limit`, `fuzz --provider … --property idempotency --runs 5`, seed 0).
 */

import { ALERTS, PAYMENTS, providerOptions } from '../../src/fuzz/scenario/fixtures.ts';
import type { Variant } from '../../src/fuzz/scenario/model.ts';
import { AlertToolProvider, alertsPackage } from '../../src/providers/apps/alerts.ts';
import { PaymentsToolProvider, paymentsPackage } from '../../src/providers/apps/payments.ts';
import { CONFIRM_ACTIVITY } from '../../src/providers/sdk/confirmations.ts';
import { CETP_PROVIDER } from '../../src/providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../../src/providers/sdk/provider.ts';
import type { ProviderOptions } from '../../src/providers/sdk/types.ts';
import type { Bundle } from '../../src/sim/binder/bundle.ts';
import type { PackageSpec } from '../../src/sim/pm/manifest.ts';
import type { World } from '../../src/sim/world.ts';

const DELAY_MS = 400;

/** The SDK's reply to `call`, returned only after DELAY_MS of simulated time (every method but execute_tool). */
export function later(provider: CetpV2ContentProvider, reply: Promise<Bundle>): Promise<Bundle> {
  return (async () => {
    const answer = await reply;
    await provider.context.sleep(DELAY_MS);
    return answer;
  })();
}

class SlowAlerts extends AlertToolProvider {
  override call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
  ): Promise<Bundle> {
    const reply = super.call(authority, method, arg, extras);
    return method === 'execute_tool' ? reply : later(this, reply);
  }

  protected override replyTail(): Promise<void> {
    return this.context.sleep(DELAY_MS);
  }
}

class SlowPayments extends PaymentsToolProvider {
  override call(
    authority: string,
    method: string,
    arg: string | null,
    extras: Bundle | null,
  ): Promise<Bundle> {
    const reply = super.call(authority, method, arg, extras);
    return method === 'execute_tool' ? reply : later(this, reply);
  }

  protected override replyTail(): Promise<void> {
    return this.context.sleep(DELAY_MS);
  }
}

export function installer(
  pkg: () => PackageSpec,
  Provider: new (o: Partial<ProviderOptions>) => CetpV2ContentProvider,
) {
  return (world: World, variant: Variant) => {
    world.install(pkg(), () => {
      const provider = new Provider(providerOptions(variant));
      return {
        providers: { [CETP_PROVIDER]: provider },
        activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
      };
    });
  };
}

export const providers = [
  { ...ALERTS, name: 'slow_alerts', install: installer(alertsPackage, SlowAlerts) },
  { ...PAYMENTS, name: 'slow_payments', install: installer(paymentsPackage, SlowPayments) },
];
