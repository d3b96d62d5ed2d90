/**
 * NOT a control: the alerts and payments apps without the size check on args (CETP-4.1-08): args
 * over the negotiated max_request_bytes that are otherwise valid (padded with JSON whitespace) are
 * executed. `malformed-refused` must fail them.
 */
import { ALERTS, PAYMENTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { withoutRule } from './without-rule.ts';

export const providers = [
  withoutRule(ALERTS, 'alerts_no_size_limit', 'CETP-4.1-08'),
  withoutRule(PAYMENTS, 'payments_no_size_limit', 'CETP-4.1-08'),
];
