/**
 * A `--provider` module as a user would write one (used by the CLI tests): the reference alerts app,
 * installed under the fixture name `myalerts`. A real module installs its own package in `install`.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export const providers = [{ ...ALERTS, name: 'myalerts' }];

export const propertyTools = { idempotency: ['myalerts.create_alert', 'myalerts.get_quote'], default: 'all' };
