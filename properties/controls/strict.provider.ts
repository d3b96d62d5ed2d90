/**
 * Control: providers configured at the edges of what the spec allows. The reference alerts and
 * payments apps, serving v2 only, one request at a time, asking pollers to wait 5 s, hashing args as
 * RFC 8785 canonical JSON and refusing another UID's session token as INVALID_REQUEST.
 *
 * Unusual but legal:
 * - §2.2 limits: "max_concurrent_requests >= 1" — one is the floor, so concurrent calls are refused
 *   (RATE_LIMITED/retryable) far more often than with the reference's four;
 * - §2.1/§8: v1 is optional ("双栈" is a provider's choice); a v2-only provider answers a v1 call
 *   with UNSUPPORTED_VERSION (its manifest declares v2 only, so no one may expect v1);
 * - §4.4: poll_after_ms is the provider's to choose (the example's 1000 is an example);
 * - spec/interpretations.md NOTES 6 and 8a: the args digest may be taken over canonical JSON, and a
 *   session token of another UID may be refused as INVALID_REQUEST — both readings are defensible.
 */

import { ALERTS, PAYMENTS, providerOptions } from '../../src/fuzz/scenario/fixtures.ts';
import type { Variant } from '../../src/fuzz/scenario/model.ts';
import { ALERTS_AUTHORITY, ALERTS_PACKAGE, alertsApp } from '../../src/providers/apps/alerts.ts';
import { paymentsApp, paymentsPackage } from '../../src/providers/apps/payments.ts';
import { providerPackage } from '../../src/providers/sdk/manifest.ts';
import { DEFAULT_PROVIDER_OPTIONS, type ProviderOptions } from '../../src/providers/sdk/types.ts';
import type { World } from '../../src/sim/world.ts';

function strict(variant: Variant): Partial<ProviderOptions> {
  return {
    ...providerOptions(variant),
    versions: [2],
    limits: { ...DEFAULT_PROVIDER_OPTIONS.limits, maxConcurrentRequests: 1 },
    pollAfterMs: 5_000,
    variants: { ...DEFAULT_PROVIDER_OPTIONS.variants, argsDigest: 'jcs', sessionMisuse: 'invalid_request' },
  };
}

export const providers = [
  {
    ...ALERTS,
    name: 'strict_alerts',
    install: (world: World, variant: Variant) =>
      world.install(
        providerPackage({
          packageName: ALERTS_PACKAGE,
          authority: ALERTS_AUTHORITY,
          versions: [2],
          cert: 'alerts-release',
        }),
        alertsApp(strict(variant)),
      ),
  },
  {
    ...PAYMENTS,
    name: 'strict_payments',
    install: (world: World, variant: Variant) =>
      world.install(paymentsPackage(), paymentsApp(strict(variant))),
  },
];
