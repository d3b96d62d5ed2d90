/**
 * NOT a control: the payments app without its own output validation (CETP-4.2-03). Its backend's
 * legacy savings core answers interest amounts as strings, which export_statement's output schema
 * forbids; this provider sends them anyway. `output-schema` must fail it.
 */
import { PAYMENTS } from '../../../src/fuzz/scenario/fixtures.ts';
import { withoutRule } from './without-rule.ts';

export const providers = [withoutRule(PAYMENTS, 'unchecked_output', 'CETP-4.2-03')];
