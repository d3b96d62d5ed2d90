/**
 * Discovery (spec §2.1, §8): the consumer queries PackageManager for services with the
 * TOOL_PROVIDER action — visible to it only through its `<queries>` (package visibility, Android 11)
 * — and reads their meta-data:
 *
 * - `versions` is the authoritative set when present; `version` alone is the only version
 *   (CETP-2.1-04, 2.1-05);
 * - the ContentProvider that serves the declared authority must belong to the same package as the
 *   discovery service, else the provider is refused and never called (CETP-2.1-08);
 * - v2 when the set contains 2; v1 only when it contains 1 and not 2 (CETP-8-07, 0-02);
 * - the result is sorted by package, service and authority, so nothing downstream depends on the
 *   order PackageManager happened to return (CETP-3.1-08).
 */

import { META_AUTHORITY, META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../protocol/discovery.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { ConsumerGates } from './gates.ts';

export interface DiscoveredProvider {
  readonly packageName: string;
  readonly serviceName: string;
  readonly authority: string;
  /** UID of the package serving the authority (the creator a resolution PendingIntent must have). */
  readonly providerUid: number;
  /** The declared major versions (the authoritative set). */
  readonly versions: readonly number[];
  /** The protocol the consumer speaks with it. */
  readonly protocol: 1 | 2;
}

export type DiscoveryRefusalReason =
  | 'missing_authority'
  | 'invalid_versions'
  | 'no_supported_version'
  | 'authority_unresolvable'
  | 'package_mismatch'
  | 'duplicate_authority';

export interface RefusedProvider {
  readonly packageName: string;
  readonly serviceName: string;
  readonly authority: string | null;
  readonly reason: DiscoveryRefusalReason;
  readonly ruleIds: readonly string[];
}

export interface DiscoveryResult {
  readonly providers: readonly DiscoveredProvider[];
  readonly refused: readonly RefusedProvider[];
}

const VERSION_TOKEN = /^[1-9][0-9]{0,3}$/;

/** Parses "1,2" (or "2") into distinct positive integers; null when malformed. */
export function parseVersionList(raw: string): number[] | null {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !VERSION_TOKEN.test(p))) return null;
  return [...new Set(parts.map(Number))];
}

/** The authoritative version set of a discovery service's meta-data (2.1-04, 2.1-05). */
export function declaredVersions(
  metaData: Readonly<Record<string, string>>,
  gates: ConsumerGates,
): number[] | null {
  const versions = metaData[META_VERSIONS];
  const version = metaData[META_VERSION];
  // With 2.1-05 ablated the consumer reads the legacy field first, as a v1 consumer would.
  if (!gates.on('CETP-2.1-05') && version !== undefined) return parseVersionList(version);
  if (versions !== undefined) return parseVersionList(versions);
  if (version !== undefined && gates.on('CETP-2.1-04')) {
    const parsed = parseVersionList(version);
    return parsed && parsed.length === 1 ? parsed : null;
  }
  return version !== undefined ? parseVersionList(version) : null;
}

/** Which protocol to speak with a provider declaring `versions` (8-07); null = none we support. */
export function chooseProtocol(versions: readonly number[], gates: ConsumerGates): 1 | 2 | null {
  if (!gates.on('CETP-8-07') && versions.includes(1)) return 1;
  if (versions.includes(2)) return 2;
  if (versions.includes(1)) return 1;
  return null;
}

export function discoverProviders(context: AppContext, gates: ConsumerGates): DiscoveryResult {
  const services = [...context.packageManager.queryIntentServices(TOOL_PROVIDER_ACTION)].sort(
    (a, b) =>
      compare(a.packageName, b.packageName) ||
      compare(a.name, b.name) ||
      compare(a.metaData[META_AUTHORITY] ?? '', b.metaData[META_AUTHORITY] ?? ''),
  );
  const providers: DiscoveredProvider[] = [];
  const refused: RefusedProvider[] = [];
  const seenAuthorities = new Set<string>();
  for (const service of services) {
    const authority = service.metaData[META_AUTHORITY] ?? null;
    const refuse = (reason: DiscoveryRefusalReason, ruleIds: readonly string[]) =>
      refused.push({
        packageName: service.packageName,
        serviceName: service.name,
        authority,
        reason,
        ruleIds,
      });
    if (authority === null || authority === '') {
      refuse('missing_authority', ['CETP-2.1-01']);
      continue;
    }
    const versions = declaredVersions(service.metaData, gates);
    if (versions === null) {
      refuse('invalid_versions', ['CETP-2.1-04', 'CETP-2.1-05']);
      continue;
    }
    const protocol = chooseProtocol(versions, gates);
    if (protocol === null) {
      refuse('no_supported_version', ['CETP-8-07']);
      continue;
    }
    const resolved = context.packageManager.resolveContentProvider(authority);
    if (resolved === null) {
      refuse('authority_unresolvable', ['CETP-2.1-08']);
      continue;
    }
    if (resolved.packageName !== service.packageName && gates.on('CETP-2.1-08')) {
      refuse('package_mismatch', ['CETP-2.1-08']);
      continue;
    }
    if (seenAuthorities.has(authority)) {
      refuse('duplicate_authority', ['CETP-3.1-07']);
      continue;
    }
    seenAuthorities.add(authority);
    providers.push({
      packageName: service.packageName,
      serviceName: service.name,
      authority,
      providerUid: resolved.uid,
      versions,
      protocol,
    });
  }
  return { providers, refused };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
