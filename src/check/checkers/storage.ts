/**
 * Oracles over what an app's storage actually received — the world's record of every committed
 * transaction (src/sim/ground-truth.ts CommitRecord), not the effects the app declares. A write to
 * the app's own tables (business state: every table but the SDK's `cetp.*` bookkeeping and the
 * tables a fixture names in `bookkeepingTables`) belongs to the request whose handling made it:
 * - the execute_tool call its task was serving — or serving when the task was spawned (an async
 *   operation's worker) — as the Binder driver saw it;
 * - else, for a task of the app's own (an operation resumed after a restart), the request whose SDK
 *   record (`cetp.requests`) that task wrote.
 * A call answered USER_ACTION_REQUIRED or AUTH_REQUIRED is not an execution: its request comes back
 * with the user's answer, and what the app stored meanwhile is its record of the pending request.
 *
 * storage-single-effect: one request's business writes come from one execution of it.
 * storage-write-outside-transaction: on a provider that records request outcomes (the SDK's
 * `cetp.requests`), a mutating request's business writes commit together with its outcome (10-06).
 * storage-read-writes: a request to an effect=read tool commits no business writes (3.4-08); call
 * logs, caches and metering are the tables a fixture names in `bookkeepingTables`.
 *
 * A provider that keeps no request records of that shape (written by hand) is judged only by
 * storage-single-effect: which of its commits "record the outcome" is its own design, but a second
 * execution writing business state for the same request_id is a duplicate whatever the design.
 */
import type { JsonValue } from '../../base/json.ts';
import { joinedKey } from '../../protocol/names.ts';
import type { CommitRecord, CommitWrite } from '../../sim/ground-truth.ts';
import { type CheckContext, type Checker, groupBy } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type CallView, memoOn, type Observation } from '../observation.ts';
import { incarnationAt } from './lifecycle.ts';

/** The SDK's bookkeeping tables (src/providers/sdk/records.ts) all start with this. */
export const SDK_TABLE_PREFIX = 'cetp.';
/** The SDK's request records (records.ts REQUESTS). */
const SDK_REQUESTS = 'cetp.requests';

/** One commit that wrote business state, with the request and the execution it belongs to. */
export interface BusinessCommit {
  readonly commit: CommitRecord;
  /** Its writes to business tables. */
  readonly writes: readonly CommitWrite[];
  readonly provider: string;
  readonly uid: number;
  /** Normalised (lower case). */
  readonly requestId: string;
  /** The execute_tool call whose handling made it (null: a task of the app's own). */
  readonly call: CallView | null;
  /** `call:<id>` or `task:<pid>:<task>`: one execution of the request. */
  readonly execution: string;
  readonly incarnation: number;
}

function isBusiness(table: string, extra: ReadonlySet<string> | undefined): boolean {
  return !table.startsWith(SDK_TABLE_PREFIX) && !(extra?.has(table) ?? false);
}

/** The request an SDK request record names (its value), if it is one. */
function recordedRequest(w: CommitWrite): { uid: number; requestId: string } | null {
  if (w.table !== SDK_REQUESTS || w.value === null || typeof w.value !== 'object' || Array.isArray(w.value))
    return null;
  const v = w.value as { [k: string]: JsonValue | undefined };
  return typeof v.uid === 'number' && typeof v.requestId === 'string'
    ? { uid: v.uid, requestId: v.requestId.toLowerCase() }
    : null;
}

/**
 * Errors that leave the request to a follow-up of itself (the user approves, grants, then the same
 * request_id comes back): what the app stored before answering them is its own record of the
 * pending request (a confirmation), not an execution. Whether business state changed before the
 * user agreed is approval-binding's to judge.
 */
const FOLLOW_UP_CODES: ReadonlySet<string> = new Set(['USER_ACTION_REQUIRED', 'AUTH_REQUIRED']);

function asksFollowUp(c: CallView): boolean {
  const answer = c.reply.kind === 'bundle' ? c.reply : c.lostAnswer;
  return answer?.status === 'error' && FOLLOW_UP_CODES.has(answer.errorCode ?? '');
}

/** Every commit of a provider under test that wrote business state and can be tied to a request. */
export function businessCommits(obs: Observation, ctx: CheckContext): readonly BusinessCommit[] {
  return memoOn(obs, BUSINESS, () => {
    const judged = new Set(ctx.providersUnderTest.filter((p) => !(ctx.hostile ?? []).includes(p)));
    const calls = new Map(obs.calls.map((c) => [c.id, c]));
    const commits = obs.record.truth.commits.filter((c) => judged.has(c.packageName));
    // The request each of the app's own tasks recorded (an operation's worker): by `pid:task`.
    const taskRequests = new Map<string, { uid: number; requestId: string } | 'many'>();
    for (const c of commits) {
      if (c.call !== null) continue;
      for (const w of c.writes) {
        const r = recordedRequest(w);
        if (!r) continue;
        const key = `${c.pid}:${c.task}`;
        const known = taskRequests.get(key);
        if (known === undefined) taskRequests.set(key, r);
        else if (known !== 'many' && (known.uid !== r.uid || known.requestId !== r.requestId))
          taskRequests.set(key, 'many');
      }
    }
    const out: BusinessCommit[] = [];
    for (const commit of commits) {
      const writes = commit.writes.filter((w) =>
        isBusiness(w.table, ctx.bookkeepingTables?.get(commit.packageName)),
      );
      if (writes.length === 0) continue;
      // The request the commit itself records (the SDK's execute or operation commit) outranks the
      // call: a worker that a call of another request started would be that other call's.
      const own = commit.writes.map(recordedRequest).find((r) => r !== null);
      const attributed = commit.call === null ? undefined : calls.get(commit.call);
      const call =
        own && attributed && (attributed.callerUid !== own.uid || attributed.requestId !== own.requestId)
          ? undefined
          : attributed;
      let request: { uid: number; requestId: string } | null = null;
      let execution: string;
      if (own && !call) {
        request = own;
        execution = `task:${commit.pid}:${commit.task}`;
      } else if (call) {
        // v1 carries no request_id (a v1 call sent with one is still not a request of §6).
        if (call.method !== 'execute_tool' || !call.v2 || call.requestId === null || asksFollowUp(call))
          continue;
        request = { uid: call.callerUid, requestId: call.requestId };
        execution = `call:${call.id}`;
      } else {
        const r = taskRequests.get(`${commit.pid}:${commit.task}`);
        if (r === undefined || r === 'many') continue;
        request = r;
        execution = `task:${commit.pid}:${commit.task}`;
      }
      out.push({
        commit,
        writes,
        provider: commit.packageName,
        uid: request.uid,
        requestId: request.requestId,
        call: call ?? null,
        execution,
        incarnation: incarnationAt(obs, commit.packageName, commit.step, commit.seq),
      });
    }
    return out;
  });
}
const BUSINESS: unique symbol = Symbol('cetp.check.storage.business');

/** `table/key` of the business writes of one execution's commits, at most three, for a message. */
function written(list: readonly BusinessCommit[]): string {
  const keys = [
    ...new Set(
      list.flatMap((b) => b.writes.map((w) => `${w.table}/${w.key}${w.deleted ? ' (deleted)' : ''}`)),
    ),
  ];
  return keys.length > 3 ? `${keys.slice(0, 3).join(', ')} …` : keys.join(', ');
}

/** `#seq` of each commit, for a message. */
function seqs(list: readonly BusinessCommit[]): string {
  return list.map((b) => `#${b.commit.seq}`).join(', ');
}

function madeBy(b: BusinessCommit): string {
  return b.call ? `call #${b.call.id}` : `task ${b.commit.task} of pid ${b.commit.pid}`;
}

export const storageSingleEffect = judgeRun({
  id: 'storage-single-effect',
  ruleIds: ['CETP-6-01', 'CETP-6-06', 'CETP-4.1-09', 'CETP-4.4-17'],
  description:
    "A request's (calling UID, provider, request_id) business writes — what the app's own tables actually received, declared or not — are made by one execution of it in one incarnation of the provider: two execute_tool calls (or an operation's worker and its restart) each committing business state for one request_id is a duplicate effect.",
  fields: [
    consistency(
      "the writes to the app's own tables, by the call whose handling made them",
      'req:execute_tool:request_id',
    ),
  ],
  *judge(obs, ctx) {
    // A read is not deduplicated (6-01 is about effect != read): what it writes is judged elsewhere (3.4-08).
    const groups = groupBy(
      businessCommits(obs, ctx).filter((b) => !b.call || ctx.toolEffects.get(b.call.toolKey) !== 'read'),
      // The long part last (a hostile request_id: joinedKey makes one string of it, not one per commit).
      (b) => joinedKey(`${b.provider}|${b.uid}|${b.incarnation}|`, b.requestId),
    );
    for (const list of groups.values()) {
      const byExecution = [...groupBy(list, (b) => b.execution).values()];
      if (byExecution.length < 2) continue;
      const [one, two] = byExecution;
      const first = one?.[0];
      const second = two?.[0];
      if (!one || !two || !first || !second) continue;
      yield {
        message: `request ${first.requestId} of uid ${first.uid} wrote ${first.provider}'s business state in ${byExecution.length} executions: ${madeBy(first)} committed ${seqs(one)} (${written(one)}); ${madeBy(second)} committed ${seqs(two)} (${written(two)})`,
        events: byExecution.flatMap((l) => l.map((b) => b.commit.seq)),
        calls: byExecution.flatMap((l) => (l[0]?.call ? [l[0].call.id] : [])),
      };
    }
  },
});

export const storageWriteOutsideTransaction = judgeRun({
  id: 'storage-write-outside-transaction',
  ruleIds: ['CETP-10-06', 'CETP-6-01'],
  description:
    "On a provider that records request outcomes (the SDK's cetp.requests), every business write of a mutating request commits in the transaction that records that request's outcome — not before it in a commit of its own (a write in prepare, through context.storage): a crash between the two leaves the change without its record, and the retry makes it again.",
  fields: [
    consistency(
      "the commits that wrote the app's own tables and the one that recorded the request",
      'req:execute_tool:request_id',
    ),
  ],
  *judge(obs, ctx) {
    const recording = new Set(
      obs.record.truth.commits
        .filter((c) => c.writes.some((w) => w.table === SDK_REQUESTS))
        .map((c) => c.packageName),
    );
    const seen = new Set<string>();
    for (const b of businessCommits(obs, ctx)) {
      if (!recording.has(b.provider)) continue;
      if (b.call && ctx.toolEffects.get(b.call.toolKey) === 'read') continue;
      const inside = b.commit.writes.some((w) => {
        const r = recordedRequest(w);
        return r !== null && r.uid === b.uid && r.requestId === b.requestId;
      });
      const key = joinedKey(`${b.execution}|`, b.requestId);
      if (inside || seen.has(key)) continue;
      seen.add(key);
      yield {
        message: `request ${b.requestId} of uid ${b.uid}: ${madeBy(b)} wrote ${written([b])} in commit #${b.commit.seq} ("${b.commit.tx}"), outside the transaction that records the request — inside mutate, write through tx`,
        events: [b.commit.seq],
        calls: b.call ? [b.call.id] : [],
      };
    }
  },
});

export const storageReadWrites = judgeRun({
  id: 'storage-read-writes',
  ruleIds: ['CETP-3.4-08'],
  description:
    "A request to a tool declared effect=read changes no business state: its handling commits no write to the app's own tables (only to the SDK's bookkeeping and the call logs, caches and metering tables the fixture names in bookkeepingTables).",
  fields: [
    consistency(
      "the writes to the app's own tables made while handling a read",
      'req:execute_tool:tool_name',
    ),
  ],
  *judge(obs, ctx) {
    const seen = new Set<number>();
    for (const b of businessCommits(obs, ctx)) {
      if (!b.call || ctx.toolEffects.get(b.call.toolKey) !== 'read' || seen.has(b.call.id)) continue;
      seen.add(b.call.id);
      yield {
        message: `${b.call.toolName} is declared effect=read, but request ${b.requestId} of uid ${b.uid} (call #${b.call.id}) wrote ${written([b])} in commit #${b.commit.seq} ("${b.commit.tx}"): a read changes no business state — keep call logs, caches and metering in tables the fixture names in bookkeepingTables`,
        events: [b.commit.seq],
        calls: [b.call.id],
      };
    }
  },
});

export const STORAGE_CHECKERS: readonly Checker[] = [
  storageSingleEffect,
  storageWriteOutsideTransaction,
  storageReadWrites,
];
