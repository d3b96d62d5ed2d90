/**
 * Discovery matches visibility (spec §7.2): list_tools returns exactly the tools the caller may
 * discover now (7.2-01) — a tool a provider hides from callers without a scope's grant (7.2-02) is
 * absent for a caller without a live grant and present for one holding it.
 *
 * The truth is the world's, not the provider's: the provider's committed grants table (each grant
 * with its start and end, 7.1-06) read from its durable store after the run. The SDK only replaces a
 * grant with a later one and never revokes, so a list_tools answered before the last grant of the
 * scope started cannot be judged from the table (an earlier, overwritten grant may have been live)
 * and is skipped, as is any answer after a fault that changed who a package is (re-signed,
 * reinstalled, uninstalled) or what its store holds (power loss, reboot).
 */
import { ALERTS_PACKAGE, CLEAR_ALERTS_VISIBILITY } from '../../providers/apps/alerts.ts';
import type { GrantRecord } from '../../providers/sdk/confirmations.ts';
import { identityFingerprint } from '../../providers/sdk/identity.ts';
import { GRANTS } from '../../providers/sdk/records.ts';
import { apkContentsSigners } from '../../sim/pm/signing.ts';
import type { World } from '../../sim/world.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type CallView, type Observation, succeeded } from '../observation.ts';
import { identityOf, storedRows } from '../record.ts';

/** A tool hidden from callers without a live grant of `scope` (the app's declared policy). */
export interface GrantVisibility {
  readonly provider: string;
  readonly tool: string;
  readonly scope: string;
}

/** The reference apps' tools whose visibility depends on a grant. */
export const GRANT_VISIBILITY: readonly GrantVisibility[] = [
  { provider: ALERTS_PACKAGE, tool: CLEAR_ALERTS_VISIBILITY.tool, scope: CLEAR_ALERTS_VISIBILITY.scope },
];

/** Faults after which the grants table no longer tells who held what (identity or store changed). */
const UNJUDGEABLE_AFTER = new Set(['resign', 'reinstall', 'uninstall', 'powerLoss', 'reboot']);

/** The step of the first fault that makes grants unjudgeable, or Infinity. */
function judgeableUntil(obs: Observation): number {
  for (const e of obs.events) {
    if (e.kind !== 'fault') continue;
    const f = e.data.fault as { kind?: string } | undefined;
    if (f?.kind !== undefined && UNJUDGEABLE_AFTER.has(f.kind)) return e.step;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Who `uid` is in the world now (every package, current signers), fingerprinted as the grant policy
 * binds a grant (7.1-06): read from the package manager itself, not through any app's view. (The
 * oracle reads the same from the run's record: record.ts identityOf.)
 */
export function worldIdentity(world: World, uid: number): string {
  const packages = world.pm.getPackagesForUid(uid) ?? [];
  const certDigests: Record<string, readonly string[]> = {};
  for (const p of packages) {
    const info = world.pm.getPackageInfo(p);
    certDigests[p] = info ? apkContentsSigners(info.signing).map((c) => c.sha256) : [];
  }
  return identityFingerprint({ uid, packages, certDigests });
}

/** Whether `uid` held a live grant of `scope` at `t` per the committed table; null when it cannot be told. */
export function grantLiveAt(
  grants: readonly GrantRecord[],
  uid: number,
  scope: string,
  t: number,
  identity?: string,
): boolean | null {
  const ofUid = grants.filter((g) => g.scope === scope && identityUid(g.identity) === uid);
  // A grant bound to another identity of this UID (re-signed, other packages) authorises nothing.
  const mine = identity === undefined ? ofUid : ofUid.filter((g) => g.identity === identity);
  // None at all: never granted (grants are only replaced, never revoked). One of another identity:
  // the identity may have changed after the call, so it cannot be told.
  if (mine.length === 0) return ofUid.length > 0 ? null : false;
  if (mine.length > 1) return null;
  const g = mine[0] as GrantRecord;
  if (t < g.grantedAtMs) return null;
  return t < g.expiresAtMs;
}

/**
 * Whether the provider committed a transaction that can have written `uid`'s grants before `step`:
 * a single put of the grants row, or a confirmation decision (the SDK's Activity writes grants in it).
 */
function grantCommittedBefore(obs: Observation, provider: string, uid: number, step: number): boolean {
  return obs.events.some(
    (e) =>
      e.kind === 'store.commit' &&
      e.step < step &&
      e.data.actor === provider &&
      (e.data.tx === `put ${GRANTS}/${uid}` || e.data.tx === 'confirmation approved'),
  );
}

function identityUid(identity: string): number | null {
  try {
    const parsed = JSON.parse(identity) as unknown;
    return Array.isArray(parsed) && typeof parsed[0] === 'number' ? parsed[0] : null;
  } catch {
    return null;
  }
}

function listedNames(c: CallView): string[] | null {
  if (!succeeded(c)) return null;
  const tools = (c.reply.data as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return null;
  return tools.flatMap((t) =>
    t !== null && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string'
      ? [(t as { name: string }).name]
      : [],
  );
}

export const listMatchesVisibility = judgeRun({
  id: 'list-matches-visibility',
  ruleIds: ['CETP-7.2-01', 'CETP-7.2-02'],
  description:
    "list_tools lists a tool hidden by a scope grant exactly when the caller holds a live grant of that scope, per the provider's committed grants (the world's record).",
  fields: [
    consistency(
      "the caller's live scope grants in the provider's store",
      'json:list_tools_response/tools[]/name',
    ),
  ],
  *judge(obs) {
    const until = judgeableUntil(obs);
    const tables = new Map<string, readonly GrantRecord[]>();
    for (const c of obs.calls) {
      if (c.method !== 'list_tools' || !c.v2 || c.step >= until) continue;
      const rules = GRANT_VISIBILITY.filter((r) => r.provider === c.provider);
      if (rules.length === 0) continue;
      const names = listedNames(c);
      if (names === null) continue;
      let grants = tables.get(c.provider);
      if (!grants) {
        grants = [...storedRows(obs.record, c.provider, GRANTS).values()].flatMap(
          (v) => v as unknown as GrantRecord[],
        );
        tables.set(c.provider, grants);
      }
      for (const r of rules) {
        // The provider reads the grant somewhere between the call and its reply: judged only when
        // the truth is the same at both ends.
        const identity = identityOf(obs.record, c.callerUid);
        const atCall = grantLiveAt(grants, c.callerUid, r.scope, c.t, identity);
        const atReply = grantLiveAt(grants, c.callerUid, r.scope, c.replyT ?? c.t, identity);
        if (atCall === null || atCall !== atReply) continue;
        // A grant's start is the time it claims; it exists only once committed: judged live only
        // after a commit that can have written it.
        if (atCall && !grantCommittedBefore(obs, c.provider, c.callerUid, c.step)) continue;
        const listed = names.includes(r.tool);
        if (listed !== atCall) {
          yield {
            message: atCall
              ? `list_tools hid ${r.tool} from uid ${c.callerUid}, which holds a live grant of ${r.scope}`
              : `list_tools showed ${r.tool} to uid ${c.callerUid}, which holds no live grant of ${r.scope}`,
            calls: [c.id],
          };
        }
      }
    }
  },
});

export const VISIBILITY_CHECKERS: readonly Checker[] = [listMatchesVisibility];
