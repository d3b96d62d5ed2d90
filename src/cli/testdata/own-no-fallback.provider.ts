/**
 * A `--provider` module whose args pool uses `$OWN:note_id` with no literal note_id to fall back on
 * (used by the CLI tests): refused, since before the caller owns a note there is no right one to use.
 */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export const providers = [
  {
    ...ALERTS,
    name: 'ownless',
    tools: { ...ALERTS.tools, delete_alert: [{ alert_id: '$OWN:alert_id' }] },
  },
];
