/**
 * NOT a control: the slow control (../slow.provider.ts) as it was first written — every reply,
 * execute_tool's too, held 400 ms by a wrapper around call(), after the SDK has freed the
 * execution's admission slot. The call still holds its Binder thread, so a fifth execution of a
 * session is admitted while four are returning: `admission-limit` (CETP-5-17) must fail it. The
 * SDK's `replyTail` is where such work belongs.
 */
import { ALERTS, PAYMENTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { AlertToolProvider, alertsPackage } from '../../../src/providers/apps/alerts.ts';
import { PaymentsToolProvider, paymentsPackage } from '../../../src/providers/apps/payments.ts';
import type { Bundle } from '../../../src/sim/binder/bundle.ts';
import { installer, later } from '../slow.provider.ts';

class TailAlerts extends AlertToolProvider {
  override call(authority: string, method: string, arg: string | null, extras: Bundle | null) {
    return later(this, super.call(authority, method, arg, extras));
  }
}

class TailPayments extends PaymentsToolProvider {
  override call(authority: string, method: string, arg: string | null, extras: Bundle | null) {
    return later(this, super.call(authority, method, arg, extras));
  }
}

export const providers = [
  { ...ALERTS, name: 'tail_alerts', install: installer(alertsPackage, TailAlerts) },
  { ...PAYMENTS, name: 'tail_payments', install: installer(paymentsPackage, TailPayments) },
];
