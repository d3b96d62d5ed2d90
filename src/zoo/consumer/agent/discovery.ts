/**
 * Discovery (spec §2.1, §8): the discovery services PackageManager shows us (through our
 * `<queries>`), read as the spec says.
 *
 * - `versions` is the authoritative set when present; `version` alone is the ONE version
 *   (CETP-2.1-04, 2.1-05) — so "1,2" in `version` is malformed, and the provider is skipped;
 * - v2 when the set has 2; v1 only when it has 1 and not 2 (8-07, 0-02);
 * - the provider serving the declared authority must be of the discovery service's own package
 *   (2.1-08);
 * - sorted by package: nothing depends on the order PackageManager returned (3.1-08).
 */
import { type AppContext, protocol } from '../../../index.ts';
import type { Conduct } from './conduct.ts';

export interface Provider {
  readonly packageName: string;
  readonly authority: string;
  /** The UID serving the authority: the only creator a resolution PendingIntent may have. */
  readonly uid: number;
  readonly protocol: 1 | 2;
}

function versionsOf(meta: Readonly<Record<string, string>>): number[] | null {
  const versions = meta[protocol.META_VERSIONS];
  const version = meta[protocol.META_VERSION];
  const raw = versions ?? version;
  if (raw === undefined) return null;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^[1-9][0-9]{0,3}$/.test(p))) return null;
  if (versions === undefined && parts.length !== 1) return null; // `version` names one version
  return parts.map(Number);
}

export function discover(context: AppContext, conduct: Conduct): Provider[] {
  const found: Provider[] = [];
  for (const service of context.packageManager.queryIntentServices(protocol.TOOL_PROVIDER_ACTION)) {
    const authority = service.metaData[protocol.META_AUTHORITY];
    const versions = versionsOf(service.metaData);
    if (!authority || versions === null) continue;
    const version = conduct.pickVersion(versions);
    if (version === null) continue;
    const resolved = context.packageManager.resolveContentProvider(authority);
    if (resolved === null || resolved.packageName !== service.packageName) continue;
    if (found.some((p) => p.authority === authority || p.packageName === service.packageName)) continue;
    found.push({ packageName: service.packageName, authority, uid: resolved.uid, protocol: version });
  }
  return found.sort((a, b) => (a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));
}
