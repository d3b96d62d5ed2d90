/**
 * NOT a control: the alerts app relying on its JSON Schema alone (CETP-7.3-04 dropped): an alert
 * priced at 26 times the quote — schema-valid, refused by the app's business rules — is created once
 * the user confirms it. `business-refusal` must fail it.
 */
import { ALERTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { withoutRule } from './without-rule.ts';

export const providers = [withoutRule(ALERTS, 'no_business_rules', 'CETP-7.3-04')];
