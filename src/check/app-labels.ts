/**
 * Frequency labels of what an app's manifest offers beyond one provider in one process of one user
 * (issue 35 item 8, FIDELITY.md row 35.8c; the zoo's manifest variants, src/zoo/variants.ts): how
 * often a campaign's runs met each — read from the run's trace, never from what the generator meant
 * to do. Counted once per run, reported by `fuzz --json` with the other frequencies (frequencies.ts);
 * `appReachFloors` (src/fuzz/suite-kit.ts) sets floors for the ones a provider under test offers.
 *
 * - `app:own-process` — a provider under test ran in a process of its own (`android:process`:
 *   a `process.start` of `<package>:<name>`);
 * - `app:own-process-killed` — that process was killed, not by a reboot (the app's main process may
 *   live on);
 * - `app:own-process-killed-confirming` — killed while a confirmation Activity of its package was up
 *   (an `activity.start` into the package not yet answered by its `activity.result`);
 * - `app:grantee-call` — a call reached a provider under test from a UID the app had granted a URI
 *   under its authority (`uri.grant`): a grantee, which acquires a guarded provider through the grant
 *   alone and then reaches every CETP method;
 * - `app:second-user` — a provider under test was installed for a second user too (`pm.install.user`).
 */
import type { TraceEvent } from '../sim/core/trace.ts';
import type { RecordedCall } from './record.ts';

export const APP_LABELS = [
  'app:own-process',
  'app:own-process-killed',
  'app:own-process-killed-confirming',
  'app:grantee-call',
  'app:second-user',
] as const;

/** The package of process `name` when it is a separate process (`<package>:<name>`) of one of `under`. */
function ownProcessOf(name: unknown, under: ReadonlySet<string>): string | null {
  const s = String(name);
  const i = s.indexOf(':');
  return i > 0 && under.has(s.slice(0, i)) ? s.slice(0, i) : null;
}

/** The app labels a run shows, for the providers `under` test. */
export function appLabels(
  events: readonly TraceEvent[],
  calls: readonly Pick<RecordedCall, 'provider' | 'callerUid' | 'served'>[],
  under: ReadonlySet<string>,
): Set<string> {
  const labels = new Set<string>();
  /** Confirmations up, by package. */
  const up = new Map<string, number>();
  const granted = new Set<string>();
  for (const e of events) {
    const data = e.data as Record<string, unknown>;
    const to = String(data.to);
    if (e.kind === 'process.start' && ownProcessOf(data.actor, under) !== null) labels.add('app:own-process');
    else if (e.kind === 'process.kill' && String(data.cause) !== 'killed: device reboot') {
      const pkg = ownProcessOf(data.actor, under);
      if (pkg !== null) {
        labels.add('app:own-process-killed');
        if ((up.get(pkg) ?? 0) > 0) labels.add('app:own-process-killed-confirming');
      }
    } else if (e.kind === 'activity.start' && under.has(to)) up.set(to, (up.get(to) ?? 0) + 1);
    else if (e.kind === 'activity.result' && under.has(String(data.from)))
      up.set(String(data.from), Math.max(0, (up.get(String(data.from)) ?? 0) - 1));
    else if (e.kind === 'device.reboot') up.clear();
    else if (e.kind === 'uri.grant' && under.has(String(data.actor)))
      granted.add(`${data.actor}|${data.uid}`);
    else if (e.kind === 'pm.install.user' && under.has(String(data.package))) labels.add('app:second-user');
  }
  // A call the provider's handler ran (it passed the acquisition gate), from a grantee.
  if (calls.some((c) => c.served !== undefined && granted.has(`${c.provider}|${c.callerUid}`)))
    labels.add('app:grantee-call');
  return labels;
}
