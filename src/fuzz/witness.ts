/**
 * The witness of a campaign-wide verdict (`tool-never-succeeds`, src/fuzz/fuzz.ts): of the runs in
 * which the tool (or provider) was called and never succeeded, the one that shows the mechanism best.
 * A run in which the provider answered the calls — an error the caller cannot be blamed for (not a
 * missing grant, a denial, a missing session or invalid args) — beats one whose calls all failed for
 * an unmet precondition or went unanswered; among equals the shortest trace wins (the first one seen
 * on a tie, so the choice is deterministic). The verdict then names its cause: how the tool's calls
 * ended in that run, and the faults and answers on the trace (evidence events a replay prints).
 */
import type { ToolTally } from '../check/exercised.ts';
import type { CallView, Observation } from '../check/observation.ts';

export interface WitnessCandidate<S> {
  readonly scenario: S;
  /** Calls the provider answered with a failure the caller is not to blame for (see the header). */
  readonly fair: number;
  /** Trace length. */
  readonly length: number;
}

/** A candidate of a run in which the key's calls never succeeded (null when one did, or none ran). */
export function candidateOf<S>(scenario: S, tally: ToolTally, obs: Observation): WitnessCandidate<S> | null {
  if (tally.calls === 0 || tally.succeeded > 0) return null;
  return { scenario, fair: tally.calls - tally.unmet, length: obs.events.length };
}

/** Whether `a` shows the mechanism better than `b` (answered failures first, then the shorter run). */
export function betterWitness<S>(a: WitnessCandidate<S>, b: WitnessCandidate<S>): boolean {
  if (a.fair > 0 !== b.fair > 0) return a.fair > 0;
  return a.length < b.length;
}

/** How each call ended: `DEADLINE_EXCEEDED ×2, no reply ×1` (error codes, statuses, no reply). */
export function endings(calls: readonly CallView[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) {
    const end =
      c.reply.kind !== 'bundle'
        ? c.lostAnswer
          ? 'reply lost'
          : 'no reply'
        : c.reply.status === 'error'
          ? (c.reply.errorCode ?? 'error')
          : String(c.reply.status);
    counts.set(String(end), (counts.get(String(end)) ?? 0) + 1);
  }
  return [...counts].map(([end, n]) => `${end} ×${n}`).join(', ');
}

/**
 * The cause events of the verdict in its witness run: every fault the run injected (a lost reply, a
 * clock that moved, a kill) and the reply events of the key's calls, by trace position.
 */
export function causeEvents(obs: Observation, calls: readonly CallView[]): number[] {
  const out = new Set(obs.events.filter((e) => e.kind === 'fault').map((e) => e.seq));
  const replies = obs.events.filter(
    (e) => e.kind.startsWith('binder.reply') && e.data.method === 'execute_tool',
  );
  for (const c of calls) {
    // The reply of this call: the first execute_tool reply from its provider to its caller after it.
    const reply = replies.find(
      (e) => e.step >= c.step && e.data.from === c.provider && e.data.to === c.caller && !out.has(e.seq),
    );
    if (reply) out.add(reply.seq);
  }
  return [...out].sort((a, b) => a - b);
}

/** The faults of a run, in words: `loseReply, clockJump 45000 ms`. */
export function faultsOf(obs: Observation): string {
  const faults = obs.events
    .filter((e) => e.kind === 'fault')
    .map((e) => {
      const f = e.data.fault as { kind?: unknown; ms?: unknown } | undefined;
      const kind = typeof f?.kind === 'string' ? f.kind : 'fault';
      return typeof f?.ms === 'number' ? `${kind} ${f.ms} ms` : kind;
    });
  return faults.length === 0 ? 'none' : faults.join(', ');
}
