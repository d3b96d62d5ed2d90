/**
 * Provider resolutions and the consumer's own approval (spec §4.3, §7.2; ANDROID-FACTS §4).
 *
 * A resolution PendingIntent is launched only after it is verified as the provider's own: created
 * by the provider's UID (getCreatorUid is system-supplied and unforgeable, but anyone can relay a
 * token someone else created), immutable, and explicit — every component it resolves to is in the
 * provider's package. Otherwise it is refused, and the execution ends with a typed failure: a
 * hostile provider cannot make the consumer open another app's screen, or a mutable token another
 * app could re-target (4.3-02, 7.2-04, 7.2-05 as seen from the consumer).
 *
 * The consumer then waits for the Activity result before it resumes (4.3-12). Per
 * interpretations.md it resumes with the same request_id and the resume_token after RESULT_OK and
 * after RESULT_CANCELED (Back) alike: the provider, not the consumer, decides what the user meant.
 *
 * The local approval is the consumer's own dialog in front of a call (1-02, 4.3-10): it can stop a
 * call, never stand in for the provider's confirmation, and nothing of it is sent.
 */

import type { AppContext } from '../sim/app/context.ts';
import type { Waiter } from '../sim/core/scheduler.ts';
import { Activity, RESULT_CANCELED, RESULT_OK } from '../sim/ui/activity.ts';
import { Intent } from '../sim/ui/intent.ts';
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import type { ConsumerGates } from './gates.ts';
import type { ApprovalRequest, ConsumerConfig } from './options.ts';

export const APPROVAL_ACTIVITY = 'CetpApprovalActivity';

export type ResolutionCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string; readonly ruleIds: readonly string[] };

/** Is `pi` the provider's own explicit, immutable resolution? */
export function verifyResolution(
  pi: PendingIntent,
  provider: { readonly packageName: string; readonly uid: number },
  gates: ConsumerGates,
): ResolutionCheck {
  if (gates.on('CETP-4.3-02') && pi.getCreatorUid() !== provider.uid) {
    return { ok: false, reason: 'foreign_creator', ruleIds: ['CETP-4.3-02', 'CETP-7.2-04'] };
  }
  if (gates.on('CETP-7.2-05') && !pi.isImmutable()) {
    return { ok: false, reason: 'mutable', ruleIds: ['CETP-4.3-02', 'CETP-7.2-05'] };
  }
  if (gates.on('CETP-7.2-05')) {
    const targets = pi.queryIntentComponents();
    if (!pi.isTargetedToPackage() || targets.length === 0) {
      return { ok: false, reason: 'not_explicit', ruleIds: ['CETP-4.3-02', 'CETP-7.2-05'] };
    }
    if (targets.some((c) => c.packageName !== provider.packageName)) {
      return { ok: false, reason: 'foreign_target', ruleIds: ['CETP-4.3-02', 'CETP-7.2-05'] };
    }
  }
  return { ok: true };
}

/**
 * The consumer targets 34: the provider's resolution is another app's PendingIntent, and Android 14+
 * lets the sender's foreground start it only with this opt-in (ActivityOptions
 * setPendingIntentBackgroundActivityStartMode(MODE_BACKGROUND_ACTIVITY_START_ALLOWED)); without it
 * the launch is silently aborted as a background start and comes back RESULT_CANCELED.
 */
const LEND_BACKGROUND_START = { pendingIntentBackgroundActivityStartAllowed: true } as const;

/**
 * The consumer has one screen. While one of its launches is showing another app's Activity, the
 * consumer has no visible window, and Android blocks any further start from it as a background
 * activity start (it comes back RESULT_CANCELED without the user ever seeing it). So launches for a
 * result — resolutions and the local approval — take turns: the next starts once the previous
 * Activity returned and the consumer is in front again. Found by a campaign (seed 19, consumer):
 * a second thread's resolution was blocked behind the first and resumed with no user decision.
 */
export class ScreenTurns {
  private busy = false;
  private readonly queue: Waiter<void>[] = [];

  async take<T>(context: AppContext, launch: () => Promise<T>): Promise<T> {
    if (this.busy) {
      const turn = context.waiter<void>('the consumer screen');
      this.queue.push(turn);
      await turn.wait();
    } else this.busy = true;
    try {
      return await launch();
    } finally {
      this.pass();
    }
  }

  /** Hands the screen to the next waiting launch still alive (a dead one cannot take it). */
  private pass(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) if (next.wake()) return;
    this.busy = false;
  }
}

export type LaunchResult =
  | { readonly ok: true; readonly resultCode: number; readonly waited: boolean }
  | { readonly ok: false; readonly reason: string };

/** Launches a verified resolution and waits for its Activity result (4.3-12). */
export async function launchResolution(
  context: AppContext,
  pi: PendingIntent,
  gates: ConsumerGates,
  screen: ScreenTurns,
): Promise<LaunchResult> {
  if (!gates.on('CETP-4.3-12')) {
    // Rule ablation: fire and forget, resuming at once without the Activity result.
    context.spawn(
      'cetp-resolution',
      async () => {
        try {
          await context.startIntentSenderForResult(pi, null, 0, LEND_BACKGROUND_START);
        } catch {
          // nothing waits for it
        }
      },
      { daemon: true },
    );
    return { ok: true, resultCode: RESULT_CANCELED, waited: false };
  }
  try {
    const result = await screen.take(context, () =>
      context.startIntentSenderForResult(pi, null, 0, LEND_BACKGROUND_START),
    );
    return { ok: true, resultCode: result.resultCode, waited: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.name : 'launch_failed' };
  }
}

/** Asks the local approval (if the config has one); true = go ahead. */
export async function askLocalApproval(
  context: AppContext,
  config: ConsumerConfig,
  request: ApprovalRequest,
): Promise<boolean> {
  const approval = config.localApproval;
  if (approval === 'none') return true;
  if (typeof approval === 'function') return approval(request);
  const intent = Intent.explicit(context.packageName, APPROVAL_ACTIVITY);
  intent.extras.putString('provider', request.providerLabel);
  intent.extras.putString('provider_id', request.providerId);
  intent.extras.putString('tool', request.title);
  intent.extras.putString('effect', request.effect);
  intent.extras.putString('risk', request.risk);
  intent.extras.putBoolean('destructive', request.destructive);
  try {
    const result = await config.screen.take(context, () => context.startActivityForResult(intent));
    return result.resultCode === RESULT_OK;
  } catch {
    return false;
  }
}

/** The consumer's own "are you sure?" dialog (local approval 'activity'). */
export class CetpApprovalActivity extends Activity {
  override async onCreate(): Promise<void> {
    const x = this.intent.extras;
    const answer = await this.show({
      title: `Let the assistant use ${x.getString('provider') ?? 'an app'}?`,
      lines: [
        `Tool: ${x.getString('tool') ?? '?'}`,
        `Effect: ${x.getString('effect') ?? '?'}, risk: ${x.getString('risk') ?? '?'}${x.getBoolean('destructive') ? ', cannot be undone' : ''}`,
        'The app may still ask you to confirm in its own screen.',
      ],
      approveLabel: 'Continue',
      denyLabel: 'Cancel',
    });
    if (answer === 'back') return;
    this.setResult(answer === 'approve' ? RESULT_OK : RESULT_CANCELED);
    this.finish();
  }
}
