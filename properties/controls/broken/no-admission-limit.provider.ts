/**
 * NOT a control: the alerts and payments apps admitting every execution, however many of a session
 * are in flight (CETP-5-17 dropped: never RATE_LIMITED). `admission-limit` must fail them.
 */
import { ALERTS, PAYMENTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { withoutRule } from './without-rule.ts';

export const providers = [
  withoutRule(ALERTS, 'alerts_unlimited', 'CETP-5-17'),
  withoutRule(PAYMENTS, 'payments_unlimited', 'CETP-5-17'),
];
