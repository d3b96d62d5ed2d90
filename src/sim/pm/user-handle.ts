/**
 * Android users (issue 35 item 8; FIDELITY.md row 35.8c): a UID is per user —
 * uid = userId × PER_USER_RANGE + appId (core/java/android/os/UserHandle.java `getUid`,
 * `getUserId`, `getAppId`; PER_USER_RANGE 100000). The same app installed for user 10 runs under
 * another UID than for user 0; a provider is resolved in the caller's own user
 * (services/core/java/com/android/server/am/ContentProviderHelper.java `getContentProviderImpl`:
 * `resolveContentProvider(name, flags, userId)` with the caller's user), so a provider of user 0 is
 * an unknown authority to an app of user 10 (reaching it takes a `userId@authority` URI and
 * INTERACT_ACROSS_USERS, not modelled). A package installed for both users
 * (PackageManager.installExistingPackageAsUser, table.ts addUser) has a UID, a process and a data
 * directory in each; each user's callers resolve their own user's provider (resolution.ts).
 */

/** UserHandle.PER_USER_RANGE. */
export const PER_USER_RANGE = 100_000;
/** UserHandle.USER_SYSTEM: the first user. */
export const USER_SYSTEM = 0;

/** UserHandle.getUid(userId, appId). */
export function uidOf(userId: number, appId: number): number {
  return userId * PER_USER_RANGE + (appId % PER_USER_RANGE);
}

/** UserHandle.getUserId(uid). */
export function userIdOf(uid: number): number {
  return Math.floor(uid / PER_USER_RANGE);
}

/** UserHandle.getAppId(uid). */
export function appIdOf(uid: number): number {
  return uid % PER_USER_RANGE;
}
