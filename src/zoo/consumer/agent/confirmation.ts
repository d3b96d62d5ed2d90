/**
 * Provider resolutions (spec §4.3, §7.2): AUTH_REQUIRED / USER_ACTION_REQUIRED come with a
 * PendingIntent to the provider's own screen and a resume_token.
 *
 * - Launched only if it is verifiably the provider's (`conduct.isProvidersOwn`: created by the UID
 *   serving its authority, immutable, explicit to that package; 4.3-02, 7.2-04, 7.2-05).
 * - Launched with startIntentSenderForResult, and the call is resumed only after the Activity
 *   result arrived (4.3-12, `conduct.startResolution`) — with the same request_id plus the
 *   resume_token (4.3-07), after RESULT_OK and RESULT_CANCELED alike.
 * - We have one screen: launches take turns (a second start while another app's Activity is on
 *   top would be a blocked background start).
 */
import type { AppContext, PendingIntent } from '../../../index.ts';
import type { Conduct } from './conduct.ts';

export class Screen {
  private busy = false;
  private readonly queue: ((v: undefined) => boolean)[] = [];

  constructor(
    private readonly context: AppContext,
    private readonly conduct: Conduct,
  ) {}

  /** Launches `pi` when the screen is ours, and waits for its result. false: it could not start. */
  async launch(pi: PendingIntent): Promise<boolean> {
    if (this.busy) {
      const turn = this.context.waiter<undefined>('zoo agent screen');
      this.queue.push((v) => turn.wake(v));
      await turn.wait();
    } else this.busy = true;
    try {
      await this.conduct.startResolution(this.context, pi);
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
