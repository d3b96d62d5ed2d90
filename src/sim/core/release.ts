/**
 * Android release profiles: the behaviours of `src/sim` that differ between the Android releases a
 * CETP implementation meets (`--android 14|15|16`, `WorldOptions.android`). Everything else is the
 * same on every profile. The default is DEFAULT_ANDROID (14): the behaviour the simulation had before
 * profiles existed, so the trace corpus and every recorded replay file without the field run as
 * before. Each switch names its AOSP source (paths under frameworks/base/ unless marked):
 *
 * - `balAutoOptInForResult`: a PendingIntent sent *for a result* lends the sender's background
 *   activity start rights without `setPendingIntentBackgroundActivityStartMode` (the sender is
 *   "auto-opted in" unless it explicitly DENIES): services/core/java/com/android/server/wm/
 *   BackgroundActivityStartController.java `BalState` constructor (`mIsCallForResult` →
 *   `AUTO_OPT_IN_CALL_FOR_RESULT`, behind the `balImproveRealCallerVisibilityCheck` flag). Android 14
 *   has no auto opt-in (a sender targeting 34+ must opt in); modelled on from 15.
 * - `balCreatorOptIn`: a creator targeting 35+ lends its rights only with its creation opt-in
 *   (`DEFAULT_RESCIND_BAL_PRIVILEGES_FROM_PENDING_INTENT_CREATOR`, a compat change gated on target
 *   35, BackgroundActivityStartController `getBackgroundStartPrivilegesAllowedByCreator`). It exists
 *   from Android 15; the pre-profile simulation applied it on every device, and so does profile 14
 *   (no app of the corpus targets 35, so nothing there changes).
 * - `frozenCalleeFails`: a two-way binder call into a frozen process fails: the kernel answers
 *   BR_FROZEN_REPLY and libbinder returns FAILED_TRANSACTION (frameworks/native/libs/binder/
 *   IPCThreadState.cpp `waitForResponse`: "Transaction failed because process frozen."), which Java
 *   sees as DeadObjectException (core/jni/android_util_Binder.cpp `signalExceptionForError`). The
 *   pre-profile simulation thawed the callee and served the call; profile 14 keeps that so the
 *   default runs as before (a simplification: 14's libbinder has BR_FROZEN_REPLY too), 15 and 16 fail.
 * - `pageBytes`: the page size, which sizes the binder receive buffer, BINDER_VM_SIZE = 1 MiB − 2
 *   pages (frameworks/native/libs/binder/ProcessState.cpp): 1,040,384 bytes with 4 KiB pages,
 *   1,015,808 with 16 KiB pages. Android 15 is the first release that runs on 16 KiB-page devices;
 *   profile 16 models such a device, 14 and 15 a 4 KiB one.
 */

/** The releases a profile exists for. */
export const ANDROID_RELEASES = [14, 15, 16] as const;
export type AndroidRelease = (typeof ANDROID_RELEASES)[number];

/** The profile a World gets when none is named (and a replay file without `android` ran on). */
export const DEFAULT_ANDROID: AndroidRelease = 14;

export interface ReleaseProfile {
  readonly release: AndroidRelease;
  /** A PendingIntent sent for a result auto-opts the sender in to lending its BAL rights. */
  readonly balAutoOptInForResult: boolean;
  /** A creator targeting 35+ lends BAL rights only when it opted in at creation. */
  readonly balCreatorOptIn: boolean;
  /** A two-way call into a frozen process fails (BR_FROZEN_REPLY) instead of thawing it. */
  readonly frozenCalleeFails: boolean;
  /** The device's page size in bytes. */
  readonly pageBytes: 4096 | 16384;
  /** BINDER_VM_SIZE: 1 MiB − 2 pages. */
  readonly binderBufferBytes: number;
  /** binder_alloc.c free_async_space: half the receive buffer. */
  readonly asyncBufferBytes: number;
}

function profile(
  release: AndroidRelease,
  switches: Omit<ReleaseProfile, 'release' | 'binderBufferBytes' | 'asyncBufferBytes'>,
): ReleaseProfile {
  const binderBufferBytes = 1024 * 1024 - 2 * switches.pageBytes;
  return Object.freeze({
    release,
    ...switches,
    binderBufferBytes,
    asyncBufferBytes: Math.floor(binderBufferBytes / 2),
  });
}

const PROFILES: Readonly<Record<AndroidRelease, ReleaseProfile>> = Object.freeze({
  14: profile(14, {
    balAutoOptInForResult: false,
    balCreatorOptIn: true,
    frozenCalleeFails: false,
    pageBytes: 4096,
  }),
  15: profile(15, {
    balAutoOptInForResult: true,
    balCreatorOptIn: true,
    frozenCalleeFails: true,
    pageBytes: 4096,
  }),
  16: profile(16, {
    balAutoOptInForResult: true,
    balCreatorOptIn: true,
    frozenCalleeFails: true,
    pageBytes: 16384,
  }),
});

export function isAndroidRelease(value: unknown): value is AndroidRelease {
  return (ANDROID_RELEASES as readonly unknown[]).includes(value);
}

/** The behaviour switches of `release` (DEFAULT_ANDROID when undefined). */
export function releaseProfile(release: AndroidRelease = DEFAULT_ANDROID): ReleaseProfile {
  return PROFILES[release];
}
