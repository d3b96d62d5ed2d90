import { describe, expect, it } from 'vitest';
import { QUERY_ALL_PACKAGES } from './package-manager.ts';
import { type Certificate, rotatedSigning, type SigningDetails } from './signing.ts';
import { ALERTS, ALERTS_OLD, app, CLIENT, installError, MALLORY, newPm } from './testing.ts';

describe('permissions (R.attr#protectionLevel, "first one in wins")', () => {
  const declarer = (cert: Certificate | SigningDetails) =>
    app('com.ex.alerts', cert, {
      permissions: [
        { name: 'com.ex.alerts.READ', protectionLevel: 'normal' },
        { name: 'com.ex.alerts.TOOLS', protectionLevel: 'signature' },
        { name: 'com.ex.alerts.LOCATION', protectionLevel: 'dangerous' },
      ],
    });
  const requester = (name: string, cert: Certificate | SigningDetails) =>
    app(name, cert, {
      usesPermissions: ['com.ex.alerts.READ', 'com.ex.alerts.TOOLS', 'com.ex.alerts.LOCATION'],
    });

  /** The requester installed before the declarer: not granted (nothing is granted retroactively). */
  const requesterBeforeDeclarer = () => {
    const { pm } = newPm();
    const early = pm.install(requester('com.ex.client', CLIENT));
    pm.install(declarer(ALERTS));
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(false);
    return { pm, early };
  };

  it('grants normal permissions at install, signature ones only to a package signed by the declarer', () => {
    const { pm } = newPm();
    pm.install(declarer(ALERTS));
    const sibling = pm.install(requester('com.ex.alerts.widget', ALERTS));
    const stranger = pm.install(requester('com.ex.client', CLIENT));
    const bystander = pm.install(app('com.ex.bystander', CLIENT));
    expect(pm.checkPermission('com.ex.alerts.READ', stranger.uid)).toBe(true);
    expect(pm.checkPermission('com.ex.alerts.TOOLS', sibling.uid)).toBe(true);
    expect(pm.checkPermission('com.ex.alerts.TOOLS', stranger.uid)).toBe(false);
    expect(pm.checkPermission('com.ex.alerts.READ', bystander.uid)).toBe(false);
    expect(pm.checkPermission('com.ex.alerts.UNDECLARED', stranger.uid)).toBe(false);
  });

  it('grants a signature permission to a past key of the declarer only while it keeps the permission capability', () => {
    const { pm } = newPm();
    pm.install(declarer(rotatedSigning([ALERTS_OLD, ALERTS])));
    const oldKeyed = pm.install(requester('com.ex.legacy', ALERTS_OLD));
    expect(pm.checkPermission('com.ex.alerts.TOOLS', oldKeyed.uid)).toBe(true);

    const other = newPm().pm;
    other.install(
      declarer(rotatedSigning([{ cert: ALERTS_OLD, capabilities: { permission: false } }, ALERTS])),
    );
    const denied = other.install(requester('com.ex.legacy', ALERTS_OLD));
    expect(other.checkPermission('com.ex.alerts.TOOLS', denied.uid)).toBe(false);
  });

  it('does not retroactively grant to a package installed before the definer (CommonsWare, custom permissions)', () => {
    const { pm, early } = requesterBeforeDeclarer();
    // Updating the requester re-evaluates its grants (UPDATE_PERMISSIONS_REPLACE_PKG).
    pm.update(requester('com.ex.client', CLIENT));
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(true);
  });

  it('re-evaluates every package at reboot (inference: boot scan updateAllPermissions)', () => {
    const { pm, early } = requesterBeforeDeclarer();
    pm.reboot();
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(true);
    expect(pm.checkPermission('com.ex.alerts.TOOLS', early.uid)).toBe(false);
  });

  it('grants a dangerous permission only through grantRuntimePermission, and revocation notifies listeners', () => {
    const { pm } = newPm();
    pm.install(declarer(ALERTS));
    const client = pm.install(requester('com.ex.client', CLIENT));
    expect(pm.checkPermission('com.ex.alerts.LOCATION', client.uid)).toBe(false);
    pm.grantRuntimePermission('com.ex.client', 'com.ex.alerts.LOCATION');
    expect(pm.checkPermission('com.ex.alerts.LOCATION', client.uid)).toBe(true);
    const revoked: [number, string][] = [];
    pm.addListener({ onRuntimePermissionRevoked: (uid, p) => revoked.push([uid, p]) });
    pm.revokeRuntimePermission('com.ex.client', 'com.ex.alerts.LOCATION');
    expect(pm.checkPermission('com.ex.alerts.LOCATION', client.uid)).toBe(false);
    expect(revoked).toEqual([[client.uid, 'com.ex.alerts.LOCATION']]);
    expect(() => pm.grantRuntimePermission('com.ex.client', 'com.ex.alerts.READ')).toThrow(
      /not a changeable/,
    );
  });

  it('revokes everything a definer defined when it is uninstalled', () => {
    const { pm } = newPm();
    pm.install(declarer(ALERTS));
    const client = pm.install(requester('com.ex.client', CLIENT));
    pm.grantRuntimePermission('com.ex.client', 'com.ex.alerts.LOCATION');
    pm.uninstall('com.ex.alerts');
    expect(pm.checkPermission('com.ex.alerts.READ', client.uid)).toBe(false);
    expect(pm.checkPermission('com.ex.alerts.LOCATION', client.uid)).toBe(false);
    // Reinstalling the definer does not bring the grants back.
    pm.install(declarer(ALERTS));
    expect(pm.checkPermission('com.ex.alerts.READ', client.uid)).toBe(false);
    expect(pm.checkPermission('com.ex.alerts.LOCATION', client.uid)).toBe(false);
  });

  it('refuses a redeclaration by another signer (INSTALL_FAILED_DUPLICATE_PERMISSION); the first definition wins', () => {
    const { pm } = newPm();
    pm.install(declarer(ALERTS));
    const downgrade = app('com.evil.app', MALLORY, {
      permissions: [{ name: 'com.ex.alerts.TOOLS', protectionLevel: 'normal' }],
    });
    expect(installError(() => pm.install(downgrade)).code).toBe('INSTALL_FAILED_DUPLICATE_PERMISSION');
    const sameSigner = app('com.ex.alerts.plugin', ALERTS, {
      permissions: [{ name: 'com.ex.alerts.TOOLS', protectionLevel: 'normal' }],
    });
    expect(() => pm.install(sameSigner)).not.toThrow();
    const stranger = pm.install(requester('com.ex.client', CLIENT));
    expect(pm.checkPermission('com.ex.alerts.TOOLS', stranger.uid)).toBe(false);
  });

  it('platform permissions: normal ones are granted on request, QUERY_ALL_PACKAGES included', () => {
    const { pm } = newPm();
    const client = pm.install(
      app('com.ex.client', CLIENT, { usesPermissions: ['android.permission.INTERNET'] }),
    );
    expect(pm.checkPermission('android.permission.INTERNET', client.uid)).toBe(true);
    expect(pm.checkPermission(QUERY_ALL_PACKAGES, client.uid)).toBe(false);
  });
});
