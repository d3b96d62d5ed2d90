/**
 * Android users (issue 35 item 8; FIDELITY.md row 35.8c): a UID is per user —
 * uid = userId × PER_USER_RANGE + appId (core/java/android/os/UserHandle.java `getUid`,
 * `getUserId`, `getAppId`; PER_USER_RANGE 100000). The same app installed for user 10 runs under
 * another UID than for user 0; a provider is resolved in the caller's own user
 * (services/core/java/com/android/server/am/ContentProviderHelper.java `getContentProviderImpl`:
 * `resolveContentProvider(name, flags, userId)` with the caller's user), so a provider of user 0 is
 * an unknown authority to an app of user 10. Reaching another user's provider takes a
 * `userId@authority` (content://10@authority/…, ContentProvider.java `getUserIdFromAuthority`) and
 * INTERACT_ACROSS_USERS or _FULL (content/content.ts acquireProvider). A package installed for both users
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

/** UserHandle.USER_NULL: what an unparsable `userId@` prefix names (no user: nothing resolves). */
export const USER_NULL = -10_000;

/** android.Manifest.permission.INTERACT_ACROSS_USERS / _FULL (signature|privileged; platform-signed apps). */
export const INTERACT_ACROSS_USERS = 'android.permission.INTERACT_ACROSS_USERS';
export const INTERACT_ACROSS_USERS_FULL = 'android.permission.INTERACT_ACROSS_USERS_FULL';

/**
 * ContentProvider.getUserIdFromAuthority(auth, defaultUserId): the user before the last '@' of an
 * authority ("10@com.example.p" → 10), `defaultUserId` without one, USER_NULL if it is not a number.
 */
export function userIdFromAuthority(auth: string, defaultUserId: number): number {
  const end = auth.lastIndexOf('@');
  if (end === -1) return defaultUserId;
  const prefix = auth.slice(0, end);
  return /^[+-]?\d{1,9}$/.test(prefix) ? Number.parseInt(prefix, 10) : USER_NULL;
}

/** ContentProvider.getAuthorityWithoutUserId: what follows the last '@'. */
export function authorityWithoutUserId(auth: string): string {
  return auth.slice(auth.lastIndexOf('@') + 1);
}

/** ContentProvider.maybeAddUserId for an authority: `userId@authority` (how an app names another user's provider). */
export function authorityForUser(userId: number, authority: string): string {
  return `${userId}@${authorityWithoutUserId(authority)}`;
}
