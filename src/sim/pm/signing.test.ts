import { describe, expect, it } from 'vitest';
import {
  apkContentsSigners,
  canUpdateTo,
  certificate,
  hasCommonSignerWithCapability,
  hasSha256Certificate,
  multiSigned,
  rotatedSigning,
  type SigningDetails,
  signedWith,
  signingCertificateHistory,
  signingProblems,
} from './signing.ts';

const A = certificate('alerts-release-2020');
const B = certificate('alerts-release-2024');
const C = certificate('someone-else');

const noCapabilities = {
  installedData: false,
  sharedUid: false,
  permission: false,
  rollback: false,
  auth: false,
} as const;

describe('certificate', () => {
  it('names a certificate by the lowercase hex SHA-256 of its UTF-8 name', () => {
    // FIPS 180-2 test vector for "abc".
    expect(certificate('abc').sha256).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(certificate('é').sha256).not.toBe(certificate('e').sha256);
  });
});

describe('hasSha256Certificate (SigningDetails, PAST_CERT_EXISTS)', () => {
  it('matches the single signer and nothing else', () => {
    expect(hasSha256Certificate(signedWith(A), A.sha256)).toBe(true);
    expect(hasSha256Certificate(signedWith(A), B.sha256)).toBe(false);
  });

  it('matches every lineage certificate, even one granted no capability', () => {
    const rotated = rotatedSigning([{ cert: A, capabilities: noCapabilities }, B]);
    expect(hasSha256Certificate(rotated, A.sha256)).toBe(true);
    expect(hasSha256Certificate(rotated, B.sha256)).toBe(true);
    expect(hasSha256Certificate(rotated, C.sha256)).toBe(false);
  });

  it('checks a past certificate capability only when one is asked for (hasSha256Certificate(cert, flags))', () => {
    const rotated = rotatedSigning([{ cert: A, capabilities: { permission: false } }, B]);
    expect(hasSha256Certificate(rotated, A.sha256, 'permission')).toBe(false);
    expect(hasSha256Certificate(rotated, A.sha256, 'installedData')).toBe(true);
    // The current signer has every capability.
    expect(hasSha256Certificate(rotated, B.sha256, 'permission')).toBe(true);
  });

  it('never matches a multi-signer package, not even one of its signers', () => {
    const multi = multiSigned([A, B]);
    expect(hasSha256Certificate(multi, A.sha256)).toBe(false);
    expect(hasSha256Certificate(multi, B.sha256)).toBe(false);
  });
});

describe('canUpdateTo (InstallPackageHelper: INSTALLED_DATA forward or ROLLBACK backward)', () => {
  const cases: { title: string; from: SigningDetails; to: SigningDetails; ok: boolean }[] = [
    { title: 'same single signer', from: signedWith(A), to: signedWith(A), ok: true },
    { title: 'unrelated key', from: signedWith(A), to: signedWith(C), ok: false },
    {
      title: 'rotation whose lineage contains the old signer',
      from: signedWith(A),
      to: rotatedSigning([A, B]),
      ok: true,
    },
    {
      title: 'rotation that denies the old key installed-data',
      from: signedWith(A),
      to: rotatedSigning([{ cert: A, capabilities: { installedData: false } }, B]),
      ok: false,
    },
    {
      title: 'rollback to a past key that keeps rollback',
      from: rotatedSigning([A, B]),
      to: signedWith(A),
      ok: true,
    },
    {
      title: 'rollback to a past key denied rollback',
      from: rotatedSigning([{ cert: A, capabilities: { rollback: false } }, B]),
      to: signedWith(A),
      ok: false,
    },
    {
      title: 'multi-signer, same set in another order',
      from: multiSigned([A, B]),
      to: multiSigned([B, A]),
      ok: true,
    },
    { title: 'multi-signer losing a signer', from: multiSigned([A, B]), to: signedWith(A), ok: false },
    {
      title: 'multi-signer gaining a signer',
      from: multiSigned([A, B]),
      to: multiSigned([A, B, C]),
      ok: false,
    },
  ];
  it.each(cases)('$title → $ok', ({ from, to, ok }) => {
    expect(canUpdateTo(from, to)).toBe(ok);
  });
});

describe('SigningInfo views', () => {
  it('getSigningCertificateHistory is oldest→current, the signer alone without rotation, null for multi-signer', () => {
    expect(signingCertificateHistory(rotatedSigning([A, B]))?.map((c) => c.name)).toEqual([A.name, B.name]);
    expect(signingCertificateHistory(signedWith(A))?.map((c) => c.name)).toEqual([A.name]);
    expect(signingCertificateHistory(multiSigned([A, B]))).toBeNull();
  });

  it('getApkContentsSigners excludes past certificates', () => {
    expect(apkContentsSigners(rotatedSigning([A, B])).map((c) => c.name)).toEqual([B.name]);
    expect(apkContentsSigners(multiSigned([A, B])).map((c) => c.name)).toEqual([A.name, B.name]);
  });
});

describe('hasCommonSignerWithCapability (signature permission grants)', () => {
  it('grants to a requester signed with the definer key, or with a past definer key that keeps PERMISSION', () => {
    expect(hasCommonSignerWithCapability(signedWith(A), signedWith(A), 'permission')).toBe(true);
    expect(hasCommonSignerWithCapability(signedWith(A), signedWith(C), 'permission')).toBe(false);
    expect(hasCommonSignerWithCapability(rotatedSigning([A, B]), signedWith(A), 'permission')).toBe(true);
    const denying = rotatedSigning([{ cert: A, capabilities: { permission: false } }, B]);
    expect(hasCommonSignerWithCapability(denying, signedWith(A), 'permission')).toBe(false);
    // A requester that rotated away from the definer's current key still shares it.
    expect(hasCommonSignerWithCapability(signedWith(A), rotatedSigning([A, B]), 'permission')).toBe(true);
  });
});

describe('signingProblems', () => {
  it('flags details no real APK can have', () => {
    expect(signingProblems(signedWith(A))).toEqual([]);
    expect(signingProblems(rotatedSigning([A, B]))).toEqual([]);
    expect(signingProblems({ signers: [] })).toHaveLength(1);
    expect(signingProblems({ signers: [B], lineage: [{ cert: B }, { cert: A }] })).toHaveLength(1);
    expect(signingProblems({ signers: [B], lineage: [{ cert: A }, { cert: B }, { cert: B }] })).toEqual([
      `lineage lists ${B.name} twice`,
    ]);
    expect(signingProblems({ signers: [A, B], lineage: [{ cert: A }, { cert: B }] }).length).toBeGreaterThan(
      0,
    );
  });
});
