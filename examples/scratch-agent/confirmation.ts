/**
 * Provider resolutions (spec §4.3, §7.2): AUTH_REQUIRED / USER_ACTION_REQUIRED come with a
 * PendingIntent to the provider's own screen and a resume_token.
 *
 * - Launched only if it is verifiably the provider's: created by the UID serving its authority
 *   (the creator UID is the system's, unforgeable), immutable, and explicit to that package
 *   (4.3-02, 7.2-04, 7.2-05). Otherwise it is refused and never opened.
 * - Launched with startIntentSenderForResult, and the call is resumed only after the Activity
 *   result arrived (4.3-12) — with the same request_id plus the resume_token (4.3-07), after
 *   RESULT_OK and RESULT_CANCELED alike: the provider, not us, decides what the user meant.
 * - We have one screen: launches take turns (a second start while another app's Activity is on
 *   top would be a blocked background start).
 */
import type { AppContext, PendingIntent } from '../../src/index.ts';

/** Android 14+: a 34-targeting sender must opt in to lend its foreground to the PendingIntent. */
const LEND_FOREGROUND = { pendingIntentBackgroundActivityStartAllowed: true } as const;

export function isProvidersOwn(pi: PendingIntent, provider: { packageName: string; uid: number }): boolean {
  if (pi.getCreatorUid() !== provider.uid || !pi.isImmutable() || !pi.isTargetedToPackage()) return false;
  const targets = pi.queryIntentComponents();
  return targets.length > 0 && targets.every((c) => c.packageName === provider.packageName);
}

export class Screen {
  private busy = false;
  private readonly queue: ((v: undefined) => boolean)[] = [];

  constructor(private readonly context: AppContext) {}

  /** Launches `pi` when the screen is ours, and waits for its result. false: it could not start. */
  async launch(pi: PendingIntent): Promise<boolean> {
    if (this.busy) {
      const turn = this.context.waiter<undefined>('scratch screen');
      this.queue.push((v) => turn.wake(v));
      await turn.wait();
    } else this.busy = true;
    try {
      await this.context.startIntentSenderForResult(pi, null, 0, LEND_FOREGROUND);
      return true;
    } catch {
      return false;
    } finally {
      this.pass();
    }
  }

  private pass(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) if (next(undefined)) return;
    this.busy = false;
  }
}
