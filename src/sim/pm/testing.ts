/**
 * Fixtures for the PackageManager's tests (package-manager.test.ts and pm/*.test.ts): a fresh
 * PackageManager with its trace, app specs signed by named certificates, and a tool-provider app.
 */

import { thrownBy } from '../../base/testing.ts';
import { Trace } from '../core/trace.ts';
import type { ManifestSpec, PackageSpec } from './manifest.ts';
import { PackageManager } from './package-manager.ts';
import { type Certificate, certificate, type SigningDetails, signedWith } from './signing.ts';
import { PackageInstallError } from './types.ts';

export const ALERTS = certificate('alerts-release-2024');
export const ALERTS_OLD = certificate('alerts-release-2020');
export const CLIENT = certificate('client-release');
export const MALLORY = certificate('mallory');

export const TOOL_ACTION = 'org.example.cetp.TOOL_PROVIDER';

export function newPm(): { pm: PackageManager; trace: Trace } {
  const trace = new Trace({ step: () => 0, nowMs: () => 0 });
  return { pm: new PackageManager(trace), trace };
}

export function app(
  packageName: string,
  cert: Certificate | SigningDetails,
  manifest: Partial<ManifestSpec> = {},
): PackageSpec {
  const signing = 'sha256' in cert ? signedWith(cert) : cert;
  return { manifest: { packageName, ...manifest }, signing };
}

/** A provider app exposing an exported tool service and an exported provider. */
export function toolApp(
  packageName: string,
  cert: Certificate,
  extra: Partial<ManifestSpec> = {},
): PackageSpec {
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

/** The PackageInstallError `fn` throws. */
export function installError(fn: () => unknown): PackageInstallError {
  return thrownBy(fn, PackageInstallError);
}
