/**
 * Frequency labels of the device behaviours of issue 35 (src/sim/FIDELITY.md, "Issue 35"): how often
 * a campaign's runs met each — read from what the world recorded in its trace, never from what the
 * generator meant to do. Counted once per run, reported by `fuzz --json` with the other frequencies
 * (frequencies.ts), so a green verdict says whether its runs ever slept, met a frozen callee, saw a
 * stable caller killed after its null, and so on.
 *
 * - `device:deep-sleep` — the device slept (a deepSleep fault: uptime stopped, elapsed time went on);
 * - `device:frozen-reply` — a two-way call failed on a frozen callee (BR_FROZEN_REPLY; profiles 15+);
 * - `device:dependency-kill` — AMS killed a stable caller of a dead provider (after its null).
 */
import type { TraceEvent } from '../sim/trace.ts';

export const DEVICE_LABELS = ['device:deep-sleep', 'device:frozen-reply', 'device:dependency-kill'] as const;

/** The device labels a run's trace shows. */
export function deviceLabels(events: readonly TraceEvent[]): Set<string> {
  const labels = new Set<string>();
  for (const e of events) {
    const data = e.data as Record<string, unknown>;
    if (e.kind === 'fault' && (data.fault as { kind?: unknown } | undefined)?.kind === 'deepSleep')
      labels.add('device:deep-sleep');
    else if (e.kind === 'binder.failed' && String(data.reason).startsWith('callee frozen'))
      labels.add('device:frozen-reply');
    else if (e.kind === 'process.kill' && String(data.cause).startsWith('killed: depends on provider'))
      labels.add('device:dependency-kill');
  }
  return labels;
}
