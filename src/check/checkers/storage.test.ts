/**
 * The storage-level oracles on hand-built observations (a world's commit record and the calls that
 * made them): each fails on the broken shape and passes on the correct one. The whole-run cases —
 * the newcomer's to-do app with add_todo's row written in prepare — are in
 * properties/user-apps/todo.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../sim/core/trace.ts';
import type { CommitRecord, CommitWrite } from '../../sim/ground-truth.ts';
import type { CheckContext } from '../checker.ts';
import type { CallView, Observation } from '../observation.ts';
import type { RunRecord } from '../record.ts';
import { callView, checkContext, commitRecord } from '../testing.ts';
import { storageReadWrites, storageSingleEffect, storageWriteOutsideTransaction } from './storage.ts';

const P = 'com.example.todo';
const RID = 'f0e1d2c3-0000-4000-8000-000000000001';

function call(
  id: number,
  requestId: string | null = RID,
  method = 'execute_tool',
  tool = 'add_todo',
): CallView {
  return callView({ id, provider: P, method, requestId, toolName: tool });
}

const row = (key: string): CommitWrite => ({ table: 'todos', key, deleted: false, value: { text: 'milk' } });
const record = (requestId = RID): CommitWrite => ({
  table: 'cetp.requests',
  key: `10001|${P}|${requestId}`,
  deleted: false,
  value: { uid: 10_001, requestId, state: 'succeeded' },
});

const commit = (seq: number, call: number | null, writes: CommitWrite[], task = seq, pid = 2001) =>
  commitRecord(P, seq, call, writes, task, pid);

function observation(commits: CommitRecord[], calls: CallView[], events: TraceEvent[] = []): Observation {
  return {
    record: { truth: { commits } } as unknown as RunRecord,
    calls,
    events,
    memo: new Map(),
  } as unknown as Observation;
}

const ctx = (extra: Partial<CheckContext> = {}): CheckContext =>
  checkContext({
    providersUnderTest: [P],
    toolEffects: new Map([
      [`${P}|add_todo`, 'create'],
      [`${P}|list_todos`, 'read'],
    ]),
    ...extra,
  });

describe('storage-single-effect', () => {
  it('fails when two executions of one request each wrote business state, naming both commits and tables', () => {
    // The prepare-writes app: call 1 stored its row (#10), was killed; the retry (call 2) stored another.
    const obs = observation(
      [commit(10, 1, [row('TODO-1')]), commit(20, 2, [row('TODO-2')]), commit(21, 2, [record()])],
      [call(1), call(2)],
    );
    const found = storageSingleEffect.check(obs, ctx());
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toBe(
      `request ${RID} of uid 10001 wrote ${P}'s business state in 2 executions: call #1 committed #10 (todos/TODO-1); call #2 committed #20 (todos/TODO-2)`,
    );
    expect(found[0]?.events).toEqual([10, 20]);
    expect(found[0]?.calls).toEqual([1, 2]);
    expect(found[0]?.ruleIds).toContain('CETP-6-01');
  });

  it('fails when an operation resumed by a task of its own writes again what its first worker wrote', () => {
    const obs = observation(
      [commit(10, 1, [row('TODO-1'), record()]), commit(30, null, [row('TODO-2'), record()], 7, 2002)],
      [call(1)],
    );
    expect(storageSingleEffect.check(obs, ctx()).map((v) => v.events)).toEqual([[10, 30]]);
  });

  it('passes one execution writing in several commits, other requests, bookkeeping tables, and a re-send after a wipe', () => {
    const two = [commit(10, 1, [row('TODO-1')]), commit(11, 1, [row('TODO-1'), record()])];
    expect(storageSingleEffect.check(observation(two, [call(1)]), ctx())).toEqual([]);
    const other = [commit(10, 1, [row('TODO-1')]), commit(20, 2, [row('TODO-2')])];
    expect(storageSingleEffect.check(observation(other, [call(1), call(2, 'another')]), ctx())).toEqual([]);
    // Only the SDK's tables, or tables the fixture names as bookkeeping.
    const sdkOnly = [commit(10, 1, [record()]), commit(20, 2, [record()])];
    expect(storageSingleEffect.check(observation(sdkOnly, [call(1), call(2)]), ctx())).toEqual([]);
    const obs = observation(other, [call(1), call(2)]);
    expect(
      storageSingleEffect.check(obs, ctx({ bookkeepingTables: new Map([[P, new Set(['todos'])]]) })),
    ).toEqual([]);
    // The package was uninstalled between the two (same step as the first commit, after it): a new request.
    const wipe = { seq: 11, step: 10, kind: 'pm.uninstall', data: { package: P } } as unknown as TraceEvent;
    expect(storageSingleEffect.check(observation(other, [call(1), call(2)], [wipe]), ctx())).toEqual([]);
    // A worker of request RID that a call of another request happened to start: its commit records RID.
    const stray = [commit(10, 1, [row('TODO-1'), record()]), commit(20, 2, [row('TODO-2'), record()])];
    expect(storageSingleEffect.check(observation(stray, [call(1), call(2, 'another')]), ctx())).toHaveLength(
      1,
    );
    const strayOnce = [
      commit(10, 2, [row('TODO-1'), record()]),
      commit(20, 2, [row('X'), record('another')]),
    ];
    expect(storageSingleEffect.check(observation(strayOnce, [call(2, 'another')]), ctx())).toEqual([]);
    // A hand-written provider's own confirmation record, stored before it asked the user (call 1).
    const asked = {
      ...call(1),
      reply: { kind: 'bundle', status: 'error', errorCode: 'USER_ACTION_REQUIRED' },
    };
    const confirm = [
      commit(10, 1, [{ ...row('C-1'), table: 'confirmations' }]),
      commit(20, 2, [row('TODO-1')]),
    ];
    expect(storageSingleEffect.check(observation(confirm, [asked as CallView, call(2)]), ctx())).toEqual([]);
    // A read tool sent twice under one request_id (reads are not deduplicated) that logs each call.
    const logs = [commit(10, 1, [row('LOG-1')]), commit(20, 2, [row('LOG-2')])];
    const reads = [call(1, RID, 'execute_tool', 'list_todos'), call(2, RID, 'execute_tool', 'list_todos')];
    expect(storageSingleEffect.check(observation(logs, reads), ctx())).toEqual([]);
    // v1 calls are not requests of §6, whatever extras they carry.
    const v1 = [
      { ...call(1), v2: false },
      { ...call(2), v2: false },
    ] as CallView[];
    expect(
      storageSingleEffect.check(
        observation(other.slice(0, 1).concat([commit(20, 2, [row('TODO-1')])]), v1),
        ctx(),
      ),
    ).toEqual([]);
    // Not a provider under test, or a hostile one.
    expect(storageSingleEffect.check(observation(other, [call(1), call(2)]), ctx({ hostile: [P] }))).toEqual(
      [],
    );
  });
});

describe('storage-write-outside-transaction', () => {
  it('fails a business write of a mutating request committed apart from the request record', () => {
    const obs = observation([commit(10, 1, [row('TODO-1')]), commit(11, 1, [record()])], [call(1)]);
    const found = storageWriteOutsideTransaction.check(obs, ctx());
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(
      /call #1 wrote todos\/TODO-1 in commit #10 .*inside mutate, write through tx/,
    );
    expect(found[0]?.ruleIds).toContain('CETP-10-06');
  });

  it('passes writes committed with the request record, reads, and providers that keep no SDK records', () => {
    const inside = [commit(10, 1, [row('TODO-1'), record()])];
    expect(storageWriteOutsideTransaction.check(observation(inside, [call(1)]), ctx())).toEqual([]);
    const read = [commit(10, 1, [row('cache')]), commit(11, 2, [record('other')])];
    expect(
      storageWriteOutsideTransaction.check(
        observation(read, [call(1, RID, 'execute_tool', 'list_todos'), call(2, 'other')]),
        ctx(),
      ),
    ).toEqual([]);
    const handWritten = [commit(10, 1, [row('TODO-1')]), commit(11, 1, [{ ...row('R'), table: 'requests' }])];
    expect(storageWriteOutsideTransaction.check(observation(handWritten, [call(1)]), ctx())).toEqual([]);
  });
});

describe('storage-read-writes', () => {
  const read = (id: number, requestId = RID) => call(id, requestId, 'execute_tool', 'list_todos');

  it("fails a read request whose handling wrote the app's own tables, naming the call, the write and 3.4-08", () => {
    const obs = observation([commit(10, 1, [{ ...row('viewed.10001'), table: 'meta' }])], [read(1)]);
    const found = storageReadWrites.check(obs, ctx());
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(
      new RegExp(
        `^list_todos is declared effect=read, but request ${RID} of uid 10001 \\(call #1\\) wrote meta/viewed.10001 in commit #10`,
      ),
    );
    expect(found[0]?.ruleIds).toEqual(['CETP-3.4-08']);
    expect(found[0]?.calls).toEqual([1]);
  });

  it('passes reads writing only bookkeeping (the SDK, or tables the fixture names), writes by writes, and other providers', () => {
    const logs = [commit(10, 1, [record(), { ...row('L-1'), table: 'call_log' }])];
    const bookkeeping = ctx({ bookkeepingTables: new Map([[P, new Set(['call_log'])]]) });
    expect(storageReadWrites.check(observation(logs, [read(1)]), bookkeeping)).toEqual([]);
    const sdkOnly = [commit(10, 1, [record()])];
    expect(storageReadWrites.check(observation(sdkOnly, [read(1)]), ctx())).toEqual([]);
    const write = [commit(10, 1, [row('TODO-1'), record()])];
    expect(storageReadWrites.check(observation(write, [call(1)]), ctx())).toEqual([]);
    const hostile = [commit(10, 1, [row('TODO-1')])];
    expect(storageReadWrites.check(observation(hostile, [read(1)]), ctx({ hostile: [P] }))).toEqual([]);
    // A worker of another request that a read's call happened to start: its commit records that request.
    const stray = [commit(10, 1, [row('TODO-1'), record('another')])];
    expect(storageReadWrites.check(observation(stray, [read(1)]), ctx())).toEqual([]);
  });
});
