/**
 * A `--provider` module whose fixture contradicts its provider's list_tools (used by the CLI tests):
 * it declares get_quote a write tool, which the alerts app's list_tools says is a read.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export const providers = [{ ...ALERTS, name: 'contra', effects: { ...ALERTS.effects, get_quote: 'create' } }];
