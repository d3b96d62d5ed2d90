/**
 * NOT a control: the alerts app applying only its tools' static policy (CETP-3.4-12 dropped): an
 * alert priced far from the quote, which its own policy calls riskier than the declared "moderate"
 * and wants confirmed, is created without asking. `runtime-risk-approved` must fail it.
 */
import { ALERTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { withoutRule } from './without-rule.ts';

export const providers = [withoutRule(ALERTS, 'ignores_runtime_risk', 'CETP-3.4-12')];
