import { describe, expect, it } from 'vitest';
import type { ManifestSpec, PackageSpec } from './manifest.ts';
import {
  type InstalledPackage,
  PackageInstallError,
  PackageManager,
  QUERY_ALL_PACKAGES,
} from './package-manager.ts';
import {
  type Certificate,
  certificate,
  multiSigned,
  rotatedSigning,
  type SigningDetails,
  signedWith,
} from './signing.ts';
import { Trace } from './trace.ts';

const ALERTS = certificate('alerts-release-2024');
const ALERTS_OLD = certificate('alerts-release-2020');
const CLIENT = certificate('client-release');
const MALLORY = certificate('mallory');

const TOOL_ACTION = 'org.example.cetp.TOOL_PROVIDER';

function newPm(): { pm: PackageManager; trace: Trace } {
  const trace = new Trace({ step: () => 0, nowMs: () => 0 });
  return { pm: new PackageManager(trace), trace };
}

function app(
  packageName: string,
  cert: Certificate | SigningDetails,
  manifest: Partial<ManifestSpec> = {},
): PackageSpec {
  const signing = 'sha256' in cert ? signedWith(cert) : cert;
  return { manifest: { packageName, ...manifest }, signing };
}

/** A provider app exposing an exported tool service and an exported provider. */
function toolApp(packageName: string, cert: Certificate, extra: Partial<ManifestSpec> = {}): PackageSpec {
  return app(packageName, cert, {
    services: [
      {
        name: 'ToolService',
        exported: true,
        intentFilters: [{ actions: [TOOL_ACTION] }],
        metaData: { 'org.example.cetp.authority': `${packageName}.tools` },
      },
    ],
    providers: [{ name: 'ToolProvider', authorities: [`${packageName}.tools`], exported: true }],
    ...extra,
  });
}

function installError(fn: () => unknown): PackageInstallError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PackageInstallError) return error;
    throw error;
  }
  throw new Error('expected a PackageInstallError');
}

describe('UID allocation (AppIdSettingMap)', () => {
  it('allocates application UIDs from 10000 in install order', () => {
    const { pm } = newPm();
    const uids = ['com.ex.a', 'com.ex.b', 'com.ex.c'].map((n) => pm.install(app(n, CLIENT)).uid);
    expect(uids).toEqual([10000, 10001, 10002]);
    expect(pm.getPackageUid('com.ex.b')).toBe(10001);
    expect(pm.getPackageUid('com.ex.missing')).toBeNull();
  });

  it('does not reuse a freed UID within the same boot (removeSetting raises mFirstAvailableAppId)', () => {
    const { pm } = newPm();
    for (const n of ['com.ex.a', 'com.ex.b', 'com.ex.c']) pm.install(app(n, CLIENT));
    pm.uninstall('com.ex.b');
    expect(pm.install(app('com.ex.d', CLIENT)).uid).toBe(10003);
    pm.uninstall('com.ex.a');
    expect(pm.install(app('com.ex.e', CLIENT)).uid).toBe(10004);
    expect(pm.getPackagesForUid(10000)).toBeNull();
  });

  it('may hand a freed UID to another package after reboot (inference from AIM)', () => {
    const { pm } = newPm();
    for (const n of ['com.ex.a', 'com.ex.b', 'com.ex.c']) pm.install(app(n, CLIENT));
    pm.uninstall('com.ex.a');
    pm.uninstall('com.ex.b');
    pm.reboot();
    expect(pm.getPackageUid('com.ex.c')).toBe(10002);
    expect(pm.install(app('com.ex.f', MALLORY)).uid).toBe(10000);
    expect(pm.install(app('com.ex.g', MALLORY)).uid).toBe(10001);
    expect(pm.install(app('com.ex.h', MALLORY)).uid).toBe(10003);
  });

  it('reinstallWithNewKey gives a new UID in the same boot', () => {
    const { pm } = newPm();
    const before = pm.install(toolApp('com.ex.alerts', ALERTS));
    const after = pm.reinstallWithNewKey(toolApp('com.ex.alerts', MALLORY));
    expect(after.uid).not.toBe(before.uid);
    expect(pm.hasSigningCertificate(after.uid, MALLORY.sha256)).toBe(true);
    expect(pm.hasSigningCertificate(after.uid, ALERTS.sha256)).toBe(false);
  });
});

describe('shared UIDs (android:sharedUserId)', () => {
  it('getPackagesForUid returns every package of a shared UID (d.a.c PackageManager)', () => {
    const { pm } = newPm();
    const a = pm.install(app('com.ex.suite.mail', ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.install(app('com.ex.other', CLIENT));
    const b = pm.install(app('com.ex.suite.calendar', ALERTS, { sharedUserId: 'com.ex.suite' }));
    expect(b.uid).toBe(a.uid);
    expect(pm.getPackagesForUid(a.uid)).toEqual(['com.ex.suite.mail', 'com.ex.suite.calendar']);
    expect(pm.getNameForUid(a.uid)).toBe(`com.ex.suite:${a.uid}`);
    expect(pm.getNameForUid(pm.getPackageUid('com.ex.other') ?? -1)).toBe('com.ex.other');
    expect(pm.getPackagesForUid(12345)).toBeNull();
  });

  it('refuses a member signed by another key (INSTALL_FAILED_SHARED_USER_INCOMPATIBLE)', () => {
    const { pm } = newPm();
    pm.install(app('com.ex.suite.mail', ALERTS, { sharedUserId: 'com.ex.suite' }));
    const error = installError(() =>
      pm.install(app('com.evil.spy', MALLORY, { sharedUserId: 'com.ex.suite' })),
    );
    expect(error.code).toBe('INSTALL_FAILED_SHARED_USER_INCOMPATIBLE');
    expect(pm.getPackageInfo('com.evil.spy')).toBeNull();
    expect(pm.getPackagesForUid(10000)).toEqual(['com.ex.suite.mail']);
    // The refused install consumed no UID.
    expect(pm.install(app('com.ex.next', CLIENT)).uid).toBe(10001);
  });

  it('frees a shared UID only when its last member is uninstalled', () => {
    const { pm } = newPm();
    const a = pm.install(app('com.ex.suite.mail', ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.install(app('com.ex.suite.calendar', ALERTS, { sharedUserId: 'com.ex.suite' }));
    pm.uninstall('com.ex.suite.mail');
    expect(pm.getPackagesForUid(a.uid)).toEqual(['com.ex.suite.calendar']);
    expect(pm.hasSigningCertificate(a.uid, ALERTS.sha256)).toBe(true);
    pm.uninstall('com.ex.suite.calendar');
    expect(pm.getPackagesForUid(a.uid)).toBeNull();
    expect(pm.install(app('com.ex.suite.mail', ALERTS, { sharedUserId: 'com.ex.suite' })).uid).toBe(
      a.uid + 1,
    );
  });

  it('refuses an update that moves a package to another shared user (INSTALL_FAILED_UID_CHANGED)', () => {
    const { pm } = newPm();
    pm.install(app('com.ex.mail', ALERTS));
    const error = installError(() => pm.update(app('com.ex.mail', ALERTS, { sharedUserId: 'com.ex.suite' })));
    expect(error.code).toBe('INSTALL_FAILED_UID_CHANGED');
  });
});

describe('hasSigningCertificate(uid, sha256) (d.a.c PackageManager, SigningDetails)', () => {
  it('matches both the old and the new certificate of a rotation lineage', () => {
    const { pm } = newPm();
    const lineage = rotatedSigning([
      { cert: ALERTS_OLD, capabilities: { permission: false, auth: false } },
      ALERTS,
    ]);
    const pkg = pm.install(app('com.ex.alerts', lineage));
    expect(pm.hasSigningCertificate(pkg.uid, ALERTS_OLD.sha256)).toBe(true);
    expect(pm.hasSigningCertificate(pkg.uid, ALERTS.sha256)).toBe(true);
    expect(pm.hasSigningCertificate(pkg.uid, ALERTS.sha256.toUpperCase())).toBe(true);
    expect(pm.hasSigningCertificate(pkg.uid, MALLORY.sha256)).toBe(false);
    expect(pm.hasSigningCertificateForPackage('com.ex.alerts', ALERTS_OLD.sha256)).toBe(true);
    expect(pm.getSigningInfo('com.ex.alerts')?.signingCertificateHistory?.map((c) => c.name)).toEqual([
      ALERTS_OLD.name,
      ALERTS.name,
    ]);
  });

  it('never matches a multi-signer package', () => {
    const { pm } = newPm();
    const pkg = pm.install(app('com.ex.multi', multiSigned([ALERTS, CLIENT])));
    expect(pm.hasSigningCertificate(pkg.uid, ALERTS.sha256)).toBe(false);
    expect(pm.hasSigningCertificate(pkg.uid, CLIENT.sha256)).toBe(false);
    expect(pm.getSigningInfo('com.ex.multi')).toMatchObject({
      hasMultipleSigners: true,
      signingCertificateHistory: null,
    });
  });

  it('is false after uninstall, and answers for the new owner once the UID is reused after reboot', () => {
    const { pm } = newPm();
    const alerts = pm.install(app('com.ex.alerts', ALERTS));
    pm.uninstall('com.ex.alerts');
    expect(pm.hasSigningCertificate(alerts.uid, ALERTS.sha256)).toBe(false);
    pm.reboot();
    const squatter = pm.install(app('com.evil.squatter', MALLORY));
    expect(squatter.uid).toBe(alerts.uid);
    expect(pm.hasSigningCertificate(alerts.uid, ALERTS.sha256)).toBe(false);
    expect(pm.hasSigningCertificate(alerts.uid, MALLORY.sha256)).toBe(true);
  });
});

describe('updates and re-signing (InstallPackageHelper)', () => {
  it('rejects an update signed with an unrelated key (INSTALL_FAILED_UPDATE_INCOMPATIBLE)', () => {
    const { pm, trace } = newPm();
    pm.install(app('com.ex.alerts', ALERTS, { versionCode: 1 }));
    const error = installError(() => pm.update(app('com.ex.alerts', MALLORY, { versionCode: 2 })));
    expect(error.code).toBe('INSTALL_FAILED_UPDATE_INCOMPATIBLE');
    expect(error.error).toBe(-7);
    expect(pm.getPackageInfo('com.ex.alerts')?.versionCode).toBe(1);
    expect(pm.hasSigningCertificateForPackage('com.ex.alerts', MALLORY.sha256)).toBe(false);
    expect(trace.ofKind('pm.refused').map((e) => e.data.code)).toEqual([
      'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
    ]);
  });

  it('accepts an update with a rotated key, keeping the UID and notifying listeners', () => {
    const { pm, trace } = newPm();
    const first = pm.install(app('com.ex.alerts', ALERTS_OLD, { versionCode: 1 }));
    const updates: [InstalledPackage, InstalledPackage][] = [];
    pm.addListener({ onPackageUpdated: (pkg, previous) => updates.push([pkg, previous]) });
    const next = pm.update(app('com.ex.alerts', rotatedSigning([ALERTS_OLD, ALERTS]), { versionCode: 2 }));
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
    const { pm } = newPm();
    pm.install(app('com.ex.alerts', ALERTS, { versionCode: 5 }));
    expect(installError(() => pm.update(app('com.ex.alerts', ALERTS, { versionCode: 4 }))).code).toBe(
      'INSTALL_FAILED_VERSION_DOWNGRADE',
    );
  });

  it('resign rotates in place (same UID) but refuses an unrelated key', () => {
    const { pm, trace } = newPm();
    const pkg = pm.install(toolApp('com.ex.alerts', ALERTS_OLD));
    const resigned = pm.resign('com.ex.alerts', rotatedSigning([ALERTS_OLD, ALERTS]));
    expect(resigned.uid).toBe(pkg.uid);
    expect(resigned.manifest.services.map((s) => s.name)).toEqual(['ToolService']);
    expect(trace.ofKind('pm.resign')).toHaveLength(1);
    expect(installError(() => pm.resign('com.ex.alerts', signedWith(MALLORY))).code).toBe(
      'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
    );
  });

  it('refuses to install a package twice (INSTALL_FAILED_ALREADY_EXISTS)', () => {
    const { pm } = newPm();
    pm.install(app('com.ex.alerts', ALERTS));
    expect(installError(() => pm.install(app('com.ex.alerts', ALERTS))).code).toBe(
      'INSTALL_FAILED_ALREADY_EXISTS',
    );
  });

  it('notifies listeners of removal with the UID the package had', () => {
    const { pm } = newPm();
    const pkg = pm.install(app('com.ex.alerts', ALERTS));
    const removed: [string, number][] = [];
    pm.addListener({ onPackageRemoved: (name, uid) => removed.push([name, uid]) });
    pm.uninstall('com.ex.alerts');
    expect(removed).toEqual([['com.ex.alerts', pkg.uid]]);
  });
});

describe('package visibility (developer.android.com/training/package-visibility)', () => {
  const provider = 'com.ex.alerts';
  const cases: { title: string; consumer: Partial<ManifestSpec>; visible: boolean }[] = [
    { title: 'target 29 sees everything without <queries>', consumer: { targetSdk: 29 }, visible: true },
    { title: 'target 30 without <queries> sees nothing', consumer: { targetSdk: 30 }, visible: false },
    { title: 'target 34 without <queries> sees nothing', consumer: {}, visible: false },
    { title: '<queries><package> names it', consumer: { queries: { packages: [provider] } }, visible: true },
    {
      title: '<queries><package> names another',
      consumer: { queries: { packages: ['com.ex.x'] } },
      visible: false,
    },
    {
      title: '<queries><intent> matches its exported service',
      consumer: { queries: { intents: [{ action: TOOL_ACTION }] } },
      visible: true,
    },
    {
      title: '<queries><intent> with an action nobody handles',
      consumer: { queries: { intents: [{ action: 'org.example.NOTHING' }] } },
      visible: false,
    },
    {
      title: '<queries><provider> names its authority',
      consumer: { queries: { providers: [`${provider}.tools`] } },
      visible: true,
    },
    { title: 'QUERY_ALL_PACKAGES', consumer: { usesPermissions: [QUERY_ALL_PACKAGES] }, visible: true },
  ];
  it.each(cases)('$title → $visible', ({ consumer, visible }) => {
    const { pm } = newPm();
    pm.install(toolApp(provider, ALERTS));
    const client = pm.install(app('com.ex.client', CLIENT, consumer));
    expect(pm.canSeePackage(client.uid, provider)).toBe(visible);
    expect(pm.resolveContentProvider(client.uid, `${provider}.tools`) !== null).toBe(visible);
    expect(pm.queryIntentServices(client.uid, TOOL_ACTION).length).toBe(visible ? 1 : 0);
  });

  it('<queries><intent> does not reveal a package whose matching service is not exported', () => {
    const { pm } = newPm();
    pm.install(
      app('com.ex.hidden', ALERTS, {
        services: [{ name: 'S', exported: false, intentFilters: [{ actions: [TOOL_ACTION] }] }],
      }),
    );
    const client = pm.install(
      app('com.ex.client', CLIENT, { queries: { intents: [{ action: TOOL_ACTION }] } }),
    );
    expect(pm.canSeePackage(client.uid, 'com.ex.hidden')).toBe(false);
  });

  it('forceQueryable packages are visible to everyone', () => {
    const { pm } = newPm();
    pm.install(app('com.ex.system', ALERTS, { forceQueryable: true }));
    const client = pm.install(app('com.ex.client', CLIENT));
    expect(pm.canSeePackage(client.uid, 'com.ex.system')).toBe(true);
  });

  it('an app that accessed your provider becomes visible to you, not the other way round, until reboot', () => {
    const { pm } = newPm();
    const alerts = pm.install(toolApp(provider, ALERTS));
    const client = pm.install(app('com.ex.client', CLIENT, { queries: { packages: [provider] } }));
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(false);
    pm.recordInteraction(alerts.uid, client.uid);
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(true);
    const loner = pm.install(app('com.ex.loner', MALLORY));
    pm.recordInteraction(loner.uid, alerts.uid);
    expect(pm.canSeePackage(alerts.uid, 'com.ex.loner')).toBe(false);
    pm.reboot();
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(false);
  });

  it('the system (UID < 10000) and the same UID always see the package', () => {
    const { pm } = newPm();
    const alerts = pm.install(toolApp(provider, ALERTS));
    expect(pm.canSeePackage(1000, provider)).toBe(true);
    expect(pm.canSeePackage(alerts.uid, provider)).toBe(true);
    expect(pm.canSeePackage(1000, 'com.ex.not.installed')).toBe(false);
  });
});

describe('queryIntentServices (ComponentResolver + AppsFilter)', () => {
  it('returns visible exported services with meta-data, by priority then install order', () => {
    const { pm } = newPm();
    const service = (priority: number, exported = true) => ({
      name: 'ToolService',
      exported,
      intentFilters: [{ actions: [TOOL_ACTION], priority }],
      metaData: { priority: String(priority) },
    });
    pm.install(app('com.ex.first', ALERTS, { services: [service(0)] }));
    pm.install(app('com.ex.hidden', ALERTS, { services: [service(50)] }));
    pm.install(app('com.ex.second', ALERTS, { services: [service(0)] }));
    pm.install(app('com.ex.urgent', ALERTS, { services: [service(10)] }));
    pm.install(app('com.ex.private', ALERTS, { services: [service(99, false)] }));
    const client = pm.install(
      app('com.ex.client', CLIENT, {
        queries: { packages: ['com.ex.first', 'com.ex.second', 'com.ex.urgent', 'com.ex.private'] },
      }),
    );
    const found = pm.queryIntentServices(client.uid, TOOL_ACTION);
    expect(found.map((s) => s.packageName)).toEqual(['com.ex.urgent', 'com.ex.first', 'com.ex.second']);
    expect(found[0]).toMatchObject({ name: 'ToolService', uid: pm.getPackageUid('com.ex.urgent') });
    expect(found[0]?.metaData).toEqual({ priority: '10' });
    // The system is not filtered by visibility.
    expect(pm.queryIntentServices(1000, TOOL_ACTION).map((s) => s.packageName)).toContain('com.ex.hidden');
    expect(
      pm.queryIntentServices(client.uid, { action: TOOL_ACTION, packageName: 'com.ex.first' }),
    ).toHaveLength(1);
  });

  it("returns the caller's own unexported service", () => {
    const { pm } = newPm();
    const own = pm.install(
      app('com.ex.self', ALERTS, {
        services: [{ name: 'S', exported: false, intentFilters: [{ actions: ['a.b'] }] }],
      }),
    );
    expect(pm.queryIntentServices(own.uid, 'a.b').map((s) => s.name)).toEqual(['S']);
  });
});

describe('queryIntentActivities', () => {
  it('resolves an explicit component only if exported (or same UID) and visible; implicit by action', () => {
    const { pm } = newPm();
    const activities = [
      { name: 'ConfirmActivity', exported: true, intentFilters: [{ actions: ['org.example.CONFIRM'] }] },
      { name: 'InternalActivity', exported: false },
    ];
    const host = pm.install(app('com.ex.alerts', ALERTS, { activities }));
    const client = pm.install(app('com.ex.client', CLIENT, { queries: { packages: ['com.ex.alerts'] } }));
    const stranger = pm.install(app('com.ex.stranger', MALLORY));
    const explicit = (className: string) => ({ component: { packageName: 'com.ex.alerts', className } });
    expect(pm.queryIntentActivities(client.uid, explicit('ConfirmActivity')).map((a) => a.name)).toEqual([
      'ConfirmActivity',
    ]);
    expect(pm.queryIntentActivities(client.uid, explicit('InternalActivity'))).toEqual([]);
    expect(pm.queryIntentActivities(host.uid, explicit('InternalActivity'))).toHaveLength(1);
    expect(pm.queryIntentActivities(stranger.uid, explicit('ConfirmActivity'))).toEqual([]);
    expect(
      pm.queryIntentActivities(client.uid, { action: 'org.example.CONFIRM' }).map((a) => a.name),
    ).toEqual(['ConfirmActivity']);
    expect(
      pm.queryIntentActivities(client.uid, { action: 'org.example.CONFIRM', categories: ['x.Y'] }),
    ).toEqual([]);
  });
});

describe('content provider authorities', () => {
  it('rejects an authority already owned by another package (INSTALL_FAILED_CONFLICTING_PROVIDER)', () => {
    const { pm } = newPm();
    pm.install(toolApp('com.ex.alerts', ALERTS));
    const squat = app('com.evil.squat', MALLORY, {
      providers: [{ name: 'P', authorities: ['com.ex.alerts.tools'], exported: true }],
    });
    expect(installError(() => pm.install(squat)).code).toBe('INSTALL_FAILED_CONFLICTING_PROVIDER');
    expect(pm.providerForAuthority('com.ex.alerts.tools')?.packageName).toBe('com.ex.alerts');
    // The owner may keep its authority across an update.
    expect(() => pm.update(toolApp('com.ex.alerts', ALERTS, { versionCode: 2 }))).not.toThrow();
  });

  it('resolveContentProvider filters by visibility; providerForAuthority does not', () => {
    const { pm } = newPm();
    pm.install(
      app('com.ex.alerts', ALERTS, {
        providers: [{ name: 'P', authorities: ['com.ex.alerts.tools'], permission: 'com.ex.alerts.USE' }],
      }),
    );
    const client = pm.install(app('com.ex.client', CLIENT));
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
    const { pm } = newPm();
    const early = pm.install(requester('com.ex.client', CLIENT));
    pm.install(declarer(ALERTS));
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(false);
    // Updating the requester re-evaluates its grants (UPDATE_PERMISSIONS_REPLACE_PKG).
    pm.update(requester('com.ex.client', CLIENT));
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(true);
  });

  it('re-evaluates every package at reboot (inference: boot scan updateAllPermissions)', () => {
    const { pm } = newPm();
    const early = pm.install(requester('com.ex.client', CLIENT));
    pm.install(declarer(ALERTS));
    expect(pm.checkPermission('com.ex.alerts.READ', early.uid)).toBe(false);
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
    const { pm } = newPm();
    expect(installError(() => pm.install({ manifest, signing: signedWith(ALERTS) })).code).toBe(code);
  });

  it('below target 31 a component with an intent filter is exported by default; a provider is not', () => {
    const { pm } = newPm();
    const pkg = pm.install(
      app('com.ex.old', ALERTS, {
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
      const { pm, trace } = newPm();
      pm.install(toolApp('com.ex.alerts', ALERTS_OLD));
      const client = pm.install(
        app('com.ex.client', CLIENT, { queries: { intents: [{ action: TOOL_ACTION }] } }),
      );
      pm.recordInteraction(pm.getPackageUid('com.ex.alerts') ?? -1, client.uid);
      pm.resign('com.ex.alerts', rotatedSigning([ALERTS_OLD, ALERTS]));
      pm.uninstall('com.ex.client');
      pm.reboot();
      pm.install(app('com.ex.next', MALLORY));
      return trace.hash();
    };
    expect(script()).toBe(script());
  });
});

describe('generation (when answers derived from packages, signing and visibility may be reused)', () => {
  it('moves on install, update, re-sign, uninstall, reboot and a new interaction — and only then', () => {
    const { pm } = newPm();
    const moves = (what: () => void): boolean => {
      const before = pm.generation;
      what();
      return pm.generation !== before;
    };
    expect(moves(() => pm.install(app('com.example.alerts', ALERTS)))).toBe(true);
    const client = pm.install(app('com.example.client', CLIENT));
    const alerts = pm.getPackageInfo('com.example.alerts') as InstalledPackage;
    expect(moves(() => pm.getPackagesForUid(client.uid))).toBe(false);
    expect(moves(() => pm.canSeePackage(client.uid, 'com.example.alerts'))).toBe(false);
    expect(moves(() => pm.recordInteraction(alerts.uid, client.uid))).toBe(true);
    expect(moves(() => pm.recordInteraction(alerts.uid, client.uid))).toBe(false);
    expect(
      moves(() =>
        pm.update({
          manifest: { packageName: 'com.example.alerts', versionCode: 2 },
          signing: signedWith(ALERTS),
        }),
      ),
    ).toBe(true);
    const before = pm.generation;
    expect(() => pm.resign('com.example.alerts', signedWith(MALLORY))).toThrow(PackageInstallError);
    expect(pm.generation).toBe(before);
    const rotated = certificate('alerts-release-2026');
    expect(moves(() => pm.resign('com.example.alerts', rotatedSigning([ALERTS, rotated])))).toBe(true);
    expect(moves(() => pm.uninstall('com.example.client'))).toBe(true);
    expect(moves(() => pm.reboot())).toBe(true);
  });

  it('keeps getPackagesForUid in install order across uninstall and reinstall of shared-UID members', () => {
    const { pm } = newPm();
    const shared = { sharedUserId: 'com.example.shared' };
    const one = pm.install(app('com.example.one', CLIENT, shared));
    pm.install(app('com.example.two', CLIENT, shared));
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.one', 'com.example.two']);
    pm.uninstall('com.example.one');
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.two']);
    pm.install(app('com.example.one', CLIENT, shared));
    expect(pm.getPackagesForUid(one.uid)).toEqual(['com.example.two', 'com.example.one']);
  });
});
