import { describe, expect, it } from 'vitest';
import type { ManifestSpec } from './manifest.ts';
import { type InstalledPackage, PackageInstallError } from './package-manager.ts';
import { certificate, rotatedSigning, signedWith } from './signing.ts';
import * as kit from './testing.ts';

describe('UID allocation (AppIdSettingMap)', () => {
  it('allocates application UIDs from 10000 in install order', () => {
    const { pm } = kit.newPm();
    const uids = ['com.ex.a', 'com.ex.b', 'com.ex.c'].map((n) => pm.install(kit.app(n, kit.CLIENT)).uid);
    expect(uids).toEqual([10000, 10001, 10002]);
    expect(pm.getPackageUid('com.ex.b')).toBe(10001);
    expect(pm.getPackageUid('com.ex.missing')).toBeNull();
  });

  it('does not reuse a freed UID within the same boot (removeSetting raises mFirstAvailableAppId)', () => {
    const { pm } = kit.newPm();
    for (const n of ['com.ex.a', 'com.ex.b', 'com.ex.c']) pm.install(kit.app(n, kit.CLIENT));
    pm.uninstall('com.ex.b');
    expect(pm.install(kit.app('com.ex.d', kit.CLIENT)).uid).toBe(10003);
    pm.uninstall('com.ex.a');
    expect(pm.install(kit.app('com.ex.e', kit.CLIENT)).uid).toBe(10004);
    expect(pm.getPackagesForUid(10000)).toBeNull();
  });

  it('may hand a freed UID to another package after reboot (inference from AIM)', () => {
    const { pm } = kit.newPm();
    for (const n of ['com.ex.a', 'com.ex.b', 'com.ex.c']) pm.install(kit.app(n, kit.CLIENT));
    pm.uninstall('com.ex.a');
    pm.uninstall('com.ex.b');
    pm.reboot();
    expect(pm.getPackageUid('com.ex.c')).toBe(10002);
    expect(pm.install(kit.app('com.ex.f', kit.MALLORY)).uid).toBe(10000);
    expect(pm.install(kit.app('com.ex.g', kit.MALLORY)).uid).toBe(10001);
    expect(pm.install(kit.app('com.ex.h', kit.MALLORY)).uid).toBe(10003);
  });

  it('reinstallWithNewKey gives a new UID in the same boot', () => {
    const { pm } = kit.newPm();
    const before = pm.install(kit.toolApp('com.ex.alerts', kit.ALERTS));
    const after = pm.reinstallWithNewKey(kit.toolApp('com.ex.alerts', kit.MALLORY));
    expect(after.uid).not.toBe(before.uid);
    expect(pm.hasSigningCertificate(after.uid, kit.MALLORY.sha256)).toBe(true);
    expect(pm.hasSigningCertificate(after.uid, kit.ALERTS.sha256)).toBe(false);
  });
});

describe('shared UIDs (android:sharedUserId)', () => {
  it('getPackagesForUid returns every package of a shared UID (d.a.c PackageManager)', () => {
    const { pm } = kit.newPm();
    const a = pm.install(kit.app('com.ex.suite.mail', kit.ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.install(kit.app('com.ex.other', kit.CLIENT));
    const b = pm.install(kit.app('com.ex.suite.calendar', kit.ALERTS, { sharedUserId: 'com.ex.suite' }));
    expect(b.uid).toBe(a.uid);
    expect(pm.getPackagesForUid(a.uid)).toEqual(['com.ex.suite.mail', 'com.ex.suite.calendar']);
    expect(pm.getNameForUid(a.uid)).toBe(`com.ex.suite:${a.uid}`);
    expect(pm.getNameForUid(pm.getPackageUid('com.ex.other') ?? -1)).toBe('com.ex.other');
    expect(pm.getPackagesForUid(12345)).toBeNull();
  });

  it('refuses a member signed by another key (INSTALL_FAILED_SHARED_USER_INCOMPATIBLE)', () => {
    const { pm } = kit.newPm();
    pm.install(kit.app('com.ex.suite.mail', kit.ALERTS, { sharedUserId: 'com.ex.suite' }));
    const error = kit.installError(() =>
      pm.install(kit.app('com.evil.spy', kit.MALLORY, { sharedUserId: 'com.ex.suite' })),
    );
    expect(error.code).toBe('INSTALL_FAILED_SHARED_USER_INCOMPATIBLE');
    expect(pm.getPackageInfo('com.evil.spy')).toBeNull();
    expect(pm.getPackagesForUid(10000)).toEqual(['com.ex.suite.mail']);
    // The refused install consumed no UID.
    expect(pm.install(kit.app('com.ex.next', kit.CLIENT)).uid).toBe(10001);
  });

  it('frees a shared UID only when its last member is uninstalled', () => {
    const { pm } = kit.newPm();
    const a = pm.install(kit.app('com.ex.suite.mail', kit.ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.install(kit.app('com.ex.suite.calendar', kit.ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.uninstall('com.ex.suite.mail');
    expect(pm.getPackagesForUid(a.uid)).toEqual(['com.ex.suite.calendar']);
    expect(pm.hasSigningCertificate(a.uid, kit.ALERTS.sha256)).toBe(true);
    pm.uninstall('com.ex.suite.calendar');
    expect(pm.getPackagesForUid(a.uid)).toBeNull();
    expect(pm.install(kit.app('com.ex.suite.mail', kit.ALERTS, { sharedUserId: 'com.ex.suite' })).uid).toBe(
      a.uid + 1,
    );
  });

  it('refuses an update that moves a package to another shared user (INSTALL_FAILED_UID_CHANGED)', () => {
    const { pm } = kit.newPm();
    pm.install(kit.app('com.ex.mail', kit.ALERTS));
    const error = kit.installError(() =>
      pm.update(kit.app('com.ex.mail', kit.ALERTS, { sharedUserId: 'com.ex.suite' })),
    );
    expect(error.code).toBe('INSTALL_FAILED_UID_CHANGED');
  });
});

describe('updates and re-signing (InstallPackageHelper)', () => {
  it('rejects an update signed with an unrelated key (INSTALL_FAILED_UPDATE_INCOMPATIBLE)', () => {
    const { pm, trace } = kit.newPm();
    pm.install(kit.app('com.ex.alerts', kit.ALERTS, { versionCode: 1 }));
    const error = kit.installError(() =>
      pm.update(kit.app('com.ex.alerts', kit.MALLORY, { versionCode: 2 })),
    );
    expect(error.code).toBe('INSTALL_FAILED_UPDATE_INCOMPATIBLE');
    expect(error.error).toBe(-7);
    expect(pm.getPackageInfo('com.ex.alerts')?.versionCode).toBe(1);
    expect(pm.hasSigningCertificateForPackage('com.ex.alerts', kit.MALLORY.sha256)).toBe(false);
    expect(trace.ofKind('pm.refused').map((e) => e.data.code)).toEqual([
      'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
    ]);
  });

  it('accepts an update with a rotated key, keeping the UID and notifying listeners', () => {
    const { pm, trace } = kit.newPm();
    const first = pm.install(kit.app('com.ex.alerts', kit.ALERTS_OLD, { versionCode: 1 }));
    const updates: [InstalledPackage, InstalledPackage][] = [];
    pm.addListener({ onPackageUpdated: (pkg, previous) => updates.push([pkg, previous]) });
    const next = pm.update(
      kit.app('com.ex.alerts', rotatedSigning([kit.ALERTS_OLD, kit.ALERTS]), { versionCode: 2 }),
    );
    expect(next.uid).toBe(first.uid);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.[1].versionCode).toBe(1);
    expect(updates[0]?.[0].versionCode).toBe(2);
    expect(trace.ofKind('pm.update')[0]?.data).toMatchObject({
      fromVersionCode: 1,
      versionCode: 2,
      uid: first.uid,
    });
  });

  it('rejects a versionCode downgrade (INSTALL_FAILED_VERSION_DOWNGRADE)', () => {
    const { pm } = kit.newPm();
    pm.install(kit.app('com.ex.alerts', kit.ALERTS, { versionCode: 5 }));
    expect(
      kit.installError(() => pm.update(kit.app('com.ex.alerts', kit.ALERTS, { versionCode: 4 }))).code,
    ).toBe('INSTALL_FAILED_VERSION_DOWNGRADE');
  });

  it('resign rotates in place (same UID) but refuses an unrelated key', () => {
    const { pm, trace } = kit.newPm();
    const pkg = pm.install(kit.toolApp('com.ex.alerts', kit.ALERTS_OLD));
    const resigned = pm.resign('com.ex.alerts', rotatedSigning([kit.ALERTS_OLD, kit.ALERTS]));
    expect(resigned.uid).toBe(pkg.uid);
    expect(resigned.manifest.services.map((s) => s.name)).toEqual(['ToolService']);
    expect(trace.ofKind('pm.resign')).toHaveLength(1);
    expect(kit.installError(() => pm.resign('com.ex.alerts', signedWith(kit.MALLORY))).code).toBe(
      'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
    );
  });

  it('refuses to install a package twice (INSTALL_FAILED_ALREADY_EXISTS)', () => {
    const { pm } = kit.newPm();
    pm.install(kit.app('com.ex.alerts', kit.ALERTS));
    expect(kit.installError(() => pm.install(kit.app('com.ex.alerts', kit.ALERTS))).code).toBe(
      'INSTALL_FAILED_ALREADY_EXISTS',
    );
  });

  it('notifies listeners of removal with the UID the package had', () => {
    const { pm } = kit.newPm();
    const pkg = pm.install(kit.app('com.ex.alerts', kit.ALERTS));
    const removed: [string, number][] = [];
    pm.addListener({ onPackageRemoved: (name, uid) => removed.push([name, uid]) });
    pm.uninstall('com.ex.alerts');
    expect(removed).toEqual([['com.ex.alerts', pkg.uid]]);
  });
});

describe('content provider authorities', () => {
  it('rejects an authority already owned by another package (INSTALL_FAILED_CONFLICTING_PROVIDER)', () => {
    const { pm } = kit.newPm();
    pm.install(kit.toolApp('com.ex.alerts', kit.ALERTS));
    const squat = kit.app('com.evil.squat', kit.MALLORY, {
      providers: [{ name: 'P', authorities: ['com.ex.alerts.tools'], exported: true }],
    });
    expect(kit.installError(() => pm.install(squat)).code).toBe('INSTALL_FAILED_CONFLICTING_PROVIDER');
    expect(pm.providerForAuthority('com.ex.alerts.tools')?.packageName).toBe('com.ex.alerts');
    // The owner may keep its authority across an update.
    expect(() => pm.update(kit.toolApp('com.ex.alerts', kit.ALERTS, { versionCode: 2 }))).not.toThrow();
  });

  it('resolveContentProvider filters by visibility; providerForAuthority does not', () => {
    const { pm } = kit.newPm();
    pm.install(
      kit.app('com.ex.alerts', kit.ALERTS, {
        providers: [{ name: 'P', authorities: ['com.ex.alerts.tools'], permission: 'com.ex.alerts.USE' }],
      }),
    );
    const client = pm.install(kit.app('com.ex.client', kit.CLIENT));
    expect(pm.resolveContentProvider(client.uid, 'com.ex.alerts.tools')).toBeNull();
    expect(pm.providerForAuthority('com.ex.alerts.tools')).toMatchObject({
      packageName: 'com.ex.alerts',
      name: 'P',
      exported: false,
      readPermission: 'com.ex.alerts.USE',
      writePermission: 'com.ex.alerts.USE',
    });
  });
});

describe('manifest parsing', () => {
  const cases: { title: string; manifest: ManifestSpec; code: string }[] = [
    {
      title: 'package name without a dot',
      manifest: { packageName: 'alerts' },
      code: 'INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME',
    },
    {
      title: 'empty package name',
      manifest: { packageName: '' },
      code: 'INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME',
    },
    {
      title: 'provider without authorities',
      manifest: { packageName: 'com.ex.a', providers: [{ name: 'P', authorities: [] }] },
      code: 'INSTALL_PARSE_FAILED_MANIFEST_MALFORMED',
    },
    {
      title: 'duplicate component names',
      manifest: { packageName: 'com.ex.a', services: [{ name: 'S' }, { name: 'S' }] },
      code: 'INSTALL_PARSE_FAILED_MANIFEST_MALFORMED',
    },
    {
      title: 'target 31 intent filter without android:exported',
      manifest: {
        packageName: 'com.ex.a',
        targetSdk: 31,
        services: [{ name: 'S', intentFilters: [{ actions: ['a'] }] }],
      },
      code: 'INSTALL_PARSE_FAILED_MANIFEST_MALFORMED',
    },
  ];
  it.each(cases)('$title → $code', ({ manifest, code }) => {
    const { pm } = kit.newPm();
    expect(kit.installError(() => pm.install({ manifest, signing: signedWith(kit.ALERTS) })).code).toBe(code);
  });

  it('below target 31 a component with an intent filter is exported by default; a provider is not', () => {
    const { pm } = kit.newPm();
    const pkg = pm.install(
      kit.app('com.ex.old', kit.ALERTS, {
        targetSdk: 30,
        services: [{ name: 'S', intentFilters: [{ actions: ['a'] }] }, { name: 'T' }],
        providers: [{ name: 'P', authorities: ['com.ex.old.p'] }],
      }),
    );
    expect(pkg.manifest.services.map((s) => s.exported)).toEqual([true, false]);
    expect(pkg.manifest.providers[0]?.exported).toBe(false);
  });
});

describe('determinism', () => {
  it('the same operations produce the same trace hash', () => {
    const script = () => {
      const { pm, trace } = kit.newPm();
      pm.install(kit.toolApp('com.ex.alerts', kit.ALERTS_OLD));
      const client = pm.install(
        kit.app('com.ex.client', kit.CLIENT, { queries: { intents: [{ action: kit.TOOL_ACTION }] } }),
      );
      pm.recordInteraction(pm.getPackageUid('com.ex.alerts') ?? -1, client.uid);
      pm.resign('com.ex.alerts', rotatedSigning([kit.ALERTS_OLD, kit.ALERTS]));
      pm.uninstall('com.ex.client');
      pm.reboot();
      pm.install(kit.app('com.ex.next', kit.MALLORY));
      return trace.hash();
    };
    expect(script()).toBe(script());
  });
});

describe('generation (when answers derived from packages, signing and visibility may be reused)', () => {
  it('moves on install, update, re-sign, uninstall, reboot and a new interaction — and only then', () => {
    const { pm } = kit.newPm();
    const moves = (what: () => void): boolean => {
      const before = pm.generation;
      what();
      return pm.generation !== before;
    };
    expect(moves(() => pm.install(kit.app('com.example.alerts', kit.ALERTS)))).toBe(true);
    const client = pm.install(kit.app('com.example.client', kit.CLIENT));
    const alerts = pm.getPackageInfo('com.example.alerts') as InstalledPackage;
    expect(moves(() => pm.getPackagesForUid(client.uid))).toBe(false);
    expect(moves(() => pm.canSeePackage(client.uid, 'com.example.alerts'))).toBe(false);
    expect(moves(() => pm.recordInteraction(alerts.uid, client.uid))).toBe(true);
    expect(moves(() => pm.recordInteraction(alerts.uid, client.uid))).toBe(false);
    expect(
      moves(() =>
        pm.update({
          manifest: { packageName: 'com.example.alerts', versionCode: 2 },
          signing: signedWith(kit.ALERTS),
        }),
      ),
    ).toBe(true);
    const before = pm.generation;
    expect(() => pm.resign('com.example.alerts', signedWith(kit.MALLORY))).toThrow(PackageInstallError);
    expect(pm.generation).toBe(before);
    const rotated = certificate('alerts-release-2026');
    expect(moves(() => pm.resign('com.example.alerts', rotatedSigning([kit.ALERTS, rotated])))).toBe(true);
    expect(moves(() => pm.uninstall('com.example.client'))).toBe(true);
    expect(moves(() => pm.reboot())).toBe(true);
  });

  it('keeps getPackagesForUid in install order across uninstall and reinstall of shared-UID members', () => {
    const { pm } = kit.newPm();
    const shared = { sharedUserId: 'com.example.shared' };
    const one = pm.install(kit.app('com.example.one', kit.CLIENT, shared));
    pm.install(kit.app('com.example.two', kit.CLIENT, shared));
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.one', 'com.example.two']);
    pm.uninstall('com.example.one');
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.two']);
    pm.install(kit.app('com.example.one', kit.CLIENT, shared));
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.two', 'com.example.one']);
  });
});
