/**
 * The provider publish timeout (FIDELITY.md rows 10, 35.8d). ActivityManagerService
 * `attachApplicationLocked` posts CONTENT_PROVIDER_PUBLISH_TIMEOUT_MSG (ContentResolver
 * `CONTENT_PROVIDER_PUBLISH_TIMEOUT_MILLIS`, 10 s) only when
 * `providers != null && mCpHelper.checkAppInLaunchingProvidersLocked(app)`: the process has providers
 * to publish AND one of them is being launched for a client (ContentProviderHelper
 * `getContentProviderImpl` put it in mLaunchingProviders) — `processContentProviderPublishTimedOutLocked`
 * then removes the process. A process started for an Activity or by the user (an app's main process
 * whose provider runs in `android:process=":cetp"`, or any app's start for its confirmation screen)
 * has no such deadline: a slow start is slow, not killed.
 */
import type { TimedOut, Waiter } from './core/task.ts';
import { PROVIDER_PUBLISH_TIMEOUT_MS } from './world-types.ts';

/** Why a process is started: a client acquiring one of its providers, or anything else. */
export type StartReason = 'provider' | 'other';

/** Waits for a start: a provider's client gives up (and the process is removed) after 10 s. */
export function awaitStart(waiter: Waiter<boolean>, reason: StartReason): Promise<boolean | TimedOut> {
  return reason === 'provider' ? waiter.waitFor(PROVIDER_PUBLISH_TIMEOUT_MS) : waiter.wait();
}
