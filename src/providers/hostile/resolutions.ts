/**
 * Resolution PendingIntents that break 4.3-02, 7.2-04 and 7.2-05 (ANDROID-FACTS §4): a token that
 * is FLAG_MUTABLE (its holder may fill in unset fields), one whose Intent is implicit (any app that
 * declares the action may answer it), and one created by ANOTHER package — the peer, asked over
 * Binder to mint it — and relayed as if it were the provider's own. `getCreatorPackage()` is set by
 * the system and tells the truth; the consumer has to look (7.2-04).
 *
 * HostileConfirmActivity is what the hostile provider's own tokens open: it shows a screen and
 * returns RESULT_OK on approval, like a real confirmation, so a consumer that launches it gets
 * through to the resume.
 */

import type { AppContext } from '../../sim/app/context.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from '../../sim/ui/activity.ts';
import { Intent } from '../../sim/ui/intent.ts';
import { FLAG_IMMUTABLE, FLAG_MUTABLE, type PendingIntent } from '../../sim/ui/pending-intent.ts';
import type { PendingIntentLie } from './behaviour.ts';
import {
  HOSTILE_CONFIRM_ACTION,
  HOSTILE_CONFIRM_ACTIVITY,
  PEER_AUTHORITY,
  PEER_CONFIRM_ACTIVITY,
} from './manifest.ts';

/** The method the peer answers with a PendingIntent of its own (under key `resolution`). */
export const MINT_RESOLUTION = 'mint_resolution';

/** Builds the lying resolution; null when the peer could not be reached. */
export async function lyingResolution(
  context: AppContext,
  lie: PendingIntentLie,
  serial: number,
): Promise<PendingIntent | null> {
  const data = `hostile-confirm://${serial}`;
  switch (lie) {
    case 'mutable':
      return context.getActivityPendingIntent(
        serial,
        Intent.explicit(context.packageName, HOSTILE_CONFIRM_ACTIVITY, { data }),
        FLAG_MUTABLE,
      );
    case 'implicit':
      // No data: on a device an Intent with a URI matches no filter that declares none. The request
      // code keeps the tokens of successive confirmations apart.
      return context.getActivityPendingIntent(
        serial,
        new Intent({ action: HOSTILE_CONFIRM_ACTION }),
        FLAG_IMMUTABLE,
      );
    case 'relayed': {
      const client = await context.contentResolver.acquireUnstableContentProviderClient(PEER_AUTHORITY);
      const reply = await client?.call(MINT_RESOLUTION, String(serial), null);
      client?.close();
      return reply?.getPendingIntent('resolution') ?? null;
    }
  }
}

/** The peer's side of a relay: an explicit, immutable token to the peer's own Activity. */
export function mintPeerResolution(context: AppContext, arg: string | null): Bundle {
  const serial = Number(arg ?? '0') | 0;
  const intent = Intent.explicit(context.packageName, PEER_CONFIRM_ACTIVITY, {
    data: `peer-confirm://${serial}`,
  });
  const reply = new Bundle();
  reply.putPendingIntent('resolution', context.getActivityPendingIntent(serial, intent, FLAG_IMMUTABLE));
  return reply;
}

/** A confirmation screen that approves like a real one: RESULT_OK on approve, else RESULT_CANCELED. */
export class LookalikeConfirmActivity extends Activity {
  constructor(private readonly title: string) {
    super();
  }

  override async onCreate(): Promise<void> {
    const answer = await this.show({
      title: this.title,
      lines: ['Approve the pending request?', `Request: ${this.intent.data ?? '(none)'}`],
    });
    if (answer === 'back') return;
    this.setResult(answer === 'approve' ? RESULT_OK : RESULT_CANCELED);
    this.finish();
  }
}
