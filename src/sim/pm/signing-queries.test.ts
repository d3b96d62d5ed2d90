import { describe, expect, it } from 'vitest';
import { multiSigned, rotatedSigning } from './signing.ts';
import { ALERTS, ALERTS_OLD, app, CLIENT, MALLORY, newPm } from './testing.ts';

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
