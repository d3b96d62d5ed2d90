/**
 * The acquisition gate beyond a provider's own permissions: `<path-permission>`s and URI permission
 * grants (issue 35 item 8; FIDELITY.md row 35.8c). AMS lets a caller acquire a provider
 * (services/core/java/com/android/server/am/ContentProviderHelper.java
 * `checkContentProviderPermission`) when, in order:
 *
 * 1. it has the provider's UID, or the provider is exported and the caller holds its readPermission
 *    or writePermission (or it has none) — `checkComponentPermission`, which refuses every other UID
 *    of an unexported component;
 * 2. the provider is exported and the caller holds the read or write permission of any of its
 *    `<path-permission>`s (whatever path it names: the gate is per provider, not per URI);
 * 3. the caller holds a URI permission grant on any URI of one of the provider's authorities —
 *    exported or not (services/core/java/com/android/server/uri/UriGrantsManagerService.java
 *    `checkAuthorityGrantsLocked` / `matchesProvider`): an unexported FileProvider-style provider is
 *    acquirable by any app it granted a URI to.
 *
 * After that, `call()` checks nothing (ContentProvider.java `Transport.call`): a grant for one file
 * URI opens every `call` method of the provider. Grants are made with `Context.grantUriPermission`
 * (core/java/android/app/ContextImpl.java → UriGrantsManagerService `grantUriPermissionFromOwner` /
 * `checkGrantUriPermissionUnlocked`): only a provider with `android:grantUriPermissions="true"` may
 * have its URIs granted ("Provider … does not allow granting of Uri permissions"), and here only by
 * its own UID. Not modelled: `<grant-uri-permission>` path subsets, grants carried by Intent flags
 * (FLAG_GRANT_READ_URI_PERMISSION on a started Activity's Intent), persistable grants, revocation,
 * the per-URI read/write check of query/openFile (not the gate CETP's `call` meets). Grants are
 * not persisted: a reboot clears them (UriGrantsManagerService keeps only persistable ones).
 */
import { SecurityException } from '../core/errors.ts';
import {
  appIdOf,
  authorityWithoutUserId,
  INTERACT_ACROSS_USERS,
  INTERACT_ACROSS_USERS_FULL,
  userIdOf,
} from '../pm/user-handle.ts';

/** Intent.FLAG_GRANT_READ_URI_PERMISSION / FLAG_GRANT_WRITE_URI_PERMISSION. */
export const FLAG_GRANT_READ_URI_PERMISSION = 0x1;
export const FLAG_GRANT_WRITE_URI_PERMISSION = 0x2;

/** A `<path-permission>` of a provider's manifest declaration. */
export interface PathPermissionSpec {
  readonly pathPrefix: string;
  readonly readPermission?: string;
  readonly writePermission?: string;
  /** Both (each overridden by its own attribute). */
  readonly permission?: string;
}

/** What the gate needs of a resolved provider. */
export interface GatedProvider {
  readonly packageName: string;
  readonly name: string;
  readonly uid: number;
  readonly authorities: readonly string[];
  readonly exported: boolean;
  readonly readPermission: string | null;
  readonly writePermission: string | null;
  readonly pathPermissions?: readonly PathPermissionSpec[];
  readonly grantUriPermissions?: boolean;
}

interface Grant {
  /** The granting provider's package and UID: a grant is for that user's provider (GrantUri.sourceUserId). */
  readonly providerPackage: string;
  readonly providerUid: number;
  readonly toPackage: string;
  readonly toUid: number;
  readonly authority: string;
  readonly uri: string;
  readonly modeFlags: number;
}

/** The authority of a `content://authority/path` URI, or null. */
export function authorityOf(uri: string): string | null {
  const m = /^content:\/\/([^/?#]+)/.exec(uri);
  return m?.[1] ?? null;
}

/** The device's URI permission grants (UriGrantsManagerService `mGrantedUriPermissions`). */
export class UriGrants {
  private readonly grants: Grant[] = [];

  /** Context.grantUriPermission by `fromUid` to `to` (see the header for who may). */
  grant(
    provider: GatedProvider,
    fromUid: number,
    to: { readonly packageName: string; readonly uid: number },
    uri: string,
    modeFlags: number,
  ): void {
    if (provider.uid !== fromUid)
      throw new SecurityException(`UID ${fromUid} does not have permission to ${uri}`);
    if (provider.grantUriPermissions !== true)
      throw new SecurityException(
        `Provider ${provider.packageName}/${provider.name} does not allow granting of Uri permissions (uri ${uri})`,
      );
    const named = authorityOf(uri);
    const authority = named === null ? null : authorityWithoutUserId(named); // GrantUri: the URI without its user
    const flags = modeFlags & (FLAG_GRANT_READ_URI_PERMISSION | FLAG_GRANT_WRITE_URI_PERMISSION);
    if (authority === null || flags === 0) throw new SecurityException(`No permission grant for ${uri}`);
    this.grants.push({
      providerPackage: provider.packageName,
      providerUid: provider.uid,
      toPackage: to.packageName,
      toUid: to.uid,
      authority,
      uri,
      modeFlags: flags,
    });
  }

  /** checkAuthorityGrantsLocked: `uid` holds a grant on some URI of one of the provider's authorities. */
  hasAuthorityGrant(uid: number, provider: GatedProvider): boolean {
    return this.grants.some(
      (g) => g.toUid === uid && g.providerUid === provider.uid && provider.authorities.includes(g.authority),
    );
  }

  /**
   * UriGrantsManagerService `removeUriPermissionsForPackage(packageName, userHandle, …)`: the package
   * was uninstalled (for `userId` only, or for every user: null) — the grants its provider made and the
   * grants made to it, in that user, are gone (a reinstall for that user gets the same UID back).
   */
  removePackage(packageName: string, userId: number | null): void {
    const inUser = (uid: number) => userId === null || userIdOf(uid) === userId;
    const gone = (g: Grant) =>
      (g.providerPackage === packageName && inUser(g.providerUid)) ||
      (g.toPackage === packageName && inUser(g.toUid));
    const kept = this.grants.filter((g) => !gone(g));
    this.grants.splice(0, this.grants.length, ...kept);
  }

  /** A reboot: non-persistable grants are gone. */
  clear(): void {
    this.grants.length = 0;
  }
}

/**
 * ContentProviderHelper.checkContentProviderPermission: null when `callerUid` may acquire `p`,
 * else the denial's message (thrown as a SecurityException by the caller).
 */
export function acquisitionDenial(
  p: GatedProvider,
  callerUid: number,
  holds: (permission: string) => boolean,
  grants: UriGrants,
): string | null {
  // checkComponentPermission: UserHandle.isSameApp (one appId, any user) passes.
  if (appIdOf(p.uid) === appIdOf(callerUid)) return null;
  if (p.exported) {
    const top = [p.readPermission, p.writePermission].filter((x): x is string => x !== null);
    if (top.length === 0 || top.some(holds)) return null;
    for (const pp of p.pathPermissions ?? []) {
      const read = pp.readPermission ?? pp.permission;
      const write = pp.writePermission ?? pp.permission;
      if ((read !== undefined && holds(read)) || (write !== undefined && holds(write))) return null;
    }
  }
  if (grants.hasAuthorityGrant(callerUid, p)) return null;
  const opening = `Permission Denial: opening provider ${p.packageName}/${p.name} from uid ${callerUid}`;
  if (!p.exported) return `${opening} that is not exported from UID ${p.uid}`;
  return `${opening} requires ${[p.readPermission, p.writePermission].filter((x) => x !== null).join(' or ')}`;
}

/**
 * checkContentProviderPermission's first step when the provider is another user's (a caller naming
 * `userId@authority`): a URI grant on that user's provider passes (`checkAuthorityGrants` for
 * the target user); otherwise UserController.handleIncomingUser with ALLOW_NON_FULL needs
 * INTERACT_ACROSS_USERS_FULL or INTERACT_ACROSS_USERS, else a SecurityException with its wording.
 * Null when the caller may go on to the usual gate (acquisitionDenial), else the denial's message.
 */
export function crossUserDenial(
  p: GatedProvider,
  callerUid: number,
  holds: (permission: string) => boolean,
  grants: UriGrants,
): string | null {
  if (userIdOf(p.uid) === userIdOf(callerUid) || grants.hasAuthorityGrant(callerUid, p)) return null;
  if (holds(INTERACT_ACROSS_USERS_FULL) || holds(INTERACT_ACROSS_USERS)) return null;
  return (
    `Permission Denial: checkContentProviderPermissionLocked ${p.authorities.join(';')} asks to run as user ` +
    `${userIdOf(p.uid)} but is calling from user ${userIdOf(callerUid)}; this requires ` +
    `${INTERACT_ACROSS_USERS_FULL} or ${INTERACT_ACROSS_USERS}`
  );
}
