/**
 * faults-transparent: after a run with retries, kills, lost replies and restarts, the app's business
 * state (its own tables — not the SDK's `cetp.*` bookkeeping nor a fixture's `bookkeepingTables`)
 * equals what executing each request that took effect EXACTLY ONCE, with no faults, leaves.
 *
 * A pure function of recorded data: the run's storage record (every commit, attributed to its
 * request by src/check/checkers/storage.ts) and the record of a fault-free replay
 * (`Observation.faultFree`, made by src/fuzz/fault-free-replay.ts: the same requests, same caller
 * UIDs, request_ids, tools and args, sent one at a time in the run's effect order — the order of
 * each request's first business commit — in a fresh world with no faults, every confirmation and
 * grant approved; a serial execution, so concurrent requests have one fault-free order).
 *
 * Compared request by request, in that order: the live rows each request created (and their final
 * values), then how many business effects it declared. Generated values — ids from the app's PRNG,
 * instants of its clock — differ between the two worlds: they are paired one to one by first
 * appearance (fault-free.ts Matcher); a string sent as an argument must be itself. A request whose
 * retry or restart wrote a second row, a counter bumped twice, a value written before a crash and
 * again after, an effect declared in each execution: each is a difference, named with the request,
 * its rows and fields, and the commits (trace events) that wrote them.
 *
 * Where the set of requests is ambiguous the verdict is a skip with its reason, never a failure
 * (`faultsTransparentVerdict`): a business write no request can be held to, a request sent with two
 * different args, a caller whose UID changed, a replay that could not run. Data wiped by an
 * uninstall is gone: only what the last incarnation holds is compared.
 */
import type { CheckContext, Checker, Violation } from '../checker.ts';
import { violation } from '../checker.ts';
import { consistency } from '../checker-kit.ts';
import {
  foldState,
  Matcher,
  type ReplayedRequest,
  type RunRequest,
  runRequests,
  type StateRow,
  stringLeaves,
  writesOf,
} from '../fault-free.ts';
import type { Observation } from '../observation.ts';

export type TransparentVerdict =
  | { readonly verdict: 'held' | 'violated'; readonly requests: number; readonly violations: Violation[] }
  | { readonly verdict: 'skipped'; readonly reason: string };

/**
 * One difference is reported per run: the first in effect order. What follows it is often its
 * consequence (a second row shifts every later pairing), not news.
 */
const MAX_REPORTED = 1;

function rowName(r: StateRow): string {
  return `${r.table}/${r.key}`;
}

function short(v: unknown): string {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The value at `path` (`.a[2].b`) of `v`, for a message. */
function at(v: unknown, path: string): unknown {
  if (path === '(value)') return v;
  let cur: unknown = v;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function faultsTransparentVerdict(obs: Observation, ctx: CheckContext): TransparentVerdict {
  const record = obs.faultFree;
  if (!record) return { verdict: 'skipped', reason: 'no fault-free replay was made for this run' };
  if (record.kind === 'skipped') return { verdict: 'skipped', reason: record.reason };
  const run = runRequests(obs, ctx);
  if (!run.ok) return { verdict: 'skipped', reason: run.reason };
  const replayed = record.requests;
  if (replayed.length !== run.requests.length || replayed.some((r, i) => r.key !== run.requests[i]?.key))
    return { verdict: 'skipped', reason: 'the replay sent other requests than the run took effect with' };
  return compare(run.requests, replayed);
}

function compare(run: readonly RunRequest[], replayed: readonly ReplayedRequest[]): TransparentVerdict {
  const fixed = new Set<string>();
  run.forEach((r, i) => {
    const theirs = new Set(stringLeaves(replayed[i]?.args ?? ''));
    for (const s of stringLeaves(r.args)) if (theirs.has(s)) fixed.add(s);
  });
  const matcher = new Matcher(fixed);
  const ours = foldState(
    run.flatMap((r, i) => writesOf(r, i)),
    run.length,
  );
  const theirs = foldState(
    replayed.flatMap((r, i) =>
      r.writes.map((w) => ({
        table: w.table,
        key: w.key,
        deleted: w.deleted,
        value: w.value,
        provider: w.provider,
        seq: w.seq,
        request: i,
      })),
    ),
    replayed.length,
  );
  const out: Violation[] = [];
  for (let i = 0; i < run.length && out.length < MAX_REPORTED; i++) {
    const r = run[i] as RunRequest;
    const rep = replayed[i] as ReplayedRequest;
    const problem = differs(matcher, ours[i] ?? [], theirs[i] ?? []) ?? effectsDiffer(r, rep);
    if (!problem) continue;
    out.push(
      violation(
        faultsTransparent,
        `request ${r.requestId} of uid ${r.uid} (${r.tool}, effect #${i + 1} of ${run.length}): ${problem.text}`,
        {
          events: [...new Set([...problem.seqs, ...r.commits.map((b) => b.commit.seq)])].sort(
            (a, b) => a - b,
          ),
          calls: [...new Set(r.commits.flatMap((b) => (b.call ? [b.call.id] : [])))],
        },
      ),
    );
  }
  return { verdict: out.length > 0 ? 'violated' : 'held', requests: run.length, violations: out };
}

interface Difference {
  readonly text: string;
  readonly seqs: readonly number[];
}

function differs(
  matcher: Matcher,
  ours: readonly StateRow[],
  theirs: readonly StateRow[],
): Difference | null {
  if (ours.length > theirs.length) {
    const extra = ours.slice(theirs.length);
    return {
      text: `the run left ${ours.length} rows it created (${ours.map(rowName).join(', ')}), a fault-free execution ${theirs.length}; extra: ${extra.map((r) => `${rowName(r)} by commit #${r.seqs[0]}`).join(', ')}`,
      seqs: ours.flatMap((r) => r.seqs),
    };
  }
  if (ours.length < theirs.length)
    return {
      text: `the run left ${ours.length} rows it created, a fault-free execution ${theirs.length} (${theirs.map(rowName).join(', ')}): a write was lost`,
      seqs: ours.flatMap((r) => r.seqs),
    };
  for (let j = 0; j < ours.length; j++) {
    const a = ours[j] as StateRow;
    const b = theirs[j] as StateRow;
    if (a.provider !== b.provider || a.table !== b.table)
      return {
        text: `the run left ${rowName(a)} where a fault-free execution leaves ${rowName(b)}`,
        seqs: a.seqs,
      };
    if (matcher.unify(a.key, b.key) !== null)
      return {
        text: `the run keyed its row ${rowName(a)} unlike a fault-free execution (${b.key})`,
        seqs: a.seqs,
      };
    const path = matcher.unify(a.value, b.value);
    if (path !== null)
      return {
        text: `${rowName(a)} (created by it; written by commits #${a.seqs.join(', #')}) holds ${path === '(value)' ? '' : `${path} = `}${short(at(a.value, path))} after the run; a fault-free execution leaves ${short(at(b.value, path))}`,
        seqs: a.seqs,
      };
  }
  return null;
}

function effectsDiffer(r: RunRequest, rep: ReplayedRequest): Difference | null {
  if (r.effects.length === rep.effects) return null;
  return {
    text: `it declared ${r.effects.length} business effects in the run, a fault-free execution ${rep.effects}`,
    seqs: r.effects.flatMap((e) => (e.seq === null ? [] : [e.seq])),
  };
}

export const faultsTransparent: Checker = {
  id: 'faults-transparent',
  ruleIds: ['CETP-6-01', 'CETP-6-06', 'CETP-10-06', 'CETP-4.4-17'],
  description:
    "Faults are transparent: the app's business state after the run (its own tables, and the effects it declares) equals what a fault-free replay leaves — each request that took effect executed exactly once, one at a time in the run's effect order, in a fresh world; generated ids and instants paired up one to one, not compared raw. An ambiguous run is skipped, not failed.",
  fields: [
    consistency(
      "the app's business state after a fault-free replay of the requests that took effect",
      'req:execute_tool:request_id',
    ),
  ],
  check(obs, ctx) {
    const v = faultsTransparentVerdict(obs, ctx);
    return v.verdict === 'skipped' ? [] : v.violations;
  },
};
