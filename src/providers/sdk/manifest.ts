/**
 * The manifest a CETP provider app ships (spec §2.1): a discovery service with the v1 action and the
 * authority meta-data (2.1-01), `version`/`versions` meta-data by stack (2.1-02, 2.1-03, 2.1-07), the
 * provider authority, and the SDK's confirmation Activity (not exported: it is reached only through
 * the provider's own PendingIntents, which run as the provider).
 */
import {
  META_AUTHORITY,
  META_VERSION,
  META_VERSIONS,
  TOOL_PROVIDER_ACTION,
} from '../../protocol/discovery.ts';
import type { ActivitySpec, ManifestSpec, PackageSpec } from '../../sim/pm/manifest.ts';
import { certificate } from '../../sim/pm/signing.ts';
import { CONFIRM_ACTIVITY } from './confirmations.ts';

export { META_AUTHORITY, META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION };
export const CETP_SERVICE = 'CetpToolService';
export const CETP_PROVIDER = 'CetpProvider';

export interface ProviderPackageOptions {
  readonly packageName: string;
  readonly authority: string;
  /** [1] v1-only, [2] v2-only, [1, 2] dual stack. */
  readonly versions: readonly number[];
  readonly cert?: string;
  readonly activities?: readonly ActivitySpec[];
  readonly manifest?: Partial<ManifestSpec>;
  /** Overrides of the discovery meta-data (hostile or misconfigured providers). */
  readonly metaData?: Readonly<Record<string, string>>;
}

export function discoveryMetaData(authority: string, versions: readonly number[]): Record<string, string> {
  if (versions.length === 1 && versions[0] === 1) return { [META_AUTHORITY]: authority, [META_VERSION]: '1' };
  return {
    [META_AUTHORITY]: authority,
    [META_VERSION]: versions.includes(1) ? '1' : String(Math.max(...versions)),
    [META_VERSIONS]: [...versions].sort((a, b) => a - b).join(','),
  };
}

export function providerPackage(options: ProviderPackageOptions): PackageSpec {
  const v2 = options.versions.some((v) => v >= 2);
  return {
    manifest: {
      packageName: options.packageName,
      targetSdk: 34,
      services: [
        {
          name: CETP_SERVICE,
          exported: true,
          intentFilters: [{ actions: [TOOL_PROVIDER_ACTION] }],
          metaData: Object.assign(discoveryMetaData(options.authority, options.versions), options.metaData),
        },
      ],
      providers: [{ name: CETP_PROVIDER, authorities: [options.authority], exported: true }],
      activities: [
        ...(v2 ? [{ name: CONFIRM_ACTIVITY, exported: false }] : []),
        ...(options.activities ?? []),
      ],
      ...options.manifest,
    },
    signing: { signers: [certificate(options.cert ?? `${options.packageName}-release`)] },
  };
}
